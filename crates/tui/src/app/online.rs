//! Online: the link to `broadside serve`, the frames it sends and how the
//! client follows them, the session token, and the lobby of a room.

use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use broadside_protocol::{
    ClientFrame, Hello, JoinRoom, OutOfStep, RematchReason, Role, RoomInfo, SeatKind, ServerFrame,
    ViewCopy,
};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use serde_json::Value;

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
    pub room: Option<Box<RoomInfo>>,
    /// `leave` is sent and `left` awaited: frames of the room still on their
    /// way must not pull the person back into the game.
    pub leaving: bool,
    /// The view as the last `state` or `change` left it (a `change` is read
    /// as the `state` it makes of this copy).
    pub copy: Box<ViewCopy>,
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
        if self.token_slot.is_none() {
            self.token_slot = self
                .config
                .token_file
                .as_deref()
                .and_then(crate::identity::TokenSlot::claim);
        }
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
            copy: Box::default(),
        });
        self.play = Some(Play::new(source, None, Vec::new(), self.lang()));
        self.screen = Screen::Lobby;
        self.say_in_progress(self.lang().fill("tui.connecting", &[("server", &server)]));
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

    pub(super) fn send_frame(&mut self, frame: ClientFrame) {
        if let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_mut()
        {
            // A request for another room: the server answers it after the
            // `leave` before it, so what follows is no frame of the room left.
            if matches!(
                frame,
                ClientFrame::CreateRoom(_)
                    | ClientFrame::JoinRoom(_)
                    | ClientFrame::QuickMatch { .. }
            ) {
                remote.leaving = false;
            }
            if remote.out.send(frame.to_text()).is_err() {
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
                self.send_frame(ClientFrame::Hello(Hello {
                    token: self.read_token(),
                    nickname: Some(nickname),
                    lang: Some(self.lang().id().to_string()),
                }));
            }
            NetEvent::Closed(reason) => {
                if self.let_go(&reason) {
                    return;
                }
                if reason == net::CloseReason::SignedOut {
                    self.session_ended();
                }
                let banned = reason == net::CloseReason::Banned;
                let signed_out = reason == net::CloseReason::SignedOut;
                let reason = reason.words(self.lang());
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
                if banned {
                    // Banned: no reconnection (it would be refused again).
                    remote.retry_at = None;
                    return self.warn(self.lang().t("tui.banned"));
                }
                if signed_out {
                    // At once, as a new guest; the notice says why.
                    remote.attempts = 0;
                    remote.retry_at = Some(std::time::Instant::now());
                    return;
                }
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

    /// A frame as the network thread hands it: read as a [`ServerFrame`].
    /// Frames of types this client does not know are ignored; a `state` it
    /// cannot read is reported.
    pub(super) fn frame(&mut self, frame: Value) {
        let kind = frame
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match serde_json::from_value::<ServerFrame>(frame) {
            Ok(frame) => self.server_frame(frame),
            Err(e) if kind == "state" => {
                let text = self
                    .config
                    .lang
                    .fill("tui.unreadable_view", &[("error", &e)]);
                self.warn(text)
            }
            Err(_) => {}
        }
    }

    /// Keeps the copy of the view: a `state` replaces it; a `change` is
    /// applied to it and read on as the whole `state` it makes; a `change`
    /// that does not follow the last frame asks for the whole view again
    /// (`resync`) and is dropped.
    fn follow_view(&mut self, frame: ServerFrame) -> Option<ServerFrame> {
        let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_mut()
        else {
            return Some(frame);
        };
        if matches!(frame, ServerFrame::Left { .. }) {
            remote.copy.clear();
        }
        match remote.copy.follow(frame) {
            Ok(frame) => Some(frame),
            Err(OutOfStep) => {
                if remote.copy.ask_resync() {
                    let _ = remote.out.send(ClientFrame::Resync.to_text());
                }
                None
            }
        }
    }

    fn server_frame(&mut self, frame: ServerFrame) {
        let Some(frame) = self.follow_view(frame) else {
            return;
        };
        if let Some(Play {
            source: Source::Remote(remote),
            ..
        }) = self.play.as_mut()
        {
            if remote.leaving {
                match &frame {
                    // Frames of the room left, still on their way.
                    ServerFrame::Room { .. }
                    | ServerFrame::State(_)
                    | ServerFrame::Chat { .. }
                    | ServerFrame::LayoutCheck { .. }
                    | ServerFrame::Layout { .. } => return,
                    ServerFrame::Left { .. } | ServerFrame::Welcome { .. } => {
                        remote.leaving = false
                    }
                    // Not in a room any more (the link dropped meanwhile).
                    ServerFrame::Error(error) if error.request.as_deref() == Some("leave") => {
                        remote.leaving = false;
                        return;
                    }
                    _ => {}
                }
            }
        }
        match frame {
            ServerFrame::Welcome {
                token, username, ..
            } => {
                if let Some(Play {
                    source: Source::Remote(remote),
                    ..
                }) = self.play.as_mut()
                {
                    remote.attempts = 0;
                }
                self.form.online = true;
                if !self.welcomed_as(username) {
                    self.after_welcome();
                    self.tell_signed_in();
                }
                if !self.store_token(Some(&token)) {
                    self.warn(self.lang().t("tui.token_not_kept"));
                }
            }
            ServerFrame::LinkCode {
                code,
                expires_in_ms,
            } => self.login_code(code, expires_in_ms),
            ServerFrame::SignedIn { token, username } => self.signed_in(&token, username),
            ServerFrame::Account(info) => self.account_info(*info),
            ServerFrame::Error(error)
                if error.request.as_deref() == Some("link_request")
                    && error.code == broadside_protocol::codes::LINK_CODE_INVALID
                    && self.login.is_some() =>
            {
                self.login_expired();
            }
            ServerFrame::Room { room } => {
                let started = room.started;
                // After a dropped link, this is the room to join again.
                self.config.room = Some(room.code.clone());
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                let offered_before = match &play.source {
                    Source::Remote(remote) => remote.room.as_deref().and_then(rematch_from),
                    Source::Local(_) => None,
                };
                let offered = rematch_from(&room);
                let rated = room.setup.rated;
                play.take_room(room);
                self.screen = if started { Screen::Play } else { Screen::Lobby };
                // Another player's rematch offer waits for this one's answer.
                let offer = match (offered_before, offered) {
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
                    let key = if rated {
                        "tui.paired_rated"
                    } else {
                        "tui.paired_unrated"
                    };
                    let text = self.lang().fill(key, &[("name", &opponent)]);
                    self.say(text);
                }
            }
            ServerFrame::State(state) => {
                let Some(play) = self.play.as_mut() else {
                    return;
                };
                let state = *state;
                play.log_events(&state.events);
                if let Source::Remote(remote) = &mut play.source {
                    remote.deadline = state
                        .deadline_ms
                        .map(|ms| std::time::Instant::now() + std::time::Duration::from_millis(ms));
                }
                play.view = Some(state.view);
                play.sync();
                self.screen = Screen::Play;
            }
            ServerFrame::LayoutCheck { ok, error, .. } => {
                let message = match error {
                    Some(error) => words::server_error(self.lang(), &error.code, &error.message),
                    None => self.lang().t("tui.illegal_position"),
                };
                if let Some(placing) = self.play.as_mut().and_then(|p| p.placing.as_mut()) {
                    placing.check = Some(if ok { Ok(()) } else { Err(message) });
                }
            }
            ServerFrame::Layout { ships, .. } => {
                if let Some(play) = self.play.as_mut() {
                    if let Some(placing) = play.placing.as_mut() {
                        if ships.len() == placing.fleet.len() {
                            placing.placed = ships;
                            placing.check = Some(Ok(()));
                        }
                    }
                }
            }
            ServerFrame::Games { games } => {
                self.my_games = games
                    .iter()
                    .map(|game| MyGame::from_frame(game, self.config.lang))
                    .collect();
                self.my_game = 0;
                if self.screen == Screen::NewGame && !self.my_games.is_empty() {
                    self.screen = Screen::MyGames;
                    let count = self.my_games.len() as u64;
                    self.say(self.lang().plural("tui.unfinished_games", count, &[]));
                }
            }
            ServerFrame::Matching {
                waiting,
                waited_ms,
                bot_offer_ms,
                ..
            } => {
                if let Some(matching) = self.matching.as_mut() {
                    let now = Instant::now();
                    matching.since = now
                        .checked_sub(Duration::from_millis(waited_ms))
                        .unwrap_or(now);
                    matching.waiting = Some(u64::from(waiting));
                    matching.bot_offer_ms = Some(bot_offer_ms);
                }
            }
            ServerFrame::BotOffer { level, .. } => {
                if let Some(matching) = self.matching.as_mut() {
                    matching.bot_offer = Some(level.id().to_string());
                    let level = words::level_name(self.config.lang, level.id()).to_lowercase();
                    self.say(self.lang().fill("tui.bot_offered", &[("level", &level)]));
                }
            }
            ServerFrame::MatchCancelled => self.wait_cancelled(),
            ServerFrame::Leaderboard { preset, players } => {
                if let Some(board) = self.leaderboard.as_mut() {
                    if preset == board.preset {
                        board.players = Some(players.iter().map(Ranked::from_frame).collect());
                    }
                }
            }
            ServerFrame::Error(error) if error.code == "not_matching" => {
                // Not (or no longer) waiting: paired at the same moment (then the
                // room follows), or the queue was left.
                self.wait_cancelled();
            }
            ServerFrame::RematchDeclined {
                nickname, reason, ..
            } => {
                let name = nickname.unwrap_or_else(|| "?".to_string());
                let key = match reason {
                    RematchReason::Left => "rematch_left",
                    RematchReason::Withdrawn => "rematch_withdrawn",
                    RematchReason::Declined => "rematch_declined",
                };
                let text = self.lang().fill(key, &[("name", &name)]);
                self.say(text);
            }
            ServerFrame::Chat { from, text, .. } => {
                if let Some(play) = self.play.as_mut() {
                    play.log_line(format!("{from}: {text}"));
                }
            }
            ServerFrame::Error(error) if error.code == "room_full" => {
                // Every seat is taken: watch instead.
                if let Some(code) = self.config.room.clone() {
                    self.send_frame(ClientFrame::JoinRoom(JoinRoom {
                        code,
                        role: Role::Spectator,
                    }));
                    self.say(self.lang().t("room_full_watching"));
                }
            }
            ServerFrame::Error(error) => {
                if error.request.as_deref() == Some("quick_match") {
                    self.end_matching();
                }
                let refusal = words::server_error(self.lang(), &error.code, &error.message);
                // A room that cannot be joined or made (a wrong `--room` code):
                // back to the online start, with the refusal and the way on.
                let for_a_room = matches!(
                    error.request.as_deref(),
                    Some("join_room") | Some("create_room")
                );
                if for_a_room && self.screen == Screen::Lobby && !self.in_room() {
                    self.config.room = None;
                    self.screen = Screen::NewGame;
                    let text = self
                        .lang()
                        .fill("tui.no_room_way_out", &[("refusal", &refusal)]);
                    self.warn(text);
                    self.send_frame(ClientFrame::MyGames);
                    return;
                }
                self.warn(refusal);
            }
            ServerFrame::Pong
            | ServerFrame::Left { .. }
            | ServerFrame::ActionArea { .. }
            | ServerFrame::OpenRooms { .. }
            | ServerFrame::History { .. } => {}
            // Frames the terminal has no use for (accounts and passkeys are
            // the browser's); a wildcard, so that the protocol may grow
            // frames without breaking the terminal's build.
            #[allow(unreachable_patterns)]
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
                self.send_frame(ClientFrame::QuickMatch { preset });
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
                self.say_in_progress(self.lang().fill("tui.joining", &[("code", &code)]));
                self.send_frame(ClientFrame::JoinRoom(JoinRoom {
                    code,
                    role: Role::Player,
                }));
            }
            None => {
                self.screen = Screen::NewGame;
                self.say(self.lang().t("tui.connected"));
                // Unfinished games, if any, are offered first.
                self.send_frame(ClientFrame::MyGames);
            }
        }
    }

    /// The token of this terminal's own token file (see `identity.rs`).
    pub(super) fn read_token(&self) -> Option<String> {
        let path = &self.token_slot.as_ref()?.path;
        let token = std::fs::read_to_string(path).ok()?;
        let token = token.trim();
        (!token.is_empty()).then(|| token.to_string())
    }

    /// Forgets this terminal's token (its session ended elsewhere): the next
    /// `hello` makes a new guest.
    pub(super) fn forget_token(&self) {
        if let Some(slot) = self.token_slot.as_ref() {
            let _ = std::fs::remove_file(&slot.path);
        }
    }

    /// Keeps the token for the next connection; false if it could not be written.
    pub(super) fn store_token(&self, token: Option<&str>) -> bool {
        let (Some(slot), Some(token)) = (self.token_slot.as_ref(), token) else {
            return true;
        };
        let path = &slot.path;
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
                    self.send_frame(ClientFrame::Start);
                } else {
                    self.say(self.lang().t("waiting_for_host"));
                }
            }
            // Ready (a rated game starts only when every person is).
            KeyCode::Char('r') => {
                let Some(play) = self.play.as_ref() else {
                    return;
                };
                if play.is_host() {
                    self.say(self.lang().t("tui.you_host"));
                } else if let Some(ready) = play.my_lobby_ready() {
                    self.send_frame(ClientFrame::Ready { ready: !ready });
                    let said = if ready {
                        "tui.ready_off"
                    } else {
                        "tui.ready_on"
                    };
                    self.say(self.lang().t(said));
                }
            }
            // Not in a room yet (the server is unreachable, or has not
            // answered): there is nothing to leave, so q quits at once.
            KeyCode::Char('q') | KeyCode::Esc if !self.in_room() => self.quit = true,
            KeyCode::Char('q') | KeyCode::Esc => self.ask_to_leave(),
            _ => {}
        }
    }

    /// Whether the server has put this terminal in a room.
    pub(super) fn in_room(&self) -> bool {
        matches!(
            self.play.as_ref().map(|p| &p.source),
            Some(Source::Remote(Remote { room: Some(_), .. }))
        )
    }
}

