//! Online: the link to `broadside serve`, the frames it sends and how the
//! client follows them, the session token, and the lobby of a room.

use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use broadside_engine::{Event, Placement, Rules, View};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use serde_json::{json, Value};

use super::{App, Config, Matching, MyGame, Play, Ranked, Screen, Source};
use crate::i18n::Lang;
use crate::net::{self, NetEvent};
use crate::words;

pub struct Remote {
    /// Frames to send; the network thread drains it.
    pub out: Sender<String>,
    pub connected: bool,
    /// The server address, to connect again after the link drops.
    pub server: String,
    /// When to try to connect again, while the link is down.
    pub retry_at: Option<std::time::Instant>,
    /// Failed connections in a row (the wait before the next grows with it).
    pub attempts: u32,
    /// Ticks since the last keep-alive ping.
    pub idle_ticks: u32,
    /// When the running timer of the game runs out, as the last `state` said.
    pub deadline: Option<std::time::Instant>,
    /// The room as the last `room` frame described it.
    pub room: Option<Value>,
    /// `leave` is sent and `left` awaited: frames of the room still on their
    /// way must not pull the person back into the game.
    pub leaving: bool,
}

impl App {
    pub(super) fn connect(&mut self, server: &str) {
        let Some(sender) = self.sender.clone() else {
            self.warn(self.lang().t("tui.no_event_loop"));
            return;
        };
        match net::connect(server, sender) {
            Ok(out) => self.link(server, out),
            Err(e) => {
                self.warn(net_error(self.lang(), &e));
                self.screen = Screen::Lobby;
            }
        }
    }

    /// Takes `out` as the link to `server`; the socket reports `Connected` later.
    pub(super) fn link(&mut self, server: &str, out: Sender<String>) {
        let source = Source::Remote(Remote {
            out,
            connected: false,
            server: server.to_string(),
            retry_at: None,
            attempts: 0,
            idle_ticks: 0,
            deadline: None,
            room: None,
            leaving: false,
        });
        self.play = Some(Play::new(source, None, Vec::new(), self.lang()));
        self.screen = Screen::Lobby;
        self.say(self.lang().fill("tui.connecting", &[("server", &server)]));
    }

    /// An online client whose link is a channel instead of a socket (for tests
    /// and tools): the frames it sends arrive on the receiver of `out`, and the
    /// server's side is played by handing [`Msg::Net`] to [`App::update`].
    pub fn online_over(config: Config, out: Sender<String>) -> App {
        let server = config.server.clone().unwrap_or_default();
        let mut app = App::unconnected(config);
        app.config.server = Some(server.clone());
        app.link(&server, out);
        app
    }

    pub(super) fn send_frame(&mut self, frame: Value) {
        if let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_mut()
        {
            // A request for another room: the server answers it after the
            // `leave` before it, so what follows is no frame of the room left.
            let kind = frame.get("type").and_then(Value::as_str);
            if matches!(kind, Some("create_room" | "join_room" | "quick_match")) {
                remote.leaving = false;
            }
            if remote.out.send(frame.to_string()).is_err() {
                self.warn(self.lang().t("tui.connection_closed"));
            }
        }
    }

    pub(super) fn net(&mut self, event: NetEvent) {
        match event {
            NetEvent::Connected => {
                if let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                {
                    remote.connected = true;
                }
                let nickname = self
                    .config
                    .nickname
                    .clone()
                    .unwrap_or_else(|| self.lang().t("default_nickname"));
                self.send_frame(json!({"type": "hello", "token": self.read_token(),
                    "nickname": nickname, "lang": self.lang().id()}));
            }
            NetEvent::Closed(reason) => {
                let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                else {
                    return self.warn(self.lang().fill("tui.disconnected", &[("reason", &reason)]));
                };
                // Try again, waiting 1, 2, 4, 8 and then 10 seconds; the game
                // waits on the server and the token gets the seat back.
                remote.connected = false;
                remote.attempts += 1;
                let wait = (1u64 << (remote.attempts - 1).min(4)).min(10);
                remote.retry_at =
                    Some(std::time::Instant::now() + std::time::Duration::from_secs(wait));
                let text = self
                    .lang()
                    .fill("tui.reconnecting", &[("n", &wait), ("reason", &reason)]);
                self.warn(text);
            }
            NetEvent::Frame(frame) => self.frame(frame),
        }
    }

