//! The New Game form: the preset, the seats and the options that apply
//! to them, with the engine's defaults.

use broadside_ai::Level;
use broadside_engine::{Options, Preset, Report, SalvoMode};

use crate::i18n::Lang;
use crate::words;

/// The New Game form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    pub preset: Preset,
    pub seats: usize,
    /// Offline: how many people play at this terminal, passing it between
    /// turns (hot-seat); they take the first seats, bots the rest.
    pub people: usize,
    /// The level of the bot in seat i + 1.
    pub levels: [Level; 5],
    /// Online only: seat i + 1 stays open for a person who joins with the code.
    pub open: [bool; 5],
    /// Whether the form creates an online room (open seats are offered).
    pub online: bool,
    pub report: Report,
    pub specials: bool,
    pub salvo: SalvoMode,
    pub water_ring: bool,
    pub hit_again: bool,
    pub credits: u32,
    /// The highlighted row of [`Form::fields`].
    pub selected: usize,
}

/// One row of the New Game form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Preset,
    Seats,
    /// Offline: the people at this terminal (hot-seat).
    People,
    Level(usize),
    Report,
    Specials,
    Salvo,
    WaterRing,
    HitAgain,
    Credits,
    Start,
    /// Online only: wait for a stranger with the chosen preset instead.
    QuickMatch,
    /// Online only: the best ratings, starting with the chosen preset.
    Leaderboard,
}

impl Default for Form {
    fn default() -> Self {
        let mut form = Form {
            preset: Preset::Classic,
            seats: 2,
            people: 1,
            levels: [Level::Medium; 5],
            open: [false; 5],
            online: false,
            report: Report::PerShot,
            specials: false,
            salvo: SalvoMode::Spread,
            water_ring: true,
            hit_again: true,
            credits: 500,
            selected: 0,
        };
        form.reset_options();
        form
    }
}

impl Form {
    /// The preset's defaults for the options the form offers.
    pub(super) fn reset_options(&mut self) {
        let preset = self.preset;
        self.seats = self.seats.min(preset.max_seats());
        self.people = self.people.min(self.seats);
        // The defaults are the engine's: the form never restates a rule.
        let defaults = broadside_engine::Rules::resolve(&broadside_engine::Setup {
            preset,
            seats: 2,
            seed: 0,
            options: broadside_engine::Options::default(),
            teams: None,
        })
        .expect("every preset's own defaults are a valid setup");
        self.report = defaults.report;
        self.specials = defaults.specials;
        self.water_ring = defaults.water_ring;
        self.hit_again = defaults.hit_again;
        self.credits = defaults.credits;
    }

    /// The rows that apply to the chosen preset and seat count.
    pub fn fields(&self) -> Vec<Field> {
        let preset = self.preset;
        let mut fields = vec![Field::Preset, Field::Seats];
        if !self.online {
            fields.push(Field::People);
        }
        fields.extend((0..self.seats - 1).map(Field::Level));
        if preset == Preset::Brasil {
            fields.push(Field::Report);
        }
        if !matches!(preset, Preset::Shared | Preset::Space) {
            fields.push(Field::Specials);
        }
        if self.seats >= 3 {
            fields.push(Field::Salvo);
        }
        if !matches!(preset, Preset::Shared | Preset::Hasbro) {
            fields.push(Field::WaterRing);
        }
        if preset != Preset::Brasil {
            fields.push(Field::HitAgain);
        }
        if preset == Preset::Space {
            fields.push(Field::Credits);
        }
        fields.push(Field::Start);
        if self.online {
            fields.extend([Field::QuickMatch, Field::Leaderboard]);
        }
        fields
    }

    /// Changes a row by one step (`forward` or back).
    pub(super) fn step(&mut self, field: Field, forward: bool) {
        fn cycle<T: Copy + PartialEq>(all: &[T], now: T, forward: bool) -> T {
            let i = all.iter().position(|&x| x == now).unwrap_or(0);
            let n = all.len();
            all[if forward {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            }]
        }
        match field {
            Field::Preset => {
                self.preset = cycle(&Preset::ALL, self.preset, forward);
                self.reset_options();
            }
            Field::Seats => {
                let max = self.preset.max_seats();
                self.seats = if forward {
                    if self.seats >= max {
                        2
                    } else {
                        self.seats + 1
                    }
                } else if self.seats <= 2 {
                    max
                } else {
                    self.seats - 1
                };
                self.people = self.people.min(self.seats);
            }
            Field::People => {
                // 1 (alone against bots) up to every seat of the preset; more
                // people than seats adds the seats.
                let max = self.preset.max_seats();
                self.people = if forward {
                    if self.people >= max {
                        1
                    } else {
                        self.people + 1
                    }
                } else if self.people <= 1 {
                    max
                } else {
                    self.people - 1
                };
                self.seats = self.seats.max(self.people).max(2);
            }
            // A seat of a person at this terminal has no level to choose.
            Field::Level(i) if self.is_person(i + 1) => {}
            Field::Level(i) => {
                // The choices of a seat: each level, then (online) "open".
                let mut choices: Vec<Option<Level>> = Level::ALL.into_iter().map(Some).collect();
                if self.online {
                    choices.push(None);
                }
                let now = if self.open[i] {
                    None
                } else {
                    Some(self.levels[i])
                };
                match cycle(&choices, now, forward) {
                    Some(level) => {
                        self.levels[i] = level;
                        self.open[i] = false;
                    }
                    None => self.open[i] = true,
                }
            }
            Field::Report => {
                self.report = cycle(&[Report::PerShot, Report::PerVolley], self.report, forward)
            }
            Field::Specials => self.specials = !self.specials,
            Field::Salvo => {
                self.salvo = cycle(&[SalvoMode::Spread, SalvoMode::Focus], self.salvo, forward)
            }
            Field::WaterRing => self.water_ring = !self.water_ring,
            Field::HitAgain => self.hit_again = !self.hit_again,
            Field::Credits => {
                self.credits = if forward {
                    (self.credits + 50).min(2000)
                } else {
                    self.credits.saturating_sub(50).max(100)
                }
            }
            Field::Start | Field::QuickMatch | Field::Leaderboard => {}
        }
        self.selected = self.selected.min(self.fields().len() - 1);
    }

