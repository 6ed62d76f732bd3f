//! The WebSocket link to `broadside serve` (docs/protocol.md).
//!
//! One thread owns the socket. It reads with a short timeout so that, between
//! reads, it can send the frames the app queued; every frame that arrives is
//! handed to the app's single message channel as [`NetEvent::Frame`], so the
//! app sees network traffic, keys and timers in one ordered stream.

use std::net::{TcpStream, ToSocketAddrs};
use std::sync::mpsc::{Receiver, Sender, TryRecvError};
use std::thread;
use std::time::Duration;

use broadside_protocol::{Refusal, ServerFrame};
use serde_json::Value;
use tungstenite::{Message, WebSocket};

use crate::i18n::Lang;
use crate::Msg;

/// How long one read waits before the thread looks for frames to send.
const POLL: Duration = Duration::from_millis(40);

/// What the network thread reports to the app.
#[derive(Debug, Clone, PartialEq)]
pub enum NetEvent {
    /// The socket is open.
    Connected,
    /// One JSON frame from the server, as received; the app reads it as a
    /// [`ServerFrame`].
    Frame(Value),
    /// The link is gone, and why.
    Closed(CloseReason),
}

/// Why the link to the server is gone: a reason the app words in the
/// player's language (the operating system's own messages are English).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseReason {
    /// The server's host name is not known.
    Unresolved { host: String },
    /// Nothing answered at the address (refused, timed out, unreachable).
    Unreachable { host: String },
    /// Something answered but refused the WebSocket handshake.
    Refused,
    /// The link broke after it was up.
    Lost,
    /// The server closed the link.
    ServerClosed,
    /// The server closed the link because this session was ended on
    /// another device (close code 4005): the token is a stranger's now.
    SignedOut,
    /// The server closed the link because its operators banned this
    /// person (close code 4006).
    Banned,
    /// This client closed it.
    Closed,
}

impl CloseReason {
    /// The reason in the player's language.
    pub fn words(&self, lang: Lang) -> String {
        match self {
            CloseReason::Unresolved { host } => lang.fill("tui.net.unresolved", &[("host", host)]),
            CloseReason::Unreachable { host } => {
                lang.fill("tui.net.unreachable", &[("host", host)])
            }
            CloseReason::Refused => lang.t("tui.net.refused"),
            CloseReason::Lost => lang.t("tui.net.lost"),
            CloseReason::ServerClosed => lang.t("tui.net.server_closed"),
            CloseReason::SignedOut => lang.t("tui.net.signed_out"),
            CloseReason::Banned => lang.t("tui.net.banned"),
            CloseReason::Closed => lang.t("tui.net.closed"),
        }
    }
}

/// Why a server address could not be used.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("'{0}' is not a server address: write it like http://localhost:8080")]
    BadAddress(String),
}

/// The WebSocket endpoint (`ws://host:port/ws`) and the `host:port` of a server
/// address given as `http://host:port`, `ws://host:port/ws` or `host:port`.
pub fn endpoint(address: &str) -> Result<(String, String), NetError> {
    let bad = || NetError::BadAddress(address.to_string());
    let rest = address
        .strip_prefix("http://")
        .or_else(|| address.strip_prefix("ws://"))
        .unwrap_or(address);
    if address.starts_with("https://") || address.starts_with("wss://") {
        // TLS would need a TLS stack; a local server speaks plain HTTP.
        return Err(bad());
    }
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(bad());
    }
    let host = if host.contains(':') {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    let path = path.trim_end_matches('/');
    let path = if path.ends_with("/ws") {
        path.to_string()
    } else {
        format!("{path}/ws")
    };
    Ok((format!("ws://{host}{path}"), host))
}

