//! The replay readers: each asks for one replay over and over on a
//! keep-alive HTTP/1.1 connection from a loopback address of its own (so
//! each is a client of its own to the server's limits), and counts what
//! came back.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

/// What one reader saw.
#[derive(Clone, Debug, Default)]
pub(super) struct Tally {
    pub(super) ok: u64,
    pub(super) not_modified: u64,
    pub(super) limited: u64,
    pub(super) other: u64,
    pub(super) failed: u64,
    /// Body bytes received.
    pub(super) bytes: u64,
    /// Milliseconds of each answered request.
    pub(super) latencies_ms: Vec<f64>,
}

impl Tally {
    pub(super) fn add(&mut self, other: &Tally) {
        self.ok += other.ok;
        self.not_modified += other.not_modified;
        self.limited += other.limited;
        self.other += other.other;
        self.failed += other.failed;
        self.bytes += other.bytes;
        self.latencies_ms.extend_from_slice(&other.latencies_ms);
    }
}

/// Reader number `index` asks for `path` until `until`, with
/// `Accept-Encoding: gzip` unless `identity`, as fast as the answers come
/// (a 429 is asked again at once: a flood, not a browser).
pub(super) async fn reader(
    addr: SocketAddr,
    index: usize,
    path: String,
    identity: bool,
    until: Instant,
) -> Tally {
    let source = IpAddr::V4(Ipv4Addr::new(
        127,
        0,
        1 + (index / 250) as u8,
        1 + (index % 250) as u8,
    ));
    let mut tally = Tally::default();
    let mut connection: Option<BufReader<TcpStream>> = None;
    while Instant::now() < until {
        let stream = match connection.take() {
            Some(stream) => stream,
            None => match connect(addr, source).await {
                Ok(stream) => BufReader::new(stream),
                Err(_) => {
                    tally.failed += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let started = Instant::now();
        let left = until.saturating_duration_since(started) + Duration::from_secs(5);
        match tokio::time::timeout(left, get(stream, addr, &path, identity)).await {
            Ok(Ok((status, bytes, stream))) => {
                tally
                    .latencies_ms
                    .push(started.elapsed().as_secs_f64() * 1000.0);
                tally.bytes += bytes;
                match status {
                    200 => tally.ok += 1,
                    304 => tally.not_modified += 1,
                    429 => tally.limited += 1,
                    _ => tally.other += 1,
                }
                connection = stream;
            }
            _ => tally.failed += 1,
        }
    }
    tally
}

async fn connect(addr: SocketAddr, source: IpAddr) -> Result<TcpStream> {
    let stream = match addr {
        SocketAddr::V4(v4) if v4.ip().is_loopback() => {
            let socket = TcpSocket::new_v4()?;
            socket.bind(SocketAddr::new(source, 0))?;
            socket.connect(addr).await?
        }
        addr => TcpStream::connect(addr).await?,
    };
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// One GET on a kept-alive connection: the status, the body's length, and
/// the connection if the server keeps it open.
async fn get(
    mut stream: BufReader<TcpStream>,
    addr: SocketAddr,
    path: &str,
    identity: bool,
) -> Result<(u16, u64, Option<BufReader<TcpStream>>)> {
    let encoding = if identity {
        ""
    } else {
        "Accept-Encoding: gzip\r\n"
    };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{encoding}\r\n");
    stream.get_mut().write_all(request.as_bytes()).await?;
    let mut line = String::new();
    stream.read_line(&mut line).await?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| anyhow!("no status line: {line:?}"))?;
    let mut length = None;
    let mut close = false;
    loop {
        line.clear();
        if stream.read_line(&mut line).await? == 0 {
            bail!("the connection closed in the head");
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "content-length" {
                length = value.parse::<u64>().ok();
            } else if name == "connection" && value.eq_ignore_ascii_case("close") {
                close = true;
            } else if name == "transfer-encoding" {
                bail!("a chunked answer (not expected from the server)");
            }
        }
    }
    let length = if status == 304 {
        0
    } else {
        length.unwrap_or(0)
    };
    let mut body = (&mut stream).take(length);
    let read = tokio::io::copy(&mut body, &mut tokio::io::sink()).await?;
    if read != length {
        bail!("the body was cut short");
    }
    Ok((status, read, (!close).then_some(stream)))
}
