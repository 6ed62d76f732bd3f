//! Draws the words of a game's top and bottom lines: the status (phase, whose
//! turn, round, clock) and the key hints of the moment, fitted to the width.

use broadside_engine::{Mode, Phase};

use super::titled;
use super::widgets::{ship_name, text_width};
use crate::app::{Play, Source};
use crate::i18n::Lang;
use crate::words;

/// The status line: phase, whose turn, round.
pub(super) fn status_text(play: &Play) -> String {
    let lang = play.lang;
    let Some(view) = play.view.as_ref() else {
        return titled(lang, "tui.waiting_game");
    };
    let name = |seat: usize| {
        if Some(seat) == play.me {
            lang.t("you").to_lowercase()
        } else {
            play.names
                .get(seat)
                .cloned()
                .unwrap_or_else(|| lang.fill("seat_n", &[("n", &(seat + 1))]))
        }
    };
    let names = |seats: &[usize]| {
        let names: Vec<String> = seats.iter().map(|&s| name(s)).collect();
        lang.list(&names)
    };
    let my_move = play.me.is_some_and(|me| view.to_move.contains(&me));
    let what = match view.phase {
        Phase::Shop if my_move => lang.t("tui.status.shop"),
        Phase::Placement if my_move => match &play.placing {
            Some(p) if p.placed.len() < p.fleet.len() => lang.fill(
                "tui.status.placing",
                &[
                    ("k", &(p.placed.len() + 1)),
                    ("n", &p.fleet.len()),
                    ("ship", &ship_name(play, &p.fleet[p.placed.len()])),
                ],
            ),
            _ => lang.t("tui.status.placed"),
        },
        Phase::Shop | Phase::Placement => lang.t("tui.status.waiting_others"),
        // Out of the game (resigned, or the fleet sunk) while the others
        // play on: nothing here is this terminal's to do.
        Phase::Battle if play.out() => {
            let others = if view.salvo_round {
                lang.t("tui.status.salvo_others")
            } else {
                lang.fill("tui.status.turn_of", &[("names", &names(&view.to_move))])
            };
            lang.fill("tui.status.out", &[("what", &others)])
        }
        Phase::Battle if view.salvo_round => lang.t(if my_move {
            "tui.status.salvo_aim"
        } else {
            "tui.status.salvo_sent"
        }),
        Phase::Battle if my_move => {
            if view.mode == Mode::SharedSea {
                lang.t("tui.status.fire_at_sea")
            } else {
                lang.fill("tui.status.fire_at", &[("name", &name(play.target))])
            }
        }
        Phase::Battle => lang.fill("tui.status.turn_of", &[("names", &names(&view.to_move))]),
        Phase::Finished => match &view.winner {
            _ if view.draw => lang.t("tui.status.draw"),
            Some(w) if play.me.is_some_and(|me| w.contains(&me)) => lang.t("tui.status.you_win"),
            Some(w) => lang.fill("tui.status.won", &[("names", &names(w))]),
            None => lang.t("tui.status.over"),
        },
    };
    // The view's round is the viewer's own: in a duel the player who
    // has just fired is a round ahead of the one now to move, so two
    // terminals would show two numbers at the same moment. The number is
    // shown only where it is everyone's: in a salvo round (each alive player
    // takes part in every one, R-6.2) and on the mover's own terminal in a
    // duel, where it is the round being played.
    let shared = view.phase == Phase::Battle && !play.out() && (view.salvo_round || my_move);
    let round = view
        .round
        .filter(|&r| r > 0 && shared)
        .map(|r| format!(" · {}", lang.fill("tui.status.round", &[("n", &r)])))
        .unwrap_or_default();
    let clock = match &play.source {
        Source::Remote(remote) if view.phase != Phase::Finished => remote
            .deadline
            .map(|d| {
                let left = d
                    .saturating_duration_since(std::time::Instant::now())
                    .as_secs();
                format!(
                    " · {}",
                    lang.fill("tui.status.seconds_left", &[("n", &left)])
                )
            })
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!(
        "{} · {}{round} · {what}{clock}",
        lang.t("app_name"),
        words::preset_name(lang, view.preset.id())
    )
}

/// The keys of the moment; `single` says whether only one board fits.
pub(super) fn help_text(play: &Play, single: bool, width: u16) -> String {
    let Some(view) = play.view.as_ref() else {
        return play.lang.t("tui.hint.leave");
    };
    // The keys of the moment, most useful first; what does not fit the line is
    // left to the `?` overlay.
    let mut keys: Vec<&str> = Vec::new();
    if play.shop.is_some() {
        keys.extend([
            "tui.hint.ship",
            "tui.hint.count",
            "tui.hint.default_fleet",
            "tui.hint.buy",
            "tui.hint.clear",
        ]);
    } else if play.placing.is_some() {
        keys.extend([
            "tui.hint.move",
            "tui.hint.rotate",
            "tui.hint.place",
            "tui.hint.random",
            "tui.hint.undo",
            "tui.hint.save",
        ]);
    } else if play.reserve.is_some() {
        keys.extend([
            "tui.hint.choose_cells",
            "tui.hint.mark",
            "tui.hint.send",
            "tui.hint.random_cells",
            "tui.hint.cancel",
        ]);
    } else if view.phase == Phase::Battle && play.out() {
        keys.extend(["tui.hint.look", "tui.hint.board"]);
        if single {
            keys.push("tui.hint.view");
        }
        if matches!(play.source, Source::Local(_)) {
            keys.push("tui.hint.save");
        }
    } else if view.phase == Phase::Battle {
        keys.extend(["tui.hint.fire", "tui.hint.aim", "tui.hint.label"]);
        if view.salvo_round || play.rules.as_ref().is_some_and(|r| r.per_volley()) {
            keys.push("tui.hint.send");
        }
        if !view.abilities.is_empty() {
            keys.push("tui.hint.ability");
        }
        if play.target_boards().len() > 1 {
            keys.push("tui.hint.board");
        }
        if single {
            keys.push("tui.hint.view");
        }
        keys.push(if matches!(play.source, Source::Remote(_)) {
            "tui.hint.chat"
        } else {
            "tui.hint.save"
        });
        keys.push("tui.hint.resign");
    } else if view.phase == Phase::Finished {
        let again = if matches!(play.source, Source::Remote(_)) {
            "tui.hint.rematch"
        } else {
            "tui.hint.new_game"
        };
        keys.extend([again, "tui.hint.look", "tui.hint.board", "tui.hint.view"]);
    }
    fit_keys(play.lang, &keys, width)
}

/// Joins the key hints (catalogue keys), dropping the last ones until the
/// line fits, and always ends with "? keys · q quit".
pub(super) fn fit_keys(lang: Lang, keys: &[&str], width: u16) -> String {
    let tail = format!("{} · {}", lang.t("tui.hint.keys"), lang.t("tui.hint.quit"));
    let mut hints: Vec<String> = keys.iter().map(|&key| lang.t(key)).collect();
    loop {
        let mut line = hints.join(" · ");
        if !line.is_empty() {
            line.push_str(" · ");
        }
        line.push_str(&tail);
        if text_width(&line) + 2 <= width as usize || hints.is_empty() {
            return line;
        }
        hints.pop();
    }
}
