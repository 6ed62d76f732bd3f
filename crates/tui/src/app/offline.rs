//! Offline: the engine referees in this process, bots take the other
//! seats (thinking on worker threads), and games are saved to and loaded
//! from files.

use std::sync::mpsc::Sender;

use broadside_ai::{Bot, Level};
use broadside_engine::{Cell, Command, Event, Game, Phase};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::{App, BotMove, Config, Msg, Play, Screen, Source};
use crate::words::{self, Names};

pub struct Local {
    /// Tells this game from a later one (see [`BotMove`]).
    pub id: u64,
    pub game: Game,
    /// The bot of each seat; `None` for the person at the keyboard, and for a
    /// bot while it thinks on its worker thread.
    pub bots: Vec<Option<Bot>>,
    /// The seat whose bot is thinking, if one is.
    pub thinking: Option<usize>,
    /// Events announced while a bot was away thinking, told to it on return.
    pub missed: Vec<Event>,
    /// The levels, kept to write them into a save.
    pub levels: Vec<Option<Level>>,
    /// Draws the layouts that "random" proposes during placement.
    pub rng: Pcg64Mcg,
    /// Hot-seat: the log of each person who is not at the keyboard, told
    /// from their own seat and kept until the terminal is theirs again.
    pub logs: Vec<Vec<String>>,
}

impl Local {
    /// The seats of the people at this terminal (those without a bot).
    pub fn people(&self) -> Vec<usize> {
        (0..self.levels.len())
            .filter(|&seat| self.levels[seat].is_none())
            .collect()
    }
}

/// The default file name for saves.
pub const DEFAULT_SAVE: &str = "broadside-save.json";

/// The save file of the terminal: the engine's save plus who sits where.
#[derive(serde::Serialize, serde::Deserialize)]
struct SaveFile {
    /// Format marker and version.
    broadside_terminal: u32,
    /// The seat of the person.
    seat: usize,
    /// The bot level of each seat (`null` for the person).
    bots: Vec<Option<Level>>,
    /// [`Game::save`]'s string, kept verbatim.
    game: String,
}

impl App {
    /// An offline game already under way (for tests and tools): `me` is the
    /// person's seat and `levels` the bot of every seat (`None` for `me`).
    pub fn offline(config: Config, game: Game, me: usize, levels: Vec<Option<Level>>) -> App {
        let mut app = App::unconnected(config);
        app.start_local(game, me, levels);
        app
    }

    /// A client that neither connects nor loads at its start.
    pub(super) fn unconnected(config: Config) -> App {
        App::new(
            Config {
                server: None,
                load: None,
                ..config
            },
            None,
        )
    }

    pub(super) fn start_local(&mut self, game: Game, me: usize, levels: Vec<Option<Level>>) {
        let seeds: Vec<u64> = (0..levels.len()).map(|_| self.next_seed()).collect();
        let bots = levels
            .iter()
            .zip(&seeds)
            .map(|(level, &seed)| level.map(|l| Bot::for_level(l, seed)))
            .collect();
        let lang = self.lang();
        // Hot-seat: several people, each "you" on their own turn, are named
        // by seat for the others.
        let hot_seat = levels.iter().filter(|level| level.is_none()).count() > 1;
        let names = levels
            .iter()
            .enumerate()
            .map(|(seat, level)| match level {
                None if seat == me && !hot_seat => lang.t("you"),
                None => lang.fill("tui.player_n", &[("n", &(seat + 1))]),
                Some(_) => lang.fill("tui.bot_n", &[("n", &seat)]),
            })
            .collect();
        let rng = Pcg64Mcg::seed_from_u64(self.next_seed());
        let rules = game.rules().clone();
        let logs = vec![Vec::new(); levels.len()];
        let mut play = Play::new(
            Source::Local(Box::new(Local {
                id: self.next_seed(),
                game,
                bots,
                thinking: None,
                missed: Vec::new(),
                levels,
                rng,
                logs,
            })),
            Some(me),
            names,
            lang,
        );
        play.rules = Some(rules);
        play.refresh_local();
        self.play = Some(play);
        self.screen = Screen::Play;
    }