impl Play {
    /// Whether this terminal's person has said ready in the lobby, if it
    /// holds a seat of its online room.
    pub fn my_lobby_ready(&self) -> Option<bool> {
        match &self.source {
            Source::Remote(Remote {
                room: Some(room), ..
            }) => {
                let seat = room.you.and_then(|you| you.seat)?;
                room.seats.get(seat).map(|s| s.ready)
            }
            _ => None,
        }
    }

    /// Whether this terminal is the host of its online room.
    pub fn is_host(&self) -> bool {
        match &self.source {
            Source::Remote(Remote {
                room: Some(room), ..
            }) => room.you.and_then(|you| you.seat) == Some(room.host),
            _ => false,
        }
    }

    /// The names, rules and seat of an online room frame.
    pub(super) fn take_room(&mut self, room: Box<RoomInfo>) {
        let lang = self.lang;
        self.names = room
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| match (s.kind, s.nickname.as_deref()) {
                (SeatKind::Bot, _) => lang.fill("tui.bot_n", &[("n", &i)]),
                (_, Some(name)) if !name.is_empty() => name.to_string(),
                (SeatKind::Open, _) => lang.fill("tui.open_seat_n", &[("n", &(i + 1))]),
                _ => lang.fill("tui.player_n", &[("n", &(i + 1))]),
            })
            .collect();
        self.ratings = room
            .seats
            .iter()
            .map(|s| {
                let rating = s.rating.flatten()?;
                let provisional = s.provisional.flatten().unwrap_or(false);
                Some(words::rating(rating, provisional))
            })
            .collect();
        self.me = room.you.and_then(|you| you.seat);
        self.rules = Some(room.rules.clone());
        if let Source::Remote(remote) = &mut self.source {
            remote.room = Some(room);
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
fn rematch_from(room: &RoomInfo) -> Option<usize> {
    room.rematch.as_ref().map(|offer| offer.from)
}
