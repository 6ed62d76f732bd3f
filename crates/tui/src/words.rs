//! Events told in words for the log ("You fire at C7: hit.").

use broadside_engine::{label, Cell, Event, Mode, Phase, Rules, ShotResult};

/// What the log needs to name things: who is who, and the game's rules.
pub struct Names<'a> {
    /// One display name per seat.
    pub seats: &'a [String],
    /// The seat of this terminal, if it plays.
    pub me: Option<usize>,
    pub rules: &'a Rules,
}

impl Names<'_> {
    /// "You" for this terminal's seat, else the seat's name.
    pub fn who(&self, seat: usize) -> String {
        if Some(seat) == self.me {
            "You".to_string()
        } else {
            self.seats
                .get(seat)
                .cloned()
                .unwrap_or_else(|| format!("Seat {}", seat + 1))
        }
    }

    /// "your" or "Ana's".
    fn whose(&self, seat: usize) -> String {
        if Some(seat) == self.me {
            "your".to_string()
        } else {
            format!("{}'s", self.who(seat))
        }
    }

    fn at(&self, cell: Cell) -> String {
        label(self.rules.letter_axis, cell)
    }

    /// Where a shot fell: "C7" in the shared sea, "Bot 1's C7" elsewhere.
    fn place(&self, board: usize, cell: Cell) -> String {
        if self.rules.mode == Mode::SharedSea {
            self.at(cell)
        } else {
            format!("{} {}", self.whose(board), self.at(cell))
        }
    }

    /// The display name of a ship type id.
    pub fn ship(&self, id: &str) -> String {
        self.rules
            .type_index(id)
            .map(|t| self.rules.catalogue[t].name.to_lowercase())
            .unwrap_or_else(|| id.to_string())
    }

    fn verb(&self, seat: usize, you: &str, other: &str) -> String {
        if Some(seat) == self.me {
            you.to_string()
        } else {
            other.to_string()
        }
    }

    /// One line for an event, or `None` for bookkeeping events that say nothing new.
    pub fn describe(&self, event: &Event) -> Option<String> {
        Some(match event {
            Event::Bought { seat, ships } => {
                format!("{} bought a fleet of {ships} ships.", self.who(*seat))
            }
            Event::Ready { seat } => format!(
                "{} {} ready.",
                self.who(*seat),
                self.verb(*seat, "are", "is")
            ),
            Event::PhaseChanged { phase } => match phase {
                Phase::Shop => "The shop opens.".to_string(),
                Phase::Placement => "Place your fleet.".to_string(),
                Phase::Battle => "The battle begins!".to_string(),
                Phase::Finished => return None,
            },
            Event::TurnStarted { seat } => {
                if Some(*seat) == self.me {
                    "Your turn.".to_string()
                } else {
                    format!("{}'s turn.", self.who(*seat))
                }
            }
            Event::RoundStarted { round, .. } => {
                format!("Salvo round {round}: everybody aims in secret.")
            }
            Event::SalvoSubmitted { seat } => {
                format!(
                    "{} {} a salvo.",
                    self.who(*seat),
                    self.verb(*seat, "submit", "submits")
                )
            }
            Event::Shot {
                shooter,
                board,
                at,
                result,
                ship,
            } => {
                let outcome = match result {
                    ShotResult::Miss => "water".to_string(),
                    ShotResult::Hit => match ship {
                        Some(ship) => format!("hit ({})", self.ship(ship)),
                        None => "hit".to_string(),
                    },
                    ShotResult::Sunk => "sunk".to_string(),
                };
                let mark = if *result == ShotResult::Sunk {
                    '!'
                } else {
                    '.'
                };
                format!(
                    "{} {} at {}: {outcome}{mark}",
                    self.who(*shooter),
                    self.verb(*shooter, "fire", "fires"),
                    self.place(*board, *at)
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
                let mut line = format!(
                    "{} {} a volley at {} {}: {hits} hit{}",
                    self.who(*shooter),
                    self.verb(*shooter, "fire", "fires"),
                    self.whose(*board),
                    cells.join(", "),
                    if *hits == 1 { "" } else { "s" }
                );
                if !types_hit.is_empty() {
                    let names: Vec<String> = types_hit.iter().map(|t| self.ship(t)).collect();
                    line.push_str(&format!(" ({})", names.join(", ")));
                }
                if !sunk.is_empty() {
                    let names: Vec<String> = sunk.iter().map(|t| self.ship(t)).collect();
                    line.push_str(&format!("; destroyed: {}", names.join(", ")));
                }
                line.push('.');
                line
            }
            Event::Revealed { cells, .. } => {
                format!("{} cells revealed as water.", cells.len())
            }
            Event::Sunk { owner, ship, .. } => {
                if Some(*owner) == self.me {
                    format!("Your {} was sunk.", self.ship(ship))
                } else {
                    format!("{}'s {} was sunk.", self.who(*owner), self.ship(ship))
                }
            }
            Event::ActionUsed { seat, kind, .. } => {
                format!(
                    "{} {} the {}.",
                    self.who(*seat),
                    self.verb(*seat, "use", "uses"),
                    action_name(kind.id())
                )
            }
            Event::Scan { cells, .. } => {
                let found = cells.iter().filter(|c| c.ship).count();
                format!(
                    "Scan: {found} ship part{} in {} cells.",
                    if found == 1 { "" } else { "s" },
                    cells.len()
                )
            }
            Event::Reinforced { seat, count, .. } => {
                format!(
                    "{} {} {count} fighters.",
                    self.who(*seat),
                    self.verb(*seat, "receive", "receives")
                )
            }
            Event::Resigned { seat } => format!(
                "{} {}.",
                self.who(*seat),
                self.verb(*seat, "resign", "resigns")
            ),
            Event::Eliminated { seat } => {
                format!(
                    "{} {} out of the game.",
                    self.who(*seat),
                    self.verb(*seat, "are", "is")
                )
            }
            Event::GameOver { winners, draw } => {
                if *draw {
                    let names: Vec<String> = winners.iter().map(|&s| self.who(s)).collect();
                    format!("Game over: a draw between {}.", names.join(" and "))
                } else if self.me.is_some_and(|me| winners.contains(&me)) {
                    "Game over: you win!".to_string()
                } else {
                    let names: Vec<String> = winners.iter().map(|&s| self.who(s)).collect();
                    format!(
                        "Game over: {} {}.",
                        names.join(" and "),
                        if winners.len() == 1 { "wins" } else { "win" }
                    )
                }
            }
        })
    }
}