    pub(super) fn save(&mut self, path: &str) {
        let Some(play) = self.play.as_ref() else {
            return;
        };
        let Source::Local(local) = &play.source else {
            self.warn(self.lang().t("tui.online_nothing_to_save"));
            return;
        };
        let file = SaveFile {
            broadside_terminal: 1,
            seat: play.me.unwrap_or(0),
            bots: local.levels.clone(),
            game: local.game.save(),
        };
        let text = serde_json::to_string_pretty(&file).expect("a save file is plain data");
        match std::fs::write(path, text) {
            Ok(()) => {
                self.save_path = path.to_string();
                self.say(self.lang().fill("tui.saved", &[("path", &path)]));
            }
            Err(e) => self.warn(
                self.lang()
                    .fill("tui.cannot_save", &[("path", &path), ("error", &e)]),
            ),
        }
    }

    pub(super) fn load(&mut self, path: &str) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                self.warn(
                    self.lang()
                        .fill("tui.cannot_read", &[("path", &path), ("error", &e)]),
                );
                return;
            }
        };
        // A terminal save, or a bare engine save (from the browser or the
        // referee): then the person takes seat 0 and bots of medium level the rest.
        let (saved, me, levels) = match serde_json::from_str::<SaveFile>(&text) {
            Ok(file) => (file.game, file.seat, Some(file.bots)),
            Err(_) => (text, 0, None),
        };
        match Game::load(&saved) {
            Ok(game) => {
                let seats = game.seat_count();
                let levels = match levels {
                    Some(levels) if levels.len() == seats && me < seats && levels[me].is_none() => {
                        levels
                    }
                    _ => (0..seats)
                        .map(|s| (s != me).then_some(Level::Medium))
                        .collect(),
                };
                self.start_local(game, me.min(seats - 1), levels);
                self.save_path = path.to_string();
                if let Some(play) = self.play.as_mut() {
                    play.log
                        .push(self.config.lang.fill("tui.loaded_from", &[("path", &path)]));
                }
                self.say(self.lang().fill("tui.loaded", &[("path", &path)]));
            }
            // The engine's words: a damaged save is a matter of detail.
            Err(e) => self.warn(
                self.lang()
                    .fill("tui.cannot_load", &[("path", &path), ("error", &e)]),
            ),
        }
    }
}

impl Play {
    /// After an accepted offline command: bots learn what their seats may
    /// know, the log tells what this seat may know, and the view is rebuilt.
    pub(super) fn after_local(&mut self, events: &[Event]) {
        let Source::Local(local) = &mut self.source else {
            return;
        };
        for (seat, bot) in local.bots.iter_mut().enumerate() {
            if let Some(bot) = bot {
                bot.observe(&local.game.events_for(Some(seat), events));
            } else if local.thinking == Some(seat) {
                let seen = local.game.events_for(Some(seat), events);
                local.missed.extend(seen);
            }
        }
        // Hot-seat: the other people's logs, each as their seat may know it.
        if let Some(rules) = self.rules.as_ref() {
            for seat in local.people() {
                if Some(seat) == self.me {
                    continue;
                }
                let names = Names {
                    seats: &self.names,
                    me: Some(seat),
                    rules,
                    lang: self.lang,
                };
                let seen = local.game.events_for(Some(seat), events);
                let log = &mut local.logs[seat];
                log.extend(seen.iter().filter_map(|e| names.describe(e)));
                if log.len() > 500 {
                    log.drain(..log.len() - 500);
                }
            }
        }
        let mine = local.game.events_for(self.me, events);
        self.log_events(&mine);
        self.refresh_local();
    }

    pub(super) fn refresh_local(&mut self) {
        if let Source::Local(local) = &self.source {
            self.view = Some(local.game.view(self.me));
        }
        self.sync();
        self.hand_over_if_due();
    }

    /// Hot-seat: when the person at the keyboard has nothing to do and
    /// another person at this terminal has, the terminal is to be passed
    /// on (the next such person after this one, in seat order). Until the
    /// next person takes it, the screen hides every board.
    fn hand_over_if_due(&mut self) {
        let Source::Local(local) = &self.source else {
            return;
        };
        let people = local.people();
        if people.len() < 2 || self.handover.is_some() {
            return;
        }
        if local.game.phase() == Phase::Finished {
            return;
        }
        let due = local.game.to_move();
        if self.me.is_some_and(|me| due.contains(&me)) {
            return;
        }
        let seats = local.levels.len();
        let from = self.me.unwrap_or(0);
        self.handover = (1..=seats)
            .map(|k| (from + k) % seats)
            .find(|seat| people.contains(seat) && due.contains(seat));
    }

