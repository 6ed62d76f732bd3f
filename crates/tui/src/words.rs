//! Events told in words for the log ("You fire at C7: water."), in the
//! player's language (see `i18n.rs`).

use broadside_engine::{label, Cell, Event, Mode, Phase, Rules, ShotResult};

use crate::i18n::Lang;

/// What the log needs to name things: who is who, the game's rules, and the
/// language to say it in.
pub struct Names<'a> {
    /// One display name per seat.
    pub seats: &'a [String],
    /// The seat of this terminal, if it plays.
    pub me: Option<usize>,
    pub rules: &'a Rules,
    pub lang: Lang,
}

impl Names<'_> {
    /// "You" for this terminal's seat, else the seat's name.
    pub fn who(&self, seat: usize) -> String {
        if Some(seat) == self.me {
            self.lang.t("you")
        } else {
            self.seats
                .get(seat)
                .cloned()
                .unwrap_or_else(|| self.lang.fill("seat_n", &[("n", &(seat + 1))]))
        }
    }

    fn mine(&self, seat: usize) -> bool {
        Some(seat) == self.me
    }

    /// A sentence about `seat`: the key of "you" for this terminal's seat
    /// (verbs agree with the person), else the key with `{name}`.
    fn about(&self, seat: usize, you: &str, other: &str, args: crate::i18n::Args) -> String {
        let mut all: Vec<(&str, &dyn std::fmt::Display)> = args.to_vec();
        let name = self.who(seat);
        all.push(("name", &name));
        self.lang
            .fill(if self.mine(seat) { you } else { other }, &all)
    }

    /// A count about `seat`, like [`Names::about`].
    fn count(
        &self,
        seat: usize,
        you: &str,
        other: &str,
        n: u64,
        args: crate::i18n::Args,
    ) -> String {
        let mut all: Vec<(&str, &dyn std::fmt::Display)> = args.to_vec();
        let name = self.who(seat);
        all.push(("name", &name));
        self.lang
            .plural(if self.mine(seat) { you } else { other }, n, &all)
    }

    fn at(&self, cell: Cell) -> String {
        label(self.rules.letter_axis, cell)
    }

    /// Where shots fell: "C7" in the shared sea, "Bot 1's C7" elsewhere.
    fn place(&self, board: usize, cells: &str) -> String {
        if self.rules.mode == Mode::SharedSea {
            cells.to_string()
        } else if self.mine(board) {
            self.lang.fill("tui.log.place_yours", &[("cells", &cells)])
        } else {
            let name = self.who(board);
            self.lang.fill(
                "tui.log.place_theirs",
                &[("name", &name), ("cells", &cells)],
            )
        }
    }

    /// The name of a ship type id inside a sentence ("cruiser").
    pub fn ship(&self, id: &str) -> String {
        ship_name(self.lang, self.rules, id).to_lowercase()
    }

    fn ships(&self, ids: &[String]) -> String {
        let names: Vec<String> = ids.iter().map(|id| self.ship(id)).collect();
        names.join(", ")
    }

    fn everyone(&self, seats: &[usize]) -> String {
        let names: Vec<String> = seats.iter().map(|&s| self.who(s)).collect();
        self.lang.list(&names)
    }

    /// One line for an event, or `None` for bookkeeping events that say nothing new.
    pub fn describe(&self, event: &Event) -> Option<String> {
        let lang = self.lang;
        Some(match event {
            Event::Bought { seat, ships } => self.count(
                *seat,
                "tui.log.bought_you",
                "tui.log.bought",
                u64::from(*ships),
                &[],
            ),
            Event::Ready { seat } => self.about(*seat, "tui.log.ready_you", "log_ready", &[]),
            Event::PhaseChanged { phase } => match phase {
                Phase::Shop => lang.t("tui.log.shop_opens"),
                Phase::Placement => lang.t("tui.log.place_fleet"),
                Phase::Battle => lang.t("log_battle_begins"),
                Phase::Finished => return None,
            },
            Event::TurnStarted { seat } => {
                self.about(*seat, "announce_your_turn", "tui.log.their_turn", &[])
            }
            Event::RoundStarted { round, .. } => {
                lang.fill("tui.log.salvo_round", &[("round", round)])
            }
            Event::SalvoSubmitted { seat } => {
                self.about(*seat, "tui.log.salvo_you", "tui.log.salvo", &[])
            }
            Event::Shot {
                shooter,
                board,
                at,
                result,
                ship,
            } => {
                let outcome = match (result, ship) {
                    (ShotResult::Miss, _) => lang.t("tui.log.miss"),
                    (ShotResult::Hit, Some(ship)) => {
                        lang.fill("tui.log.hit_ship", &[("ship", &self.ship(ship))])
                    }
                    (ShotResult::Hit, None) => lang.t("tui.log.hit"),
                    (ShotResult::Sunk, _) => lang.t("tui.log.sunk"),
                };
                let place = self.place(*board, &self.at(*at));
                self.about(
                    *shooter,
                    "tui.log.shot_you",
                    "tui.log.shot",
                    &[("place", &place), ("outcome", &outcome)],
                )
            }
            Event::Volley {
                shooter,
                board,
                cells,
                hits,
                types_hit,
                sunk,
            } => {
                let cells: Vec<String> = cells.iter().map(|&c| self.at(c)).collect();
                let place = self.place(*board, &cells.join(", "));
                let mut line = self.count(
                    *shooter,
                    "tui.log.volley_you",
                    "tui.log.volley",
                    u64::from(*hits),
                    &[("place", &place)],
                );
                if !types_hit.is_empty() {
                    line.push_str(&format!(" ({})", self.ships(types_hit)));
                }
                if !sunk.is_empty() {
                    line.push_str(&lang.fill("tui.log.destroyed", &[("ships", &self.ships(sunk))]));
                }
                line.push('.');
                line
            }
            Event::Revealed { cells, .. } => {
                lang.plural("tui.log.revealed", cells.len() as u64, &[])
            }
            Event::Sunk { owner, ship, .. } => self.about(
                *owner,
                "log_your_ship_sunk",
                "log_ship_sunk",
                &[("ship", &self.ship(ship))],
            ),
            Event::ActionUsed { seat, kind, .. } => self.about(
                *seat,
                "tui.log.action_you",
                "tui.log.action",
                &[("action", &action_name(lang, kind.id()).to_lowercase())],
            ),
            Event::Scan { cells, .. } => {
                let found = cells.iter().filter(|c| c.ship).count() as u64;
                lang.plural("tui.log.scan", found, &[("cells", &cells.len())])
            }
            Event::Reinforced { seat, count, .. } => self.count(
                *seat,
                "tui.log.reinforced_you",
                "tui.log.reinforced",
                u64::from(*count),
                &[],
            ),
            Event::Resigned { seat } => self.about(*seat, "log_you_resigned", "log_resigned", &[]),
            Event::Eliminated { seat } => {
                self.about(*seat, "log_you_eliminated", "log_eliminated", &[])
            }
            Event::GameOver { winners, draw } => {
                if *draw {
                    lang.fill("tui.log.draw", &[("names", &self.everyone(winners))])
                } else if self.me.is_some_and(|me| winners.contains(&me)) {
                    lang.t("log_you_won")
                } else {
                    lang.fill("log_game_over", &[("names", &self.everyone(winners))])
                }
            }
        })
    }
}