/// The words for an ability or special id.
pub fn action_name(id: &str) -> &'static str {
    match id {
        "laser" => "laser",
        "scanner" => "scanner",
        "nuke" => "nuke",
        "reserve" => "reserve",
        "wide" => "wide-range shot",
        "bombard" => "air bombardment",
        "radar" => "radar",
        _ => "ability",
    }
}

/// The canonical legend of RULES.md R-12, in the order of the rule book.
pub const LEGEND: [(char, &str); 11] = [
    ('~', "sea"),
    ('*', "ship"),
    ('X', "hit"),
    ('?', "hit, whose"),
    ('#', "sunk"),
    ('O', "miss"),
    ('.', "water"),
    ('-', "scan empty"),
    ('!', "scan ship"),
    ('+', "volley ?"),
    ('=', "no target"),
];

// ----- Public play: quick match, the leaderboard, ratings -----------------------
//
// Every text of the online start's public entries, the waiting screen and the
// leaderboard lives here, in one place, for the catalogue of languages to come.

/// The online start's entries (New Game form rows and My games rows).
pub const NEW_ROOM: &str = "New room";
pub const QUICK_MATCH: &str = "Quick match";
pub const LEADERBOARD: &str = "Leaderboard";

/// The title bars of the two screens.
pub const QUICK_MATCH_TITLE: &str = "Broadside · quick match";
pub const LEADERBOARD_TITLE: &str = "Broadside · leaderboard";

/// Key hints of the online start, the waiting screen and the leaderboard.
pub const KEY_QUICK_MATCH: &str = "m quick match";
pub const KEY_LEADERBOARD: &str = "l leaderboard";
pub const KEY_CANCEL: &str = "Esc cancel";
pub const KEY_BOT: &str = "b play the bot";
pub const KEY_PRESET: &str = "←→ preset";
pub const KEY_SCROLL: &str = "↑↓ scroll";
pub const KEY_BACK: &str = "Esc back";

/// A rating as shown beside a name: `1662`, or `1662?` while provisional.
pub fn rating(rating: f64, provisional: bool) -> String {
    format!(
        "{}{}",
        rating.round() as i64,
        if provisional { "?" } else { "" }
    )
}

/// The line under the New Game form about the quick match.
pub fn quick_match_hint(preset: &str) -> String {
    format!("Quick match: a stranger in {preset} with its default rules; rated.")
}

/// The My games row that starts a quick match.
pub fn quick_match_entry(preset: &str) -> String {
    format!("{QUICK_MATCH} ({preset})")
}

/// Notices about the quick match.
pub fn looking(preset: &str) -> String {
    format!("Looking for an opponent in {preset}…")
}
pub const CANCELLING: &str = "Cancelling the quick match…";
pub const CANCELLED: &str = "Quick match cancelled.";
pub fn bot_offered(level: &str) -> String {
    format!("Nobody yet: b plays a {level} bot instead.")
}
pub fn accepting_bot(level: &str) -> String {
    format!("Starting a game against a {level} bot…")
}
pub fn paired(opponent: &str, rated: bool) -> String {
    if rated {
        format!("Paired with {opponent}: a rated game. Good luck!")
    } else {
        format!("Playing {opponent}: this game is not rated. Good luck!")
    }
}

/// The lines of the waiting screen.
pub fn waiting_heading(preset: &str) -> String {
    format!("{QUICK_MATCH} · {preset}")
}
pub const ASKING: &str = "Asking the server…";
pub const LOOKING: &str = "Looking for an opponent…";
pub fn waiting_count(preset: &str, waiting: u64) -> String {
    format!("Waiting for {preset}: {waiting} (you included)")
}
pub fn waited(seconds: u64) -> String {
    format!("Time waited: {}:{:02}", seconds / 60, seconds % 60)
}
pub fn bot_after(seconds: u64) -> String {
    format!("If nobody comes, a bot is offered after {seconds} s.")
}
pub fn play_bot_instead(level: &str) -> String {
    format!("b: play a {level} bot instead (not rated), or keep waiting.")
}
pub const ESC_CANCEL: &str = "Esc: cancel";

/// The lines of the leaderboard.
pub fn leaderboard_heading(preset: &str) -> String {
    format!("{LEADERBOARD} · {preset}")
}
pub const LEADERBOARD_COLUMNS: [&str; 5] = ["Rank", "Player", "Rating", "Games", "Wins"];
pub fn nobody_rated(preset: &str) -> String {
    format!("Nobody has a rating in {preset} yet: a quick match is rated.")
}
pub const PROVISIONAL: &str = "? provisional: too few games yet for a steady rating.";