    /// Hot-seat: the next person has the terminal: their seat, their view,
    /// their log; nothing of the last person's aim or choices stays.
    pub(super) fn take_over(&mut self) {
        let Some(next) = self.handover.take() else {
            return;
        };
        let Source::Local(local) = &mut self.source else {
            return;
        };
        if let Some(before) = self.me {
            local.logs[before] = std::mem::take(&mut self.log);
        }
        self.log = std::mem::take(&mut local.logs[next]);
        self.log_scroll.set(0);
        self.me = Some(next);
        self.placing = None;
        self.shop = None;
        self.picks.clear();
        self.salvo_action = None;
        self.reserve = None;
        self.action = None;
        self.cursor = Cell::new(0, 0);
        self.own_shown = false;
        self.target = next;
        self.refresh_local();
    }

    /// Lets a due bot move. With a channel the bot thinks on a worker thread
    /// and its move comes back as [`Msg::Bot`]; without one (tests) it moves
    /// at once. Returns whether something happened.
    pub fn step_bots(&mut self, sender: Option<&Sender<Msg>>) -> bool {
        let Source::Local(local) = &mut self.source else {
            return false;
        };
        if local.thinking.is_some() {
            return false;
        }
        let due = local
            .game
            .to_move()
            .into_iter()
            .find(|&seat| local.bots.get(seat).is_some_and(Option::is_some));
        let Some(seat) = due else {
            return false;
        };
        let view = local.game.view(Some(seat));
        match sender {
            Some(sender) => {
                let Some(mut bot) = local.bots[seat].take() else {
                    return false;
                };
                let rules = local.game.rules().clone();
                let sender = sender.clone();
                let game = local.id;
                local.thinking = Some(seat);
                std::thread::spawn(move || {
                    let command = bot.next_command(&view, &rules);
                    // The app may have quit meanwhile; then the move is moot.
                    let _ = sender.send(Msg::Bot(BotMove {
                        game,
                        seat,
                        bot: Box::new(bot),
                        command,
                    }));
                });
                true
            }
            None => {
                let Some(bot) = local.bots[seat].as_mut() else {
                    return false;
                };
                match bot.next_command(&view, local.game.rules()) {
                    Some(command) => {
                        self.apply_bot(seat, command);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// A bot is back from its worker thread: it learns what it missed, then
    /// its move is applied.
    pub(super) fn bot_returns(&mut self, decision: BotMove) {
        let Source::Local(local) = &mut self.source else {
            return;
        };
        if local.id != decision.game || local.thinking != Some(decision.seat) {
            return;
        }
        let mut bot = *decision.bot;
        bot.observe(&std::mem::take(&mut local.missed));
        local.bots[decision.seat] = Some(bot);
        local.thinking = None;
        if let Some(command) = decision.command {
            self.apply_bot(decision.seat, command);
        }
    }

    pub(super) fn apply_bot(&mut self, seat: usize, command: Command) {
        let Source::Local(local) = &mut self.source else {
            return;
        };
        let events = match local.game.apply(command) {
            Ok(events) => events,
            Err(e) => {
                // A bot that cannot move would stall the game for good; it
                // gives up instead, and the log says why.
                let name = self.names.get(seat).cloned().unwrap_or_default();
                let error = words::rule_error(self.lang, &e);
                // (Fields, not `log_line`: the game is still borrowed.)
                if self.log_scroll.get() > 0 {
                    self.log_scroll.set(self.log_scroll.get() + 1);
                }
                self.log.push(
                    self.lang
                        .fill("tui.bot_illegal", &[("name", &name), ("error", &error)]),
                );
                match local.game.apply(Command::Resign { seat }) {
                    Ok(events) => events,
                    Err(_) => return,
                }
            }
        };
        self.after_local(&events);
    }
}