    pub(super) fn frame(&mut self, frame: Value) {
        let kind = frame.get("type").and_then(Value::as_str).unwrap_or("");
        if let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_mut()
        {
            if remote.leaving {
                let request = frame.get("request").and_then(Value::as_str);
                match kind {
                    // Frames of the room left, still on their way.
                    "room" | "state" | "chat" | "layout_check" | "layout" => return,
                    "left" | "welcome" => remote.leaving = false,
                    // Not in a room any more (the link dropped meanwhile).
                    "error" if request == Some("leave") => {
                        remote.leaving = false;
                        return;
                    }
                    _ => {}
                }
            }
        }
        match kind {
            "welcome" => {
                if let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                {
                    remote.attempts = 0;
                }
                self.form.online = true;
                self.after_welcome();
                if !self.store_token(frame.get("token").and_then(Value::as_str)) {
                    self.warn(self.lang().t("tui.token_not_kept"));
                }
            }
            "room" => {
                let Some(room) = frame.get("room").cloned() else {
                    return;
                };
                let started = room
                    .get("started")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                // After a dropped link, this is the room to join again.
                if let Some(code) = room.get("code").and_then(Value::as_str) {
                    self.config.room = Some(code.to_string());
                }
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                let offered_before = match &play.source {
                    Source::Remote(remote) => remote.room.as_ref().and_then(rematch_from),
                    Source::Local(_) => None,
                };
                play.take_room(&room);
                self.screen = if started { Screen::Play } else { Screen::Lobby };
                // Another player's rematch offer waits for this one's answer.
                let offer = match (offered_before, rematch_from(&room)) {
                    (None, Some(from)) if Some(from) != play.me => play.names.get(from).cloned(),
                    _ => None,
                };
                if let Some(name) = offer {
                    let text = self.lang().fill("tui.rematch_offered", &[("name", &name)]);
                    self.say(text);
                }
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                // Paired (or the bot accepted): the game goes on like any other.
                if self.matching.take().is_some() {
                    let opponent = play
                        .names
                        .iter()
                        .enumerate()
                        .find(|&(seat, _)| Some(seat) != play.me)
                        .map(|(_, name)| name.clone())
                        .unwrap_or_default();
                    let rated = room
                        .pointer("/setup/rated")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    let key = if rated {
                        "tui.paired_rated"
                    } else {
                        "tui.paired_unrated"
                    };
                    let text = self.lang().fill(key, &[("name", &opponent)]);
                    self.say(text);
                }
            }
            "state" => {
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                match serde_json::from_value::<View>(
                    frame.get("view").cloned().unwrap_or(Value::Null),
                ) {
                    Ok(view) => {
                        let events: Vec<Event> = serde_json::from_value(
                            frame.get("events").cloned().unwrap_or(json!([])),
                        )
                        .unwrap_or_default();
                        play.log_events(&events);
                        if let Source::Remote(remote) = &mut play.source {
                            remote.deadline =
                                frame.get("deadline_ms").and_then(Value::as_u64).map(|ms| {
                                    std::time::Instant::now() + std::time::Duration::from_millis(ms)
                                });
                        }
                        play.view = Some(view);
                        play.sync();
                        self.screen = Screen::Play;
                    }
                    Err(e) => {
                        let text = self
                            .config
                            .lang
                            .fill("tui.unreadable_view", &[("error", &e)]);
                        self.warn(text)
                    }
                }
            }
            "layout_check" => {
                let ok = frame.get("ok").and_then(Value::as_bool).unwrap_or(false);
                let code = frame.pointer("/error/code").and_then(Value::as_str);
                let message = frame.pointer("/error/message").and_then(Value::as_str);
                let message = match (code, message) {
                    (Some(code), message) => {
                        words::server_error(self.lang(), code, message.unwrap_or(code))
                    }
                    (None, _) => self.lang().t("tui.illegal_position"),
                };
                if let Some(placing) = self.play.as_mut().and_then(|p| p.placing.as_mut()) {
                    placing.check = Some(if ok { Ok(()) } else { Err(message) });
                }
            }
            "layout" => {
                let ships: Vec<Placement> =
                    serde_json::from_value(frame.get("ships").cloned().unwrap_or(json!([])))
                        .unwrap_or_default();
                if let Some(play) = self.play.as_mut() {
                    if let Some(placing) = play.placing.as_mut() {
                        if ships.len() == placing.fleet.len() {
                            placing.placed = ships;
                            placing.check = Some(Ok(()));
                        }
                    }
                }
            }
            "games" => {
                self.my_games = frame
                    .get("games")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|game| MyGame::from_frame(game, self.config.lang))
                    .collect();
                self.my_game = 0;
                if self.screen == Screen::NewGame && !self.my_games.is_empty() {
                    self.screen = Screen::MyGames;
                    let count = self.my_games.len() as u64;
                    self.say(self.lang().plural("tui.unfinished_games", count, &[]));
                }
            }
            "matching" => {
                if let Some(matching) = self.matching.as_mut() {
                    let waited = frame.get("waited_ms").and_then(Value::as_u64).unwrap_or(0);
                    let now = Instant::now();
                    matching.since = now
                        .checked_sub(Duration::from_millis(waited))
                        .unwrap_or(now);
                    matching.waiting = frame.get("waiting").and_then(Value::as_u64);
                    matching.bot_offer_ms = frame.get("bot_offer_ms").and_then(Value::as_u64);
                }
            }
            "bot_offer" => {
                let level = frame.get("level").and_then(Value::as_str).unwrap_or("");
                if let Some(matching) = self.matching.as_mut() {
                    matching.bot_offer = Some(level.to_string());
                    let level = words::level_name(self.config.lang, level).to_lowercase();
                    self.say(self.lang().fill("tui.bot_offered", &[("level", &level)]));
                }
            }
            "match_cancelled" => self.wait_cancelled(),
            "leaderboard" => {
                let preset = frame.get("preset").and_then(Value::as_str);
                if let Some(board) = self.leaderboard.as_mut() {
                    if preset == Some(board.preset.id()) {
                        board.players = Some(
                            frame
                                .get("players")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                                .filter_map(Ranked::from_frame)
                                .collect(),
                        );
                    }
                }
            }
            "error" if frame.get("code").and_then(Value::as_str) == Some("not_matching") => {
                // Not (or no longer) waiting: paired at the same moment (then the
                // room follows), or the queue was left.
                self.wait_cancelled();
            }
            "rematch_declined" => {
                let name = frame
                    .get("nickname")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string();
                let key = match frame.get("reason").and_then(Value::as_str) {
                    Some("left") => "rematch_left",
                    Some("withdrawn") => "rematch_withdrawn",
                    _ => "rematch_declined",
                };
                let text = self.lang().fill(key, &[("name", &name)]);
                self.say(text);
            }
            "chat" => {
                let from = frame.get("from").and_then(Value::as_str).unwrap_or("?");
                let text = frame.get("text").and_then(Value::as_str).unwrap_or("");
                if let Some(play) = self.play.as_mut() {
                    play.log.push(format!("{from}: {text}"));
                }
            }
            "error" if frame.get("code").and_then(Value::as_str) == Some("room_full") => {
                // Every seat is taken: watch instead.
                if let Some(code) = self.config.room.clone() {
                    self.send_frame(json!({"type": "join_room", "code": code, "as": "spectator"}));
                    self.say(self.lang().t("room_full_watching"));
                }
            }
            "error" => {
                let code = frame.get("code").and_then(Value::as_str).unwrap_or("error");
                let message = frame.get("message").and_then(Value::as_str).unwrap_or("");
                if frame.get("request").and_then(Value::as_str) == Some("quick_match") {
                    self.end_matching();
                }
                self.warn(words::server_error(self.lang(), code, message));
            }
            _ => {}
        }
    }

    /// After `welcome`: wait again for the quick match or ask again for the
    /// leaderboard that the dropped link interrupted, join the room of `--room`,
    /// or offer the form for a new one.
    pub(super) fn after_welcome(&mut self) {
        if let Some(matching) = self.matching.as_mut() {
            if matching.cancelling {
                self.end_matching();
                self.say(self.lang().t("tui.cancelled"));
            } else {
                let preset = matching.preset;
                *matching = Matching::new(preset);
                self.send_frame(json!({"type": "quick_match", "preset": preset.id()}));
                self.say(self.lang().fill(
                    "tui.looking",
                    &[("preset", &words::preset_name(self.lang(), preset.id()))],
                ));
            }
            return;
        }
        if self.screen == Screen::Leaderboard {
            if let Some(preset) = self.leaderboard.as_ref().map(|b| b.preset) {
                self.show_leaderboard(preset);
                return;
            }
        }
        match self.config.room.clone() {
            Some(code) => {
                self.send_frame(json!({"type": "join_room", "code": code, "as": "player"}));
                self.say(self.lang().fill("tui.joining", &[("code", &code)]));
            }
            None => {
                self.screen = Screen::NewGame;
                self.say(self.lang().t("tui.connected"));
                // Unfinished games, if any, are offered first.
                self.send_frame(json!({"type": "my_games"}));
            }
        }
    }

    pub(super) fn read_token(&self) -> Option<String> {
        let path = self.config.token_file.as_ref()?;
        let token = std::fs::read_to_string(path).ok()?;
        let token = token.trim();
        (!token.is_empty()).then(|| token.to_string())
    }

    /// Keeps the token for the next connection; false if it could not be written.
    pub(super) fn store_token(&self, token: Option<&str>) -> bool {
        let (Some(path), Some(token)) = (self.config.token_file.as_ref(), token) else {
            return true;
        };
        if self.read_token().as_deref() == Some(token) {
            return true;
        }
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() && std::fs::create_dir_all(dir).is_err() {
                return false;
            }
        }
        std::fs::write(path, token).is_ok()
    }

    pub(super) fn lobby_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Enter | KeyCode::Char('s') => {
                let host = self.play.as_ref().is_some_and(Play::is_host);
                if host {
                    self.send_frame(json!({"type": "start"}));
                } else {
                    self.say(self.lang().t("waiting_for_host"));
                }
            }
            KeyCode::Char('q') | KeyCode::Esc => self.ask_to_leave(),
            _ => {}
        }
    }
}

