//! Online: the account this terminal is signed in to, and `--login`, which
//! signs it in the way `gh auth login` does: the terminal asks the server for
//! a code (`link_request`), shows it with the page to approve it at, and a
//! signed-in browser approves it (`link_approve`); the server then hands this
//! connection a new session (`signed_in`), which the terminal keeps in its
//! token file and connects again with (docs/protocol.md, Accounts).

use std::time::{Duration, Instant};

use broadside_protocol::{AccountRating, ClientFrame};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::{App, Play, Screen, Source};
use crate::net;

/// A sign-in under way (`--login`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Login {
    /// The code to approve, once the server has sent it.
    pub code: Option<String>,
    /// When the code stops being valid.
    pub expires: Option<Instant>,
    /// The code expired (or the server said so) before it was approved.
    pub expired: bool,
}

impl Login {
    /// How long the code stays valid from `now` (zero once expired).
    pub fn left(&self, now: Instant) -> Duration {
        match (self.expired, self.expires) {
            (false, Some(expires)) => expires.saturating_duration_since(now),
            _ => Duration::ZERO,
        }
    }
}

/// The account this terminal is signed in to.
#[derive(Debug, Clone, PartialEq)]
pub struct Account {
    pub username: String,
    /// Its rating in each preset it has played rated games of, as the
    /// `account` frame told them; `None` until it has.
    pub ratings: Option<Vec<AccountRating>>,
}

impl App {
    /// Asks the server for a code to approve (again, after one expired or
    /// the link dropped: a code waits on the connection that asked for it).
    pub(super) fn request_login_code(&mut self) {
        self.login = Some(Login::default());
        self.screen = Screen::Login;
        self.notice = None;
        self.send_frame(ClientFrame::LinkRequest);
    }

    /// `link_code`: the code to show, valid for `expires_in_ms`.
    pub(super) fn login_code(&mut self, code: String, expires_in_ms: u64) {
        let Some(login) = self.login.as_mut() else {
            return;
        };
        login.code = Some(code);
        login.expires = Some(Instant::now() + Duration::from_millis(expires_in_ms));
        login.expired = false;
    }

    /// The code expired unapproved (the server's `link_code_invalid` for
    /// the `link_request`, or the countdown ran out here first).
    pub(super) fn login_expired(&mut self) {
        if let Some(login) = self.login.as_mut() {
            login.expired = true;
        }
    }

    /// `signed_in`: the new session's token is kept for this run and the
    /// next ones, and the terminal connects again with it.
    pub(super) fn signed_in(&mut self, token: &str, username: String) {
        self.login = None;
        self.config.login = false;
        if !self.store_token(Some(token)) {
            self.warn(self.lang().t("tui.token_not_kept"));
        }
        self.account = Some(Account {
            username,
            ratings: None,
        });
        self.just_signed_in = true;
        self.relink();
    }

    /// After `welcome`: who this terminal is signed in to (a guest: nobody);
    /// an account's ratings are asked for. With `--login` still to do, asks
    /// for a code instead of going on; true if it did.
    pub(super) fn welcomed_as(&mut self, username: Option<String>) -> bool {
        if self.config.login {
            self.request_login_code();
            return true;
        }
        match username {
            Some(username) => {
                let ratings = self
                    .account
                    .take()
                    .filter(|a| a.username == username)
                    .and_then(|a| a.ratings);
                self.account = Some(Account { username, ratings });
                self.send_frame(ClientFrame::Account);
            }
            None => self.account = None,
        }
        false
    }

    /// After `welcome` and its start screen: a sign-in that has just
    /// happened is told.
    pub(super) fn tell_signed_in(&mut self) {
        if !std::mem::take(&mut self.just_signed_in) {
            return;
        }
        if let Some(account) = self.account.as_ref() {
            let text = self
                .lang()
                .fill("tui.signed_in_now", &[("name", &account.username)]);
            self.say(text);
        }
    }

    /// `account`: the ratings of the account.
    pub(super) fn account_info(&mut self, info: broadside_protocol::AccountInfo) {
        self.account = Some(Account {
            username: info.username,
            ratings: Some(info.ratings),
        });
    }

    /// Close code 4005: this session was ended on another device. Its token
    /// is a stranger's now: it is forgotten, and the terminal goes on as a
    /// new guest.
    pub(super) fn session_ended(&mut self) {
        self.forget_token();
        self.account = None;
        self.warn(self.lang().t("tui.session_ended"));
    }

    /// The keys of the code's screen: n asks for a new code, q quits.
    pub(super) fn login_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Char('n') | KeyCode::Enter => {
                let waiting = self.login.as_ref().is_some_and(|l| l.code.is_none());
                if self.connected() && !waiting {
                    self.request_login_code();
                }
            }
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            _ => {}
        }
    }

    /// On every tick: a code whose time is up is shown as expired.
    pub(super) fn login_tick(&mut self) {
        let now = Instant::now();
        if let Some(login) = self.login.as_mut() {
            if login.expires.is_some_and(|at| now >= at) {
                login.expired = true;
            }
        }
    }

    /// Lets the link go and connects again at once (the new token's
    /// `hello`). Without an event loop (tests) the same channel stays, and
    /// the next `Connected` is the new link's.
    pub(super) fn relink(&mut self) {
        let sender = self.sender.clone();
        let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_mut()
        else {
            return;
        };
        remote.connected = false;
        remote.retry_at = None;
        remote.attempts = 0;
        remote.room = None;
        let Some(sender) = sender else {
            return;
        };
        match net::connect(&remote.server, sender) {
            Ok(out) => {
                // The old link's thread ends when it finds its queue gone,
                // and says so: that is not the new link dropping.
                remote.out = out;
                self.links_let_go += 1;
            }
            Err(e) => {
                let text = super::online::net_error(self.lang(), &e);
                self.warn(text);
            }
        }
    }

    /// Whether a link's end is that of a link let go (and counts it off).
    pub(super) fn let_go(&mut self, reason: &net::CloseReason) -> bool {
        if *reason == net::CloseReason::Closed && self.links_let_go > 0 {
            self.links_let_go -= 1;
            true
        } else {
            false
        }
    }
}

/// The page of the server to approve a code at: its address as given to
/// `--server`, without the WebSocket's path, as `http://`.
pub fn web_address(server: &str) -> String {
    let rest = server
        .strip_prefix("http://")
        .or_else(|| server.strip_prefix("ws://"))
        .unwrap_or(server);
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix("/ws").unwrap_or(rest);
    format!("http://{rest}")
}

#[cfg(test)]
mod tests {
    use super::web_address;

    #[test]
    fn the_page_to_approve_at_is_the_servers_web_address() {
        for given in [
            "http://localhost:8080",
            "http://localhost:8080/",
            "ws://localhost:8080/ws",
            "localhost:8080",
        ] {
            assert_eq!(web_address(given), "http://localhost:8080", "{given}");
        }
        assert_eq!(
            web_address("http://example.org/game/ws"),
            "http://example.org/game"
        );
    }
}