/// The name of a ship type in the language (`ship.<id>` of the catalogue),
/// else the engine's name.
pub fn ship_name(lang: Lang, rules: &Rules, id: &str) -> String {
    lang.get(&format!("ship.{id}")).unwrap_or_else(|| {
        rules
            .type_index(id)
            .map(|t| rules.catalogue[t].name.clone())
            .unwrap_or_else(|| id.to_string())
    })
}

/// The name of an ability or special id (`special.<id>` of the catalogue).
pub fn action_name(lang: Lang, id: &str) -> String {
    lang.get(&format!("special.{id}"))
        .unwrap_or_else(|| lang.t("tui.ability"))
}

/// The name of a preset (`preset.<id>`), else its id.
pub fn preset_name(lang: Lang, preset: &str) -> String {
    lang.get(&format!("preset.{preset}"))
        .unwrap_or_else(|| preset.to_string())
}

/// The name of a bot level (`level.<id>`), else its id.
pub fn level_name(lang: Lang, level: &str) -> String {
    lang.get(&format!("level.{level}"))
        .unwrap_or_else(|| level.to_string())
}

/// The name of a phase of My games (`phase.<id>`), else its id.
pub fn phase_name(lang: Lang, phase: &str) -> String {
    lang.get(&format!("phase.{phase}"))
        .unwrap_or_else(|| phase.to_string())
}

/// An engine's refusal in words: `err.<code>` of the catalogue.
pub fn rule_error(lang: Lang, error: &broadside_engine::RuleError) -> String {
    lang.t(&format!("err.{}", error.code()))
}

/// A server's refusal in words: `err.<code>` where the catalogue has it,
/// else the server's own message with its code in English, and in the other
/// languages a sentence of their own with the code (the server's messages
/// are English, and nothing English is left inside another language).
pub fn server_error(lang: Lang, code: &str, message: &str) -> String {
    if let Some(key) = terminal_error(code) {
        return lang.t(key);
    }
    lang.get(&format!("err.{code}")).unwrap_or_else(|| {
        if lang == Lang::En {
            format!("{message} ({code})")
        } else {
            lang.fill("tui.server_refused", &[("code", &code)])
        }
    })
}

/// The terminal's own words for a server's refusal, where the browser's
/// (`err.<code>`) point at the browser's page (👤 at the top) or are not
/// in the catalogue: the moderation codes and those of accounts.
pub fn terminal_error(code: &str) -> Option<&'static str> {
    use broadside_protocol::codes;
    Some(match code {
        codes::BANNED => "tui.err.banned",
        codes::MUTED => "tui.err.muted",
        codes::NOT_ALLOWED => "tui.err.not_allowed",
        codes::NO_SUCH_PLAYER => "tui.err.no_such_player",
        codes::ACCOUNT_NEEDED => "tui.err.account_needed",
        codes::LINK_CODE_INVALID => "tui.err.link_code_invalid",
        _ => return None,
    })
}

/// The canonical legend of docs/rules.md R-12, in the order of the rule book:
/// each mark and the key of its meaning.
pub const LEGEND: [(char, &str); 11] = [
    ('~', "tui.mark.sea"),
    ('*', "tui.mark.ship"),
    ('X', "tui.mark.hit"),
    ('?', "tui.mark.hit_whose"),
    ('#', "tui.mark.sunk"),
    ('O', "tui.mark.miss"),
    ('.', "tui.mark.water"),
    ('-', "tui.mark.scan_empty"),
    ('!', "tui.mark.scan_ship"),
    ('+', "tui.mark.volley"),
    ('=', "tui.mark.no_target"),
];

/// A rating as shown beside a name: `1662`, or `1662?` while provisional.
pub fn rating(rating: f64, provisional: bool) -> String {
    format!(
        "{}{}",
        rating.round() as i64,
        if provisional { "?" } else { "" }
    )
}