    /// Whether seat `seat` is a person at this terminal (offline).
    pub fn is_person(&self, seat: usize) -> bool {
        !self.online && seat < self.people
    }

    /// Sets the form for `people` at this terminal (`--hot-seat`): as many
    /// seats at least, within what the preset allows.
    pub fn hot_seat(&mut self, people: usize) {
        if people > self.preset.max_seats() {
            self.preset = broadside_engine::Preset::Classic;
            self.reset_options();
        }
        self.people = people.clamp(1, self.preset.max_seats());
        self.seats = self.seats.max(self.people);
    }

    /// The room options for the engine; only those that apply are set, so the
    /// engine's checks of other presets' options never fire.
    pub fn options(&self, offline: bool) -> Options {
        let fields = self.fields();
        let mut options = Options::default();
        if fields.contains(&Field::Report) {
            options.report = Some(self.report);
        }
        if fields.contains(&Field::Specials) {
            options.specials = Some(self.specials);
        }
        if fields.contains(&Field::Salvo) {
            options.salvo = Some(self.salvo);
        }
        if fields.contains(&Field::WaterRing) {
            options.water_ring = Some(self.water_ring);
        }
        if fields.contains(&Field::HitAgain) {
            options.hit_again = Some(self.hit_again);
        }
        if fields.contains(&Field::Credits) {
            options.credits = Some(self.credits);
        }
        if offline {
            // Decision: offline games have no clock. A person alone with bots
            // should think as long as they like, and a saved game resumes without
            // a timer that ran on while it was on disk.
            options.turn_seconds = Some(0);
            options.round_seconds = Some(0);
            options.place_seconds = Some(0);
            options.shop_seconds = Some(0);
        }
        options
    }

    /// The value shown on a row.
    pub fn value(&self, field: Field, lang: Lang) -> String {
        let on = |b: bool| lang.t(if b { "tui.on" } else { "tui.off" });
        match field {
            Field::Preset => words::preset_name(lang, self.preset.id()),
            Field::Seats => self.seats.to_string(),
            Field::People if self.people == 1 => lang.t("tui.people_alone"),
            Field::People => lang.fill("tui.people_hot_seat", &[("n", &self.people)]),
            Field::Level(i) if self.is_person(i + 1) => {
                lang.fill("tui.person_here", &[("n", &(i + 2))])
            }
            Field::Level(i) if self.open[i] => lang.t("tui.open_for_a_person"),
            Field::Level(i) => lang.fill(
                "bot_named",
                &[("level", &words::level_name(lang, self.levels[i].id()))],
            ),
            Field::Report => match self.report {
                Report::PerShot => lang.t("tui.report_easy"),
                Report::PerVolley => lang.t("tui.report_hard"),
            },
            Field::Specials => on(self.specials),
            Field::Salvo => match self.salvo {
                SalvoMode::Spread => lang.t("tui.salvo_spread"),
                SalvoMode::Focus => lang.t("tui.salvo_focus"),
            },
            Field::WaterRing => on(self.water_ring),
            Field::HitAgain => on(self.hit_again),
            Field::Credits => self.credits.to_string(),
            Field::Start | Field::QuickMatch | Field::Leaderboard => String::new(),
        }
    }

    pub fn label(field: Field, lang: Lang) -> String {
        match field {
            Field::Preset => lang.t("opt_preset"),
            Field::Seats => lang.t("seats"),
            Field::People => lang.t("tui.people"),
            Field::Level(i) => lang.fill("seat_n", &[("n", &(i + 2))]),
            Field::Report => lang.t("opt_report"),
            Field::Specials => lang.t("opt_specials"),
            Field::Salvo => lang.t("opt_salvo"),
            Field::WaterRing => lang.t("opt_water_ring"),
            Field::HitAgain => lang.t("opt_hit_again"),
            Field::Credits => lang.t("opt_credits"),
            Field::Start => lang.t("tui.start"),
            Field::QuickMatch => lang.t("tui.quick_match"),
            Field::Leaderboard => lang.t("leaderboard"),
        }
    }
}