impl Play {
    /// Whether this terminal is the host of its online room.
    pub fn is_host(&self) -> bool {
        match &self.source {
            Source::Remote(Remote {
                room: Some(room), ..
            }) => {
                let host = room.get("host").and_then(Value::as_u64);
                let me = room.pointer("/you/seat").and_then(Value::as_u64);
                host.is_some() && host == me
            }
            _ => false,
        }
    }

    /// The names, rules and seat of an online room frame.
    pub(super) fn take_room(&mut self, room: &Value) {
        if let Some(seats) = room.get("seats").and_then(Value::as_array) {
            let lang = self.lang;
            self.names = seats
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let kind = s.get("kind").and_then(Value::as_str).unwrap_or("");
                    match (kind, s.get("nickname").and_then(Value::as_str)) {
                        ("bot", _) => lang.fill("tui.bot_n", &[("n", &i)]),
                        (_, Some(name)) if !name.is_empty() => name.to_string(),
                        ("open", _) => lang.fill("tui.open_seat_n", &[("n", &(i + 1))]),
                        _ => lang.fill("tui.player_n", &[("n", &(i + 1))]),
                    }
                })
                .collect();
            self.ratings = seats
                .iter()
                .map(|s| {
                    let rating = s.get("rating").and_then(Value::as_f64)?;
                    let provisional = s.get("provisional").and_then(Value::as_bool);
                    Some(words::rating(rating, provisional.unwrap_or(false)))
                })
                .collect();
        }
        self.me = room
            .pointer("/you/seat")
            .and_then(Value::as_u64)
            .map(|s| s as usize);
        if let Some(rules) = room
            .get("rules")
            .and_then(|r| serde_json::from_value::<Rules>(r.clone()).ok())
        {
            self.rules = Some(rules);
        }
        if let Source::Remote(remote) = &mut self.source {
            remote.room = Some(room.clone());
        }
    }
}

/// Why a server address cannot be used, in words.
pub(super) fn net_error(lang: Lang, error: &net::NetError) -> String {
    match error {
        net::NetError::BadAddress(address) => lang.fill("tui.bad_address", &[("address", address)]),
    }
}

/// The seat that offered the rematch on offer in a room frame's room, if any.
fn rematch_from(room: &Value) -> Option<usize> {
    room.pointer("/rematch/from")
        .and_then(Value::as_u64)
        .map(|seat| seat as usize)
}