/// Starts the network thread. Frames queued on the returned sender are sent in
/// order; what arrives goes to `to_app`.
pub fn connect(address: &str, to_app: Sender<Msg>) -> Result<Sender<String>, NetError> {
    let (url, host) = endpoint(address)?;
    let (outgoing, queue) = std::sync::mpsc::channel::<String>();
    thread::spawn(move || {
        let reason = match open(&url, &host) {
            Ok(socket) => {
                if to_app.send(Msg::Net(NetEvent::Connected)).is_err() {
                    return;
                }
                pump(socket, &queue, &to_app)
            }
            Err(reason) => reason,
        };
        // The app may already be gone; then nobody needs the reason.
        let _ = to_app.send(Msg::Net(NetEvent::Closed(reason)));
    });
    Ok(outgoing)
}

fn open(url: &str, host: &str) -> Result<WebSocket<TcpStream>, CloseReason> {
    let unresolved = || CloseReason::Unresolved {
        host: host.to_string(),
    };
    let address = host
        .to_socket_addrs()
        .map_err(|_| unresolved())?
        .next()
        .ok_or_else(unresolved)?;
    let stream = TcpStream::connect_timeout(&address, Duration::from_secs(5)).map_err(|_| {
        CloseReason::Unreachable {
            host: host.to_string(),
        }
    })?;
    let (socket, _response) = tungstenite::client(url, stream).map_err(|_| CloseReason::Refused)?;
    // Only after the handshake: a timeout during it would abort the handshake.
    socket
        .get_ref()
        .set_read_timeout(Some(POLL))
        .map_err(|_| CloseReason::Lost)?;
    Ok(socket)
}

/// Moves frames both ways until either side ends; returns why it ended.
fn pump(
    mut socket: WebSocket<TcpStream>,
    queue: &Receiver<String>,
    to_app: &Sender<Msg>,
) -> CloseReason {
    loop {
        loop {
            match queue.try_recv() {
                Ok(text) => {
                    if socket.send(Message::text(text)).is_err() {
                        return CloseReason::Lost;
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // The app closed; say goodbye politely.
                    let _ = socket.close(None);
                    let _ = socket.flush();
                    return CloseReason::Closed;
                }
            }
        }
        match socket.read() {
            Ok(Message::Text(text)) => {
                let frame = serde_json::from_str(text.as_str()).unwrap_or_else(|_| {
                    let refusal = Refusal::new(
                        broadside_protocol::codes::BAD_JSON,
                        "the server sent a frame that is not JSON",
                    );
                    serde_json::to_value(ServerFrame::error(&refusal, None, None))
                        .expect("an error frame is plain data")
                });
                if to_app.send(Msg::Net(NetEvent::Frame(frame))).is_err() {
                    return CloseReason::Closed;
                }
            }
            Ok(Message::Close(frame)) => {
                return match frame.map(|f| u16::from(f.code)) {
                    Some(broadside_protocol::close::SIGNED_OUT) => CloseReason::SignedOut,
                    Some(broadside_protocol::close::BANNED) => CloseReason::Banned,
                    _ => CloseReason::ServerClosed,
                }
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                // Pongs to the server's pings are queued by tungstenite and go out here.
                if let Err(e) = socket.flush() {
                    if !matches!(&e, tungstenite::Error::Io(io) if matches!(io.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut))
                    {
                        return CloseReason::Lost;
                    }
                }
            }
            Err(_) => return CloseReason::Lost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::endpoint;

    #[test]
    fn endpoint_accepts_the_usual_spellings() {
        let expected = (
            "ws://localhost:8080/ws".to_string(),
            "localhost:8080".to_string(),
        );
        assert_eq!(
            endpoint("http://localhost:8080").expect("a valid address"),
            expected
        );
        assert_eq!(
            endpoint("http://localhost:8080/").expect("a valid address"),
            expected
        );
        assert_eq!(
            endpoint("ws://localhost:8080/ws").expect("a valid address"),
            expected
        );
        assert_eq!(
            endpoint("localhost:8080").expect("a valid address"),
            expected
        );
        assert_eq!(
            endpoint("example.org").expect("a valid address").0,
            "ws://example.org:80/ws"
        );
        assert!(endpoint("https://example.org").is_err());
        assert!(endpoint("").is_err());
    }
}
