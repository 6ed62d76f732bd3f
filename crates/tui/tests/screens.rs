//! Snapshot tests of the main screens, drawn into ratatui's TestBackend at
//! 80×24, and behaviour tests that drive the app with keys exactly as a person
//! would (the same `update` the terminal loop calls).

use broadside_engine::{Phase, Preset};
use broadside_tui::{App, Config, Field, Lang, Msg, Screen};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn app() -> App {
    app_in(Lang::En)
}

/// A new client speaking `lang`.
fn app_in(lang: Lang) -> App {
    App::new(
        Config {
            seed: Some(42),
            lang,
            ..Config::default()
        },
        None,
    )
}

fn press(app: &mut App, code: KeyCode) {
    app.update(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn typ(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// The screen as drawn, with the style of every cell.
fn drawn(app: &App, width: u16, height: u16) -> ratatui::buffer::Buffer {
    let mut terminal =
        Terminal::new(TestBackend::new(width, height)).expect("the test backend never fails");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("drawing into memory never fails");
    terminal.backend().buffer().clone()
}

/// The screen as text, one line per row.
fn screen(app: &App, width: u16, height: u16) -> String {
    let buffer = drawn(app, width, height);
    let mut out = String::new();
    for y in 0..height {
        let line: String = (0..width)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Opens the New Game form and sets the preset and the number of players.
fn new_game(app: &mut App, preset: Preset, seats: usize) {
    press(app, KeyCode::Char('n'));
    assert_eq!(app.screen, Screen::NewGame);
    while app.form.preset != preset {
        press(app, KeyCode::Right);
    }
    press(app, KeyCode::Down);
    while app.form.seats != seats {
        press(app, KeyCode::Right);
    }
}

fn start(app: &mut App) {
    press(app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Play, "{:?}", app.notice);
}

/// A new offline classic game against one bot, at the placement of the fleet.
fn placing_classic() -> App {
    let mut app = app();
    new_game(&mut app, Preset::Classic, 2);
    start(&mut app);
    settle(&mut app);
    app
}

/// Lets the bots move until the person must act or the game is over.
fn settle(app: &mut App) {
    for _ in 0..10_000 {
        let play = app.play.as_ref().expect("a game is running");
        let view = play.view.as_ref().expect("a local game always has a view");
        let mine = play.me.is_some_and(|me| view.to_move.contains(&me));
        // Hot-seat: the terminal waits for the next person.
        if mine || view.phase == Phase::Finished || play.handover.is_some() {
            return;
        }
        app.update(Msg::Tick);
    }
    panic!("the bots never gave the turn back");
}

fn phase(app: &App) -> Phase {
    app.play
        .as_ref()
        .and_then(|p| p.view.as_ref())
        .map(|v| v.phase)
        .expect("a game is running")
}

/// Random placement then confirmation.
fn place_random(app: &mut App) {
    settle(app);
    press(app, KeyCode::Char(' '));
    press(app, KeyCode::Enter);
}

/// A game built with the engine alone, in battle with seat 0 to move: the
/// screens drawn from it depend on the rules engine, never on a bot's choices.
fn battle(preset: Preset, seats: usize, options: broadside_engine::Options) -> App {
    battle_in(Lang::En, preset, seats, options)
}

/// [`battle`] in another language.
fn battle_in(lang: Lang, preset: Preset, seats: usize, options: broadside_engine::Options) -> App {
    use broadside_engine::{Command, Game, Options, Setup};
    let options = Options {
        first: Some(0),
        turn_seconds: Some(0),
        round_seconds: Some(0),
        place_seconds: Some(0),
        shop_seconds: Some(0),
        ..options
    };
    let mut game = Game::new(&Setup {
        preset,
        seats,
        seed: 7,
        options,
        teams: None,
    })
    .expect("a valid setup");
    for seat in 0..seats {
        if game.phase() == Phase::Shop {
            let ships = broadside_ai::default_purchase(game.rules());
            game.apply(Command::Buy { seat, ships })
                .expect("the default fleet is a valid purchase");
        }
    }
    for seat in 0..seats {
        game.apply(Command::PlaceRandom { seat })
            .expect("random placement always succeeds");
    }
    assert_eq!(game.phase(), Phase::Battle);
    let levels = (0..seats)
        .map(|s| (s != 0).then_some(broadside_ai::Level::Medium))
        .collect();
    App::offline(
        Config {
            seed: Some(42),
            lang,
            ..Config::default()
        },
        game,
        0,
        levels,
    )
}

/// The open cells of each opponent, as the seat's view shows them.
fn groups(app: &App) -> Vec<Vec<broadside_engine::Target>> {
    use broadside_engine::{Cell, Target};
    let play = app.play.as_ref().expect("a game is running");
    let view = play.view.as_ref().expect("a view");
    let me = play.me.expect("a seat");
    let team = view.seats[me].team;
    let open = |ch: char| ch == '~' || ch == '!';
    match &view.blocks {
        Some(blocks) => blocks
            .iter()
            .filter(|b| {
                !b.empty && !b.eliminated && b.owner.is_none_or(|o| view.seats[o].team != team)
            })
            .map(|b| {
                let size = view.board_size;
                (0..size.rows)
                    .flat_map(|r| {
                        (0..size.cols).map(move |c| Cell::new(b.origin.col + c, b.origin.row + r))
                    })
                    .filter(|&at| open(view.boards[0].at(at)))
                    .map(|at| Target { board: 0, at })
                    .collect()
            })
            .collect(),
        None => view
            .boards
            .iter()
            .enumerate()
            .filter(|(i, _)| view.seats[*i].team != team && view.seats[*i].alive)
            .map(|(i, b)| {
                let size = view.board_size;
                (0..size.rows)
                    .flat_map(|r| (0..size.cols).map(move |c| Cell::new(c, r)))
                    .filter(|&at| open(b.at(at)))
                    .map(|at| Target { board: i, at })
                    .collect()
            })
            .collect(),
    }
}

/// Moves the cursor to a cell with the arrow keys, switching boards with Tab.
fn go_to(app: &mut App, target: broadside_engine::Target) {
    for _ in 0..8 {
        if app.play.as_ref().map(|p| p.target) == Some(target.board) {
            break;
        }
        press(app, KeyCode::Tab);
    }
    for _ in 0..60 {
        let cursor = app
            .play
            .as_ref()
            .map(|p| p.cursor)
            .expect("a game is running");
        let code = if cursor.col < target.at.col {
            KeyCode::Right
        } else if cursor.col > target.at.col {
            KeyCode::Left
        } else if cursor.row < target.at.row {
            KeyCode::Down
        } else if cursor.row > target.at.row {
            KeyCode::Up
        } else {
            return;
        };
        press(app, code);
    }
    panic!("the cursor did not reach {target:?}");
}

/// Plays the person's seat to the end: shots by typed labels, salvos and
/// volleys by cells chosen with the cursor and sent with x.
fn play_to_the_end(app: &mut App) {
    for _ in 0..5_000 {
        settle(app);
        match phase(app) {
            Phase::Finished => return,
            Phase::Shop => {
                typ(app, "d");
                press(app, KeyCode::Enter);
                continue;
            }
            Phase::Placement => {
                place_random(app);
                continue;
            }
            Phase::Battle => {}
        }
        let play = app.play.as_ref().expect("a game is running");
        let view = play.view.as_ref().expect("a view");
        if view.salvo_round {
            // Spread: two shots on every opponent; focus: all on the first.
            let groups = groups(app);
            let focus = play
                .rules
                .as_ref()
                .is_some_and(|r| r.salvo == broadside_engine::SalvoMode::Focus);
            let aims: Vec<(usize, usize)> = if focus {
                vec![(0, 2 * groups.len())]
            } else {
                (0..groups.len()).map(|g| (g, 2)).collect()
            };
            for (group, count) in aims {
                for &target in groups[group].iter().take(count) {
                    go_to(app, target);
                    press(app, KeyCode::Enter);
                }
            }
            press(app, KeyCode::Char('x'));
            continue;
        }
        if play.rules.as_ref().is_some_and(|r| r.per_volley()) {
            // A hard-rule volley: three different cells, sent by the third.
            let cells: Vec<_> = groups(app).into_iter().flatten().take(3).collect();
            for target in cells {
                go_to(app, target);
                press(app, KeyCode::Enter);
            }
            continue;
        }
        let target = groups(app)
            .into_iter()
            .flatten()
            .next()
            .expect("an open cell while the game runs");
        let axis = view.letter_axis;
        if play.target != target.board {
            press(app, KeyCode::Tab);
            continue;
        }
        typ(app, ":");
        typ(app, &broadside_engine::label(axis, target.at));
        press(app, KeyCode::Enter);
    }
    panic!(
        "the game did not end: {:?}\n{}",
        app.notice,
        screen(app, 80, 24)
    );
}

#[test]
fn menu_screen() {
    let app = app();
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn new_game_form_for_brasil() {
    let mut app = app();
    new_game(&mut app, Preset::Brasil, 2);
    assert!(app.form.fields().contains(&Field::Report));
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn placement_screen_shows_the_moving_ship_and_refuses_touching() {
    let mut app = placing_classic();
    // The battleship goes to the top left, lying down.
    press(&mut app, KeyCode::Enter);
    // The first cruiser, moved one row down, would touch it.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    let notice = app.notice.clone().expect("the refusal is shown");
    assert!(notice.error && notice.text.contains("touch"), "{notice:?}");
    // Rotated and moved away it fits.
    press(&mut app, KeyCode::Char('r'));
    for _ in 0..5 {
        press(&mut app, KeyCode::Right);
    }
    press(&mut app, KeyCode::Down);
    insta::assert_snapshot!(screen(&app, 80, 24));
    press(&mut app, KeyCode::Enter);
    let placing = app
        .play
        .as_ref()
        .and_then(|p| p.placing.as_ref())
        .expect("still placing");
    assert_eq!(placing.placed.len(), 2);
}

/// Issue 15 item 13: after Space the fleet is complete and nothing moves, so
/// the board shows the laid ships and nothing else: no `*` on water, no cursor.
#[test]
fn after_random_placement_only_the_ships_are_marked() {
    use ratatui::style::Modifier;
    let mut app = placing_classic();
    press(&mut app, KeyCode::Char(' '));
    let ships = app.play.as_ref().expect("a game is running").placed_cells();
    assert_eq!(ships.len(), 20, "the whole classic fleet is laid");
    let buffer = drawn(&app, 80, 24);
    // "Your waters": row A on screen row 3, column 1 at x = 3, two characters a cell.
    for row in 0..10u16 {
        for col in 0..10u16 {
            let cell = &buffer[(3 + 2 * col, 3 + row)];
            let ship = ships.contains(&broadside_engine::Cell::new(col, row));
            assert_eq!(
                cell.symbol() == "*",
                ship,
                "cell ({col}, {row}) shows {:?}",
                cell.symbol()
            );
            assert!(
                !cell.modifier.contains(Modifier::REVERSED),
                "cell ({col}, {row}) is drawn as a cursor"
            );
        }
    }
}

#[test]
fn battle_screen_classic_after_a_shot() {
    let mut app = battle(Preset::Classic, 2, Default::default());
    typ(&mut app, ":E5");
    press(&mut app, KeyCode::Enter);
    let text = screen(&app, 80, 24);
    assert!(text.contains("You fire at Bot 1's E5"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn italia_sixteen_by_sixteen_fits_eighty_by_twenty_four() {
    let app = battle(Preset::Italia, 2, Default::default());
    let text = screen(&app, 80, 24);
    // Both boards with every column letter A–P and rows 1–16.
    assert!(
        text.contains("ABCDEFGHIJKLMNOP    ") && text.contains(" 16 "),
        "{text}"
    );
    assert_eq!(text.matches("ABCDEFGHIJKLMNOP").count(), 2, "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn space_battle_screen() {
    let app = battle(Preset::Space, 2, Default::default());
    let text = screen(&app, 80, 24);
    assert!(text.contains("12345678901234567890"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn space_shop_screen() {
    let mut app = app();
    new_game(&mut app, Preset::Space, 2);
    start(&mut app);
    settle(&mut app);
    typ(&mut app, "d");
    insta::assert_snapshot!(screen(&app, 80, 24));
    press(&mut app, KeyCode::Enter);
    settle(&mut app);
    assert_eq!(phase(&app), Phase::Placement);
}

#[test]
fn shared_sea_screen_with_three_players() {
    let app = battle(Preset::Shared, 3, Default::default());
    insta::assert_snapshot!(screen(&app, 80, 24));
}

#[test]
fn a_small_terminal_shows_one_board_at_a_time() {
    let mut app = app();
    new_game(&mut app, Preset::Classic, 2);
    start(&mut app);
    place_random(&mut app);
    settle(&mut app);
    let target = screen(&app, 26, 18);
    assert!(
        target.contains("Bot 1's waters") && !target.contains("Your waters"),
        "{target}"
    );
    press(&mut app, KeyCode::Char('v'));
    let own = screen(&app, 26, 18);
    assert!(own.contains("Your waters"), "{own}");
}

#[test]
fn save_and_load_continue_at_the_same_position() {
    let dir = std::env::temp_dir().join(format!("broadside-tui-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    let path = dir.join("game.json");
    let mut app = app();
    new_game(&mut app, Preset::Italia, 2);
    start(&mut app);
    place_random(&mut app);
    settle(&mut app);
    typ(&mut app, ":C3");
    press(&mut app, KeyCode::Enter);
    settle(&mut app);
    let before = app
        .play
        .as_ref()
        .and_then(|p| p.view.clone())
        .expect("a view");
    typ(&mut app, "s");
    // Replace the proposed file name.
    for _ in 0..40 {
        press(&mut app, KeyCode::Backspace);
    }
    typ(&mut app, &path.to_string_lossy());
    press(&mut app, KeyCode::Enter);
    typ(&mut app, "qy");
    assert_eq!(app.screen, Screen::Menu);
    typ(&mut app, "l");
    for _ in 0..40 {
        press(&mut app, KeyCode::Backspace);
    }
    typ(&mut app, &path.to_string_lossy());
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Play);
    let after = app
        .play
        .as_ref()
        .and_then(|p| p.view.clone())
        .expect("a view");
    assert_eq!(before, after);
    std::fs::remove_dir_all(&dir).expect("the temp dir can be removed");
}

#[test]
fn every_preset_plays_to_the_end_offline() {
    // (preset, players, New Game rows to change with → before starting)
    let cases: [(Preset, usize, &[Field]); 10] = [
        (Preset::Classic, 2, &[]),
        (Preset::Classic, 3, &[]),
        (Preset::Classic, 4, &[Field::Salvo]),
        (Preset::Shared, 3, &[]),
        (Preset::Space, 2, &[]),
        (Preset::Space, 3, &[]),
        (Preset::Brasil, 2, &[]),
        (Preset::Brasil, 2, &[Field::Report]),
        (Preset::Italia, 2, &[]),
        (Preset::Hasbro, 4, &[]),
    ];
    for (preset, seats, changes) in cases {
        let mut app = app();
        new_game(&mut app, preset, seats);
        for &field in changes {
            while app.form.fields()[app.form.selected] != field {
                press(&mut app, KeyCode::Down);
            }
            press(&mut app, KeyCode::Right);
        }
        let options = app.form.options(true);
        start(&mut app);
        play_to_the_end(&mut app);
        let text = screen(&app, 80, 24);
        assert!(
            text.contains("Game over"),
            "{preset:?} {seats} {options:?}: {text}"
        );
    }
}

#[test]
fn brasil_hard_rule_sends_a_volley_of_three() {
    let options = broadside_engine::Options {
        report: Some(broadside_engine::Report::PerVolley),
        ..Default::default()
    };
    let mut app = battle(Preset::Brasil, 2, options);
    for label in [":A1", ":B2"] {
        typ(&mut app, label);
        press(&mut app, KeyCode::Enter);
    }
    assert_eq!(app.play.as_ref().map(|p| p.picks.len()), Some(2));
    insta::assert_snapshot!(screen(&app, 80, 24));
    typ(&mut app, ":C3");
    press(&mut app, KeyCode::Enter);
    let log = app
        .play
        .as_ref()
        .map(|p| p.log.join("\n"))
        .unwrap_or_default();
    assert!(
        log.contains("You fire a volley at Bot 1's A1, B2, C3"),
        "{log}"
    );
}

#[test]
fn italia_specials_are_used_with_a() {
    let mut app = battle(Preset::Italia, 2, Default::default());
    // The first ready special is the wide-range shot (bombardment waits for round 10).
    typ(&mut app, "a");
    let action = app.play.as_ref().and_then(|p| p.action);
    assert_eq!(action.map(|k| k.id()), Some("wide"));
    for _ in 0..5 {
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Right);
    }
    insta::assert_snapshot!(screen(&app, 80, 24));
    press(&mut app, KeyCode::Enter);
    let log = app
        .play
        .as_ref()
        .map(|p| p.log.join("\n"))
        .unwrap_or_default();
    assert!(log.contains("You use the wide shot"), "{log}");
}

#[test]
fn the_keys_overlay_lists_every_key() {
    let mut app = battle(Preset::Classic, 2, Default::default());
    typ(&mut app, "?");
    insta::assert_snapshot!(screen(&app, 80, 24));
    // Any key closes it and does nothing else.
    typ(&mut app, "q");
    assert!(!app.show_keys && app.prompt.is_none());
}

/// The rows inside the `?` overlay's box, without its borders.
fn overlay_rows(screen: &str) -> Vec<String> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.contains(&'┌'))
        .expect("the overlay is open");
    let left = lines[top].iter().position(|&c| c == '┌').unwrap_or(0);
    let right = lines[top].iter().position(|&c| c == '┐').unwrap_or(0);
    lines[top + 1..]
        .iter()
        .take_while(|l| l.get(left) != Some(&'└'))
        .map(|l| l[left + 1..=right].iter().collect())
        .collect()
}

/// Issue 15 item 14: the help was a fixed 58 columns wide, so its longest row
/// was cut ("new game (online: rematc") however wide the terminal.
#[test]
fn the_keys_overlay_fits_at_120_and_at_80_columns() {
    for width in [120, 80] {
        let mut app = battle(Preset::Classic, 2, Default::default());
        typ(&mut app, "?");
        let text = screen(&app, width, 24);
        let rows = overlay_rows(&text);
        for row in &rows {
            // One column of air before the right border: nothing is cut.
            assert!(
                row.ends_with(" │"),
                "a row is cut at {width} columns:\n{text}"
            );
        }
        assert!(
            rows.iter()
                .any(|r| r.contains("after the end: new game (online: rematch)")),
            "{text}"
        );
        assert!(
            rows.iter().any(|r| r.contains("leave the game, quit")),
            "{text}"
        );
    }
}

/// In a terminal too small for the help, its rows wrap under their own column
/// and ↑↓ scroll to the last one; any other key closes it.
#[test]
fn the_keys_overlay_wraps_and_scrolls_in_a_small_terminal() {
    let mut app = battle(Preset::Classic, 2, Default::default());
    typ(&mut app, "?");
    let mut seen: Vec<String> = Vec::new();
    let mut last = Vec::new();
    for _ in 0..40 {
        let rows = overlay_rows(&screen(&app, 44, 16));
        for row in &rows {
            assert!(row.ends_with(" │"), "a row is cut: {row}");
        }
        if rows == last {
            break;
        }
        // Each step down shows one new row at the bottom.
        if seen.is_empty() {
            seen.extend(rows.iter().cloned());
        } else {
            seen.extend(rows.last().cloned());
        }
        last = rows;
        press(&mut app, KeyCode::Down);
    }
    let all = seen.join(" ").replace('│', " ");
    let all = all.split_whitespace().collect::<Vec<_>>().join(" ");
    for entry in [
        "Enter place it (@ green: fits, x red: not)",
        "n after the end: new game (online: rematch)",
        "q leave the game, quit",
        "? this help; ↑↓ scroll, any other key closes it",
    ] {
        assert!(all.contains(entry), "{entry:?} is not in\n{all}");
    }
    press(&mut app, KeyCode::Up);
    assert!(app.show_keys, "↑ scrolls and leaves the help open");
    press(&mut app, KeyCode::Char('x'));
    assert!(!app.show_keys);
}

#[test]
fn resigning_ends_the_game_and_shows_every_fleet() {
    let mut app = app();
    new_game(&mut app, Preset::Classic, 3);
    start(&mut app);
    place_random(&mut app);
    settle(&mut app);
    typ(&mut app, "R");
    typ(&mut app, "y");
    settle(&mut app);
    // The bots fight on; the person, eliminated, watches with full vision.
    for _ in 0..20_000 {
        if phase(&app) == Phase::Finished {
            break;
        }
        app.update(Msg::Tick);
    }
    assert_eq!(phase(&app), Phase::Finished);
    let text = screen(&app, 80, 24);
    assert!(text.contains("Game over: Bot"), "{text}");
    // Full vision: the bots' fleets are drawn too.
    let bot_board = app
        .play
        .as_ref()
        .and_then(|p| p.view.as_ref())
        .map(|v| v.boards[1].rows.concat())
        .unwrap_or_default();
    assert!(
        bot_board.contains('*') || bot_board.contains('#'),
        "{bot_board}"
    );
}

#[test]
fn a_refused_shot_changes_nothing_and_says_why() {
    let mut app = app();
    new_game(&mut app, Preset::Italia, 2);
    start(&mut app);
    place_random(&mut app);
    settle(&mut app);
    typ(&mut app, ":Z99");
    press(&mut app, KeyCode::Enter);
    let notice = app.notice.clone().expect("the label is refused");
    assert!(
        notice.error && notice.text.contains("outside the board"),
        "{notice:?}"
    );
    typ(&mut app, ":A1");
    press(&mut app, KeyCode::Enter);
    settle(&mut app);
    let before = app.play.as_ref().and_then(|p| p.view.clone());
    typ(&mut app, ":A1");
    press(&mut app, KeyCode::Enter);
    let notice = app
        .notice
        .clone()
        .expect("the second shot at A1 is refused");
    assert!(
        notice.error && notice.text.contains("cannot be targeted"),
        "{notice:?}"
    );
    assert_eq!(app.play.as_ref().and_then(|p| p.view.clone()), before);
}

#[test]
fn space_abilities_are_used_when_ready() {
    let mut app = app();
    new_game(&mut app, Preset::Space, 2);
    start(&mut app);
    settle(&mut app);
    typ(&mut app, "d");
    press(&mut app, KeyCode::Enter);
    place_random(&mut app);
    // Fire until the laser (cycle 3) is ready, then use it.
    for _ in 0..200 {
        settle(&mut app);
        assert_eq!(phase(&app), Phase::Battle, "the game ended before round 3");
        let play = app.play.as_ref().expect("a game is running");
        let view = play.view.as_ref().expect("a view");
        if view.abilities.get("laser").is_some_and(|a| a.ready) {
            break;
        }
        let axis = view.letter_axis;
        let target = groups(&app)
            .into_iter()
            .flatten()
            .next()
            .expect("an open cell");
        typ(&mut app, ":");
        typ(&mut app, &broadside_engine::label(axis, target.at));
        press(&mut app, KeyCode::Enter);
    }
    while app.play.as_ref().and_then(|p| p.action).map(|k| k.id()) != Some("laser") {
        typ(&mut app, "a");
    }
    typ(&mut app, "o");
    let text = screen(&app, 80, 24);
    assert!(
        text.contains(">Laser") && text.contains("laser from the bottom (o)"),
        "{text}"
    );
    press(&mut app, KeyCode::Enter);
    let log = app
        .play
        .as_ref()
        .map(|p| p.log.join("\n"))
        .unwrap_or_default();
    assert!(log.contains("You use the laser"), "{log}");
}

#[test]
fn bots_think_on_worker_threads_and_their_moves_come_back_as_messages() {
    use std::sync::mpsc;
    use std::time::Duration;
    let (sender, receiver) = mpsc::channel();
    let mut app = App::new(
        Config {
            seed: Some(9),
            ..Config::default()
        },
        Some(sender),
    );
    // Three players, the bots at the strongest level: salvo rounds in which
    // the person submits while the bots think.
    new_game(&mut app, Preset::Classic, 3);
    for (i, field) in [Field::Level(0), Field::Level(1)].into_iter().enumerate() {
        while app.form.fields()[app.form.selected] != field {
            press(&mut app, KeyCode::Down);
        }
        while app.form.levels[i] != broadside_ai::Level::Expert {
            press(&mut app, KeyCode::Left);
        }
    }
    assert_eq!(app.form.levels[0], broadside_ai::Level::Expert);
    start(&mut app);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Enter);
    let mut rounds = 0;
    let mut waited = 0;
    while rounds < 3 {
        assert!(waited < 2_000, "the bots never came back");
        if phase(&app) == Phase::Finished {
            break;
        }
        let mine = {
            let play = app.play.as_ref().expect("a game is running");
            let view = play.view.as_ref().expect("a view");
            view.phase == Phase::Battle && play.me.is_some_and(|me| view.to_move.contains(&me))
        };
        if mine {
            for group in groups(&app) {
                for &target in group.iter().take(2) {
                    go_to(&mut app, target);
                    press(&mut app, KeyCode::Enter);
                }
            }
            press(&mut app, KeyCode::Char('x'));
            rounds += 1;
            continue;
        }
        // What the terminal loop does: a tick, then whatever arrives.
        app.update(Msg::Tick);
        if let Ok(msg) = receiver.recv_timeout(Duration::from_millis(50)) {
            app.update(msg);
        }
        waited += 1;
    }
    let log = app
        .play
        .as_ref()
        .map(|p| p.log.join("\n"))
        .unwrap_or_default();
    assert!(log.contains("Salvo round 2"), "{log}");
}

#[test]
fn boards_are_drawn_in_the_colours_of_the_legend_with_a_visible_cursor() {
    use ratatui::style::{Color, Modifier};
    let mut app = battle(Preset::Classic, 2, Default::default());
    typ(&mut app, ":A1");
    press(&mut app, KeyCode::Enter);
    let buffer = drawn(&app, 80, 24);
    // Row A of the target board starts at column 26 (" A " after the own board).
    let row_a = (0..80)
        .map(|x| buffer[(x, 3)].symbol().to_string())
        .collect::<String>();
    let x = row_a.rfind(" A ").expect("row A of the target board") as u16 + 3;
    let a1 = &buffer[(x, 3)];
    assert!(matches!(a1.symbol(), "O" | "X" | "#"), "{row_a}");
    assert!(
        a1.modifier.contains(Modifier::REVERSED),
        "the cursor is on A1"
    );
    // Unknown sea on the target board is drawn in blue.
    let sea = (3..12)
        .flat_map(|y| (1..10).map(move |col| (x + 2 * col, y)))
        .map(|(x, y)| &buffer[(x, y)])
        .find(|cell| cell.symbol() == "~")
        .expect("unknown sea on the target board");
    assert_eq!(sea.fg, Color::Blue);
    for (ch, _) in broadside_tui::LEGEND {
        assert_ne!(
            broadside_tui::cell_style(ch),
            ratatui::style::Style::new(),
            "{ch} has a colour"
        );
    }
}

#[test]
fn my_games_screen_lists_unfinished_games() {
    let mut app = app();
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(app.screen, Screen::NewGame);
    let games = serde_json::json!({"type": "games", "games": [
        {"code": "K7QM2P", "preset": "classic", "phase": "battle", "seat": 0,
         "players": [{"seat": 0, "kind": "person", "nickname": "Ana", "level": null},
                     {"seat": 1, "kind": "bot", "nickname": null, "level": "hard"}],
         "your_turn": true, "updated": 1},
        {"code": "ZX81AB", "preset": "space", "phase": "lobby", "seat": 1,
         "players": [{"seat": 0, "kind": "person", "nickname": "Rui", "level": null},
                     {"seat": 1, "kind": "person", "nickname": "Ana", "level": null},
                     {"seat": 2, "kind": "open", "nickname": null, "level": null}],
         "your_turn": false, "updated": 0}
    ]});
    app.update(Msg::Net(broadside_tui::NetEvent::Frame(games)));
    assert_eq!(app.screen, Screen::MyGames);
    press(&mut app, KeyCode::Down);
    insta::assert_snapshot!(screen(&app, 80, 24));
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(app.screen, Screen::NewGame);
}

// ----- online: quick match, leaderboard, ratings -------------------------------------

/// A client started with `--server`, connected and welcomed. Its link is a
/// channel: what it sends arrives on the receiver, and the server's frames are
/// handed to it as the network thread would hand them.
fn online_app() -> (App, std::sync::mpsc::Receiver<String>) {
    let (out, sent) = std::sync::mpsc::channel();
    let mut app = App::online_over(
        Config {
            server: Some("http://127.0.0.1:9".to_string()),
            nickname: Some("Ana".to_string()),
            seed: Some(42),
            ..Config::default()
        },
        out,
    );
    connect(&mut app, &sent);
    assert_eq!(app.screen, Screen::NewGame);
    assert_eq!(next_sent(&sent)["type"], "my_games");
    (app, sent)
}

/// The link comes up: the client says hello and the server welcomes it.
fn connect(app: &mut App, sent: &std::sync::mpsc::Receiver<String>) {
    app.update(Msg::Net(broadside_tui::NetEvent::Connected));
    assert_eq!(next_sent(sent)["type"], "hello");
    frame(
        app,
        serde_json::json!({"type": "welcome", "token": "0123", "nickname": "Ana"}),
    );
}

/// The next frame the client sent.
fn next_sent(sent: &std::sync::mpsc::Receiver<String>) -> serde_json::Value {
    let text = sent.try_recv().expect("the client sent a frame");
    serde_json::from_str(&text).expect("the client sends JSON")
}

fn frame(app: &mut App, frame: serde_json::Value) {
    app.update(Msg::Net(broadside_tui::NetEvent::Frame(frame)));
}

/// A `room` frame of a started classic duel (Ana in seat 0, Bea in seat 1,
/// both rated) and the `state` frame of its placement, built with the engine.
fn paired_frames(started: bool) -> (serde_json::Value, serde_json::Value) {
    use broadside_engine::{Game, Options, Setup};
    let game = Game::new(&Setup {
        preset: Preset::Classic,
        seats: 2,
        seed: 7,
        options: Options::default(),
        teams: None,
    })
    .expect("a valid setup");
    let room = serde_json::json!({"type": "room", "room": {
        "code": "K7QM2PXWAB", "invite": "/r/K7QM2PXWAB", "preset": "classic",
        "seats": [
            {"seat": 0, "kind": "person", "nickname": "Ana", "level": null, "connected": true,
             "ready": false, "rating": 1662.0, "provisional": false},
            {"seat": 1, "kind": "person", "nickname": "Bea", "level": null, "connected": true,
             "ready": false, "rating": 1500.0, "provisional": true}],
        "host": 0, "spectators": 0, "you": {"seat": 0, "spectator": false, "host": true},
        "started": started, "game": if started { 1 } else { 0 },
        "phase": if started { "placement" } else { "lobby" },
        "setup": {"preset": "classic", "seats": 2, "options": {}, "teams": null,
                  "public": false, "rated": true, "language": "en"},
        "rules": serde_json::to_value(game.rules()).expect("rules are plain data")}});
    let state = serde_json::json!({"type": "state", "events": [],
        "view": serde_json::to_value(game.view(Some(0))).expect("a view is plain data")});
    (room, state)
}

#[test]
fn online_start_offers_quick_match_and_the_leaderboard() {
    let (mut app, sent) = online_app();
    let fields = app.form.fields();
    assert_eq!(
        fields[fields.len() - 3..],
        [Field::Start, Field::QuickMatch, Field::Leaderboard]
    );
    insta::assert_snapshot!(screen(&app, 80, 24));
    // Offline there is nobody to match with.
    assert!(!self::app().form.fields().contains(&Field::QuickMatch));
    // Up from the first row wraps to the last: the leaderboard.
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Leaderboard);
    assert_eq!(
        next_sent(&sent),
        serde_json::json!({"type": "leaderboard", "preset": "classic"})
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::NewGame);
}

#[test]
fn quick_match_waits_counts_offers_a_bot_and_cancels() {
    let (mut app, sent) = online_app();
    // The preset chosen in the form is the one matched: hasbro (one step back).
    press(&mut app, KeyCode::Left);
    assert_eq!(app.form.preset, Preset::Hasbro);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Matching);
    assert_eq!(
        next_sent(&sent),
        serde_json::json!({"type": "quick_match", "preset": "hasbro"})
    );
    let matching = app.matching.as_ref().expect("waiting");
    assert_eq!((matching.preset, matching.waiting), (Preset::Hasbro, None));
    assert!(screen(&app, 80, 24).contains("Asking the server…"));

    frame(
        &mut app,
        serde_json::json!({"type": "matching", "preset": "hasbro", "waiting": 2,
            "waited_ms": 7000, "bot_offer_ms": 20000}),
    );
    insta::assert_snapshot!("quick_match_waiting", screen(&app, 80, 24));
    // b does nothing before a bot is offered.
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.screen, Screen::Matching);
    assert!(sent.try_recv().is_err());

    frame(
        &mut app,
        serde_json::json!({"type": "bot_offer", "preset": "hasbro", "level": "medium"}),
    );
    let offered = screen(&app, 80, 24);
    assert!(
        offered.contains("b: play a medium bot instead") && offered.contains("Esc: cancel"),
        "{offered}"
    );
    assert!(offered.contains("b play the bot"), "{offered}");
    assert!(!offered.contains("a bot is offered in"), "{offered}");
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(next_sent(&sent), serde_json::json!({"type": "accept_bot"}));

    // Esc asks the server to cancel; the answer leads back to the start.
    press(&mut app, KeyCode::Esc);
    assert_eq!(
        next_sent(&sent),
        serde_json::json!({"type": "cancel_match"})
    );
    assert_eq!(app.screen, Screen::Matching);
    frame(&mut app, serde_json::json!({"type": "match_cancelled"}));
    assert_eq!(app.screen, Screen::NewGame);
    assert!(app.matching.is_none());
    assert!(screen(&app, 80, 24).contains("Quick match cancelled."));

    // The link drops while waiting: once welcomed again the client waits again.
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(next_sent(&sent)["type"], "quick_match");
    app.update(Msg::Net(broadside_tui::NetEvent::Closed(
        broadside_tui::CloseReason::Lost,
    )));
    connect(&mut app, &sent);
    assert_eq!(app.screen, Screen::Matching);
    assert_eq!(
        next_sent(&sent),
        serde_json::json!({"type": "quick_match", "preset": "hasbro"})
    );
    // Esc while the link is down leaves at once (the server dropped the wait with it).
    app.update(Msg::Net(broadside_tui::NetEvent::Closed(
        broadside_tui::CloseReason::Lost,
    )));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::NewGame);
    assert!(sent.try_recv().is_err());
    // A refusal that says the wait is over also leads back.
    app.update(Msg::Net(broadside_tui::NetEvent::Connected));
    press(&mut app, KeyCode::Char('m'));
    frame(
        &mut app,
        serde_json::json!({"type": "error", "code": "not_matching",
            "message": "not waiting for a quick match", "request": "cancel_match"}),
    );
    assert_eq!(app.screen, Screen::NewGame);
}

#[test]
fn a_quick_match_pairing_starts_the_game_with_ratings_beside_the_names() {
    let (mut app, sent) = online_app();
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(next_sent(&sent)["type"], "quick_match");
    frame(
        &mut app,
        serde_json::json!({"type": "matching", "preset": "classic", "waiting": 1,
            "waited_ms": 0, "bot_offer_ms": 20000}),
    );
    let (room, state) = paired_frames(true);
    frame(&mut app, room);
    frame(&mut app, state);
    assert_eq!(app.screen, Screen::Play);
    assert!(app.matching.is_none());
    let play = app.play.as_ref().expect("a game");
    assert_eq!(play.ratings, [Some("1662".into()), Some("1500?".into())]);
    let shown = screen(&app, 80, 24);
    assert!(shown.contains("Paired with Bea: a rated game."), "{shown}");
    assert!(shown.contains("Placement: ship 1 of 10"), "{shown}");
    insta::assert_snapshot!(shown);
}

/// An online client in the lobby of a classic room it hosts, before the start.
fn in_lobby() -> (App, std::sync::mpsc::Receiver<String>) {
    let (mut app, sent) = online_app();
    let (room, _) = paired_frames(false);
    frame(&mut app, room);
    assert_eq!(app.screen, Screen::Lobby);
    (app, sent)
}

/// Issue 15 item 15: online the server keeps a started game, so the question
/// says so, and y goes back to the online start (where My games lists the
/// game) instead of ending the program.
#[test]
fn leaving_an_online_game_says_the_server_keeps_it_and_returns_to_the_start() {
    let (mut app, sent) = online_app();
    let (room, state) = paired_frames(true);
    frame(&mut app, room);
    frame(&mut app, state.clone());
    assert_eq!(app.screen, Screen::Play);
    // The placement's first check_layout.
    while sent.try_recv().is_ok() {}
    press(&mut app, KeyCode::Char('q'));
    let asked = screen(&app, 80, 24);
    assert!(
        asked.contains("Leave this game? The server keeps it: continue it from My games"),
        "{asked}"
    );
    assert!(!asked.contains("Unsaved moves are lost"), "{asked}");
    press(&mut app, KeyCode::Char('y'));
    assert!(!app.quit, "y leaves the game, not the program");
    assert_eq!(app.screen, Screen::NewGame);
    assert_eq!(next_sent(&sent), serde_json::json!({"type": "leave"}));
    assert_eq!(next_sent(&sent)["type"], "my_games");
    // A frame of the game still on its way does not pull the person back.
    frame(&mut app, state);
    assert_eq!(app.screen, Screen::NewGame);
    frame(
        &mut app,
        serde_json::json!({"type": "left", "code": "K7QM2PXWAB"}),
    );
    frame(
        &mut app,
        serde_json::json!({"type": "games", "games": [
            {"code": "K7QM2PXWAB", "preset": "classic", "phase": "placement", "seat": 0,
             "players": [{"seat": 0, "kind": "person", "nickname": "Ana", "level": null},
                         {"seat": 1, "kind": "person", "nickname": "Bea", "level": null}],
             "your_turn": true, "updated": 1}]}),
    );
    assert_eq!(app.screen, Screen::MyGames);
    assert!(screen(&app, 80, 24).contains("K7QM2PXWAB"));
}

/// Before the start, leaving gives the seat up, and the question says that.
#[test]
fn leaving_an_online_room_before_the_start_gives_the_seat_up() {
    let (mut app, sent) = in_lobby();
    press(&mut app, KeyCode::Char('q'));
    let asked = screen(&app, 80, 24);
    assert!(
        asked.contains("Leave this room? Your seat is given up"),
        "{asked}"
    );
    press(&mut app, KeyCode::Char('y'));
    assert!(!app.quit);
    assert_eq!(app.screen, Screen::NewGame);
    assert_eq!(next_sent(&sent), serde_json::json!({"type": "leave"}));
}

#[test]
fn the_lobby_shows_ratings_beside_the_names() {
    let (app, _sent) = in_lobby();
    let shown = screen(&app, 80, 24);
    assert!(shown.contains("Seat 1: Ana 1662 (you)"), "{shown}");
    assert!(shown.contains("Seat 2: Bea 1500?"), "{shown}");
}

#[test]
fn leaderboard_lists_ratings_and_switches_presets() {
    let (mut app, sent) = online_app();
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(app.screen, Screen::Leaderboard);
    assert!(screen(&app, 80, 24).contains("Asking the server…"));
    frame(
        &mut app,
        serde_json::json!({"type": "leaderboard", "preset": "classic", "players": [
            {"nickname": "Ana", "rating": 1812.0, "deviation": 60.0, "games": 31, "wins": 24,
             "provisional": false},
            {"nickname": "Bea", "rating": 1662.0, "deviation": 180.0, "games": 3, "wins": 3,
             "provisional": true},
            {"nickname": "Cai", "rating": 1338.0, "deviation": 180.0, "games": 3, "wins": 0,
             "provisional": true}]}),
    );
    insta::assert_snapshot!(screen(&app, 80, 24));

    // Right: the next preset, asked for afresh; a late answer for another is ignored.
    press(&mut app, KeyCode::Right);
    let _ = next_sent(&sent);
    assert_eq!(
        next_sent(&sent),
        serde_json::json!({"type": "leaderboard", "preset": "shared"})
    );
    let board = app.leaderboard.as_ref().expect("on show");
    assert_eq!(
        (board.preset, board.players.as_ref()),
        (Preset::Shared, None)
    );
    frame(
        &mut app,
        serde_json::json!({"type": "leaderboard", "preset": "classic", "players": []}),
    );
    assert!(app
        .leaderboard
        .as_ref()
        .is_some_and(|b| b.players.is_none()));
    frame(
        &mut app,
        serde_json::json!({"type": "leaderboard", "preset": "shared", "players": []}),
    );
    assert!(screen(&app, 80, 24).contains("Nobody is rated in Shared sea yet"));
    // Left twice: back past classic to the last preset.
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Left);
    assert_eq!(
        app.leaderboard.as_ref().map(|b| b.preset),
        Some(Preset::ALL[Preset::ALL.len() - 1])
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::NewGame);
    assert!(app.leaderboard.is_none());
}

#[test]
fn my_games_offers_the_public_entries_below_the_games() {
    let (mut app, sent) = online_app();
    let games = serde_json::json!({"type": "games", "games": [
        {"code": "K7QM2P", "preset": "classic", "phase": "battle", "seat": 0,
         "players": [{"seat": 0, "kind": "person", "nickname": "Ana", "level": null},
                     {"seat": 1, "kind": "bot", "nickname": null, "level": "hard"}],
         "your_turn": true, "updated": 1}]});
    frame(&mut app, games);
    assert_eq!(app.screen, Screen::MyGames);
    // Below the one game: New room, Quick match, Leaderboard.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert!(screen(&app, 80, 24).contains("> Quick match (Classic)"));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Matching);
    assert_eq!(
        next_sent(&sent),
        serde_json::json!({"type": "quick_match", "preset": "classic"})
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(next_sent(&sent)["type"], "cancel_match");
    frame(&mut app, serde_json::json!({"type": "match_cancelled"}));
    assert_eq!(app.screen, Screen::MyGames, "back where it came from");
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Leaderboard);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::MyGames);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::NewGame);
}

// ----- languages (issue 15 item 16) ---------------------------------------------------

#[test]
fn menu_screen_in_italian() {
    let app = app_in(Lang::It);
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("Nuova partita") && shown.contains("Legenda"),
        "{shown}"
    );
    insta::assert_snapshot!(shown);
}

#[test]
fn battle_screen_in_european_portuguese_after_a_shot() {
    let mut app = battle_in(Lang::PtPt, Preset::Classic, 2, Default::default());
    typ(&mut app, ":E5");
    press(&mut app, KeyCode::Enter);
    let shown = screen(&app, 80, 24);
    assert!(
        shown.contains("Disparas sobre E5 de Computador 1"),
        "{shown}"
    );
    insta::assert_snapshot!(shown);
}

/// Every main screen in every language shows words, never a key of the
/// catalogue standing in for a missing one.
#[test]
fn every_screen_speaks_every_language() {
    for lang in Lang::ALL {
        let mut shown = Vec::new();
        let mut app = app_in(lang);
        shown.push(screen(&app, 80, 24));
        new_game(&mut app, Preset::Classic, 3);
        shown.push(screen(&app, 80, 24));
        start(&mut app);
        settle(&mut app);
        shown.push(screen(&app, 80, 24));
        press(&mut app, KeyCode::Char(' '));
        shown.push(screen(&app, 80, 24));
        press(&mut app, KeyCode::Enter);
        settle(&mut app);
        shown.push(screen(&app, 80, 24));
        typ(&mut app, "?");
        shown.push(screen(&app, 80, 24));
        typ(&mut app, "R");
        press(&mut app, KeyCode::Char('s'));
        shown.push(screen(&app, 80, 24));

        let mut app = app_in(lang);
        new_game(&mut app, Preset::Space, 2);
        start(&mut app);
        settle(&mut app);
        shown.push(screen(&app, 80, 24));
        for (preset, seats) in [(Preset::Space, 2), (Preset::Shared, 3), (Preset::Brasil, 2)] {
            let mut app = battle_in(lang, preset, seats, Default::default());
            typ(&mut app, "a");
            shown.push(screen(&app, 80, 24));
        }
        for text in shown {
            assert!(!text.contains("tui."), "{}:\n{text}", lang.id());
        }
    }
}

/// The text of the notice the last key left (empty if none).
fn notice_text(app: &App) -> String {
    app.notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default()
}

#[test]
fn a_volley_counts_its_cells_against_what_it_needs() {
    let options = broadside_engine::Options {
        report: Some(broadside_engine::Report::PerVolley),
        ..Default::default()
    };
    let mut app = battle(Preset::Brasil, 2, options);
    typ(&mut app, ":A1");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        notice_text(&app),
        "Bot 1's waters: 1 of 3 cells chosen; x sends."
    );
    let panel = screen(&app, 80, 24);
    assert!(panel.contains("Bot 1's waters: 1/3"), "{panel}");
    // Sent too early, the volley is refused by the client, saying how many
    // shots it needs, and the chosen cell stays chosen.
    press(&mut app, KeyCode::Char('x'));
    let notice = app.notice.clone().expect("the refusal is shown");
    assert!(notice.error, "{notice:?}");
    assert_eq!(notice.text, "Bot 1's waters: 3 shots needed, 1 chosen.");
    assert_eq!(app.play.as_ref().map(|p| p.picks.len()), Some(1));
}

#[test]
fn a_shared_sea_salvo_names_the_block_that_is_short() {
    let mut app = battle(Preset::Shared, 3, Default::default());
    let panel = screen(&app, 120, 60);
    assert!(
        panel.contains("The sea is split into") && panel.contains("block A1–J10: 0/2"),
        "{panel}"
    );
    // The first cell of the first opponent's block, then x at once.
    let (label, block) = {
        let play = app.play.as_ref().expect("a game");
        let view = play.view.as_ref().expect("a view");
        let dues = view
            .legal_targets
            .as_ref()
            .expect("the seat is to move")
            .waters
            .clone();
        let block = dues[0].block.expect("blocks in the shared sea");
        let origin = view.blocks.as_ref().expect("blocks")[block].origin;
        (broadside_engine::label(view.letter_axis, origin), block)
    };
    typ(&mut app, &format!(":{label}"));
    press(&mut app, KeyCode::Enter);
    assert!(
        notice_text(&app).starts_with("block ") && notice_text(&app).contains("1 of 2 cells"),
        "{} (block {block})",
        notice_text(&app)
    );
    press(&mut app, KeyCode::Char('x'));
    let notice = app.notice.clone().expect("the refusal is shown");
    assert!(notice.error, "{notice:?}");
    assert!(
        notice.text.starts_with("block ") && notice.text.ends_with("2 shots needed, 1 chosen."),
        "{notice:?}"
    );
}

/// The rows of a screen that hold a board's column header: the lines just
/// below the titles, up to the first row label.
fn header_rows(text: &str) -> Vec<String> {
    text.lines()
        .skip(2)
        .take_while(|l| !l.trim_start().starts_with("A "))
        .map(str::to_string)
        .collect()
}

#[test]
fn twenty_columns_have_legible_numbers_at_120_and_at_80_columns() {
    let app = battle(Preset::Space, 2, Default::default());
    for (width, height) in [(120, 40), (80, 24)] {
        let text = screen(&app, width, height);
        // Never two numbers of two digits side by side.
        assert!(!text.contains("1011"), "{width}: {text}");
        let rows = header_rows(&text);
        assert_eq!(rows.len(), 2, "{width}: tens and units: {text}");
        // Tens above units, over the column they name.
        let (tens, units) = (&rows[0], &rows[1]);
        let twenty = units.rfind('0').expect("a units digit 0 of column 20");
        assert_eq!(tens.as_bytes().get(twenty), Some(&b'2'), "{width}: {text}");
        let ten = units[..twenty].rfind('0').expect("column 10");
        assert_eq!(tens.as_bytes().get(ten), Some(&b'1'), "{width}: {text}");
        if width == 120 {
            // Two-character cells: "1 2 3 …" and tens "1 1 1 … 2".
            assert!(units.contains("1 2 3 4 5 6 7 8 9 0 1 2"), "{text}");
            insta::assert_snapshot!(text);
        }
    }
}

#[test]
fn abilities_say_ready_recharging_or_used_up_in_words() {
    let mut app = battle(Preset::Italia, 2, Default::default());
    let text = screen(&app, 80, 24);
    // The air strike waits for round 10: said in words, not "rd 10".
    assert!(text.contains("ready in round 10 ×1"), "{text}");
    assert!(!text.contains("rd "), "{text}");
    // The wide shot has one use: once used, it is used up (not a round that
    // follows the clock).
    typ(&mut app, "a");
    press(&mut app, KeyCode::Enter);
    settle(&mut app);
    let text = screen(&app, 80, 24);
    let line = text
        .lines()
        .find(|l| l.contains("Wide shot"))
        .expect("the wide shot is listed");
    assert!(line.ends_with("used up"), "{text}");
    for lang in Lang::ALL {
        let mut app = battle_in(lang, Preset::Italia, 2, Default::default());
        typ(&mut app, "a");
        press(&mut app, KeyCode::Enter);
        settle(&mut app);
        let text = screen(&app, 80, 24);
        assert!(!text.contains("rd "), "{lang:?}: {text}");
    }
}

#[test]
fn ability_names_are_never_cut_in_any_language() {
    for lang in Lang::ALL {
        let app = battle_in(lang, Preset::Italia, 2, Default::default());
        let text = screen(&app, 80, 24);
        // The panel's column, right of its border.
        let panel: Vec<String> = text
            .lines()
            .filter_map(|l| l.split_once('│').map(|(_, right)| right.trim().to_string()))
            .collect();
        let panel = panel.join(" ");
        for id in ["wide", "bombard", "radar"] {
            let name = lang.t(&format!("special.{id}"));
            assert!(panel.contains(&name), "{lang:?} {name}: {text}");
        }
        if lang == Lang::It {
            insta::assert_snapshot!(text);
        }
    }
}

/// An online client speaking `lang` whose link is a channel, not yet up.
fn online_in(lang: Lang, room: Option<&str>) -> (App, std::sync::mpsc::Receiver<String>) {
    let (out, sent) = std::sync::mpsc::channel();
    let app = App::online_over(
        Config {
            server: Some("http://127.0.0.1:9".to_string()),
            room: room.map(str::to_string),
            nickname: Some("Ana".to_string()),
            seed: Some(42),
            lang,
            ..Config::default()
        },
        out,
    );
    (app, sent)
}

#[test]
fn network_errors_are_told_in_the_players_language() {
    use broadside_tui::CloseReason;
    let host = "127.0.0.1:9".to_string();
    let reasons = [
        CloseReason::Unresolved { host: host.clone() },
        CloseReason::Unreachable { host: host.clone() },
        CloseReason::Refused,
        CloseReason::Lost,
        CloseReason::ServerClosed,
        CloseReason::Closed,
    ];
    for reason in &reasons {
        let english = reason.words(Lang::En);
        for lang in Lang::ALL {
            let (mut app, _sent) = online_in(lang, None);
            app.update(Msg::Net(broadside_tui::NetEvent::Closed(reason.clone())));
            let text = notice_text(&app);
            assert!(text.contains(&reason.words(lang)), "{lang:?}: {text}");
            if lang != Lang::En {
                assert!(!text.contains(&english), "{lang:?}: English left in {text}");
            }
        }
    }
    // The words of the operating system ("Connection refused (os error
    // 111)") never reach the screen: a real refused connection on loopback.
    let (to_app, from_net) = std::sync::mpsc::channel();
    let _app = App::new(
        Config {
            server: Some("http://127.0.0.1:1".to_string()),
            ..Config::default()
        },
        Some(to_app),
    );
    let reason = loop {
        match from_net
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the network thread reports")
        {
            Msg::Net(broadside_tui::NetEvent::Closed(reason)) => break reason,
            _ => continue,
        }
    };
    assert_eq!(
        reason,
        CloseReason::Unreachable {
            host: "127.0.0.1:1".into()
        }
    );
    assert_eq!(
        reason.words(Lang::It),
        "impossibile raggiungere 127.0.0.1:1"
    );
    // A refusal with a code the catalogue does not know: no English inside
    // Italian either.
    let (mut app, sent) = online_in(Lang::It, None);
    connect(&mut app, &sent);
    frame(
        &mut app,
        serde_json::json!({"type": "error", "code": "some_new_code",
            "message": "something in English", "request": "chat"}),
    );
    let text = notice_text(&app);
    assert!(!text.contains("English"), "{text}");
    assert!(text.contains("some_new_code"), "{text}");
}

#[test]
fn creating_the_room_is_forgotten_once_the_room_is_there() {
    let (mut app, sent) = online_app();
    press(&mut app, KeyCode::Enter);
    assert_eq!(next_sent(&sent)["type"], "create_room");
    assert_eq!(notice_text(&app), "Creating the room…");
    let (room, state) = paired_frames(false);
    frame(&mut app, room);
    assert_eq!(app.screen, Screen::Lobby);
    assert!(!screen(&app, 80, 24).contains("Creating the room"));
    // And through the game.
    let (room, _) = paired_frames(true);
    frame(&mut app, room);
    frame(&mut app, state);
    let shown = screen(&app, 80, 24);
    assert!(!shown.contains("Creating the room"), "{shown}");
    // Something said by the frame that moved the game on stays.
    let (mut app, sent) = online_app();
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(next_sent(&sent)["type"], "quick_match");
    let (room, state) = paired_frames(true);
    frame(&mut app, room);
    frame(&mut app, state);
    assert!(notice_text(&app).contains("Paired with Bea"));
}

/// The round on each terminal's status line, if any.
fn round_shown(app: &App) -> Option<String> {
    let top = screen(app, 120, 40)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    top.split(" · ")
        .find(|part| part.starts_with("round "))
        .map(str::to_string)
}

#[test]
fn two_terminals_never_show_two_different_rounds() {
    use broadside_engine::{Cell, Command, Game, Options, Setup, Target};
    let mut game = Game::new(&Setup {
        preset: Preset::Classic,
        seats: 2,
        seed: 7,
        options: Options {
            first: Some(0),
            hit_again: Some(false),
            turn_seconds: Some(0),
            place_seconds: Some(0),
            ..Options::default()
        },
        teams: None,
    })
    .expect("a valid setup");
    for seat in 0..2 {
        game.apply(Command::PlaceRandom { seat })
            .expect("random placement succeeds");
    }
    let terminals = |game: &Game| -> Vec<Option<String>> {
        (0..2)
            .map(|me| {
                let copy = Game::load(&game.save()).expect("a save loads");
                let levels = (0..2).map(|s| (s != me).then_some(broadside_ai::Level::Medium));
                round_shown(&App::offline(
                    app().config.clone(),
                    copy,
                    me,
                    levels.collect(),
                ))
            })
            .collect()
    };
    // Each turn of the first rounds, both terminals at the same moment.
    let mut shown = Vec::new();
    for turn in 0..6u16 {
        let rounds = terminals(&game);
        let numbers: std::collections::BTreeSet<&String> = rounds.iter().flatten().collect();
        assert!(numbers.len() <= 1, "turn {turn}: {rounds:?}");
        shown.extend(rounds.into_iter().flatten());
        let seat = game.to_move()[0];
        let target = Target {
            board: 1 - seat,
            at: Cell::new(turn, turn),
        };
        game.apply(Command::Fire { seat, target })
            .expect("a shot at an open cell");
    }
    // The number is there, on the terminal of the player to move.
    assert!(shown.contains(&"round 3".to_string()), "{shown:?}");
}

#[test]
fn a_wrong_room_code_says_so_and_offers_a_way_out() {
    let (mut app, sent) = online_in(Lang::En, Some("NOSUCHROOM"));
    connect(&mut app, &sent);
    assert_eq!(next_sent(&sent)["type"], "join_room");
    assert_eq!(app.screen, Screen::Lobby);
    frame(
        &mut app,
        serde_json::json!({"type": "error", "code": "room_not_found",
            "message": "no room has that code", "request": "join_room"}),
    );
    let shown = screen(&app, 80, 24);
    assert!(!shown.contains("Waiting for the server"), "{shown}");
    assert!(
        shown.contains("There is no room with that code. Create a room here, or q quits."),
        "{shown}"
    );
    assert_eq!(app.screen, Screen::NewGame);
    assert_eq!(next_sent(&sent)["type"], "my_games");
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn with_the_server_unreachable_the_first_q_quits() {
    let (mut app, _sent) = online_in(Lang::En, None);
    app.update(Msg::Net(broadside_tui::NetEvent::Closed(
        broadside_tui::CloseReason::Unreachable {
            host: "127.0.0.1:9".into(),
        },
    )));
    assert_eq!(app.screen, Screen::Lobby);
    assert!(screen(&app, 80, 24).contains("cannot reach 127.0.0.1:9"));
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit, "{}", screen(&app, 80, 24));
    assert!(app.prompt.is_none());
}

#[test]
fn after_resigning_header_panel_and_keys_agree_that_you_are_out() {
    // Three players: the others play on while the person watches.
    let mut app = battle(Preset::Classic, 3, Default::default());
    typ(&mut app, "R");
    typ(&mut app, "y");
    let text = screen(&app, 80, 24);
    let top = text.lines().next().unwrap_or("");
    assert!(top.contains("You are out"), "{text}");
    assert!(!top.contains("Salvo sent"), "{text}");
    let you = text
        .lines()
        .find(|l| l.contains("│You "))
        .expect("the fleets list you");
    assert!(
        you.trim_end().ends_with("out") && !you.contains("10/10"),
        "{text}"
    );
    let keys = text.lines().last().unwrap_or("");
    assert!(!keys.contains("fire") && !keys.contains("send"), "{text}");
    insta::assert_snapshot!(text);
    for _ in 0..3 {
        app.update(Msg::Tick);
    }
    let text = screen(&app, 80, 24);
    assert!(
        text.lines()
            .next()
            .unwrap_or("")
            .contains("You are out · Bot"),
        "{text}"
    );
    // Two players: the game is over, and the panel says so too.
    let mut app = battle(Preset::Classic, 2, Default::default());
    typ(&mut app, "R");
    typ(&mut app, "y");
    let text = screen(&app, 80, 24);
    assert!(text.contains("Your fleet is lost."), "{text}");
    assert!(!text.contains("You              10/10"), "{text}");
}

/// The symbols of one board row of a screen (row label `row`), left board.
fn board_row(text: &str, row: &str) -> String {
    text.lines()
        .find(|l| l.trim_start().starts_with(&format!("{row} ")))
        .map(|l| l.split('│').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

#[test]
fn placement_legality_shows_without_colour_and_the_legend_names_every_mark() {
    let mut app = placing_classic();
    // Where it fits: "@", and the legend says so.
    let text = screen(&app, 80, 24);
    assert!(board_row(&text, "A").contains("@ @ @ @"), "{text}");
    assert!(
        text.contains("@ fits") && text.contains("x no fit"),
        "{text}"
    );
    // The battleship at the top left; the cruiser one row down would touch it:
    // "x", in the text alone (what a terminal without colour shows).
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Down);
    let text = screen(&app, 80, 24);
    assert!(board_row(&text, "B").contains("x x x"), "{text}");
    assert!(!board_row(&text, "B").contains('@'), "{text}");
    insta::assert_snapshot!(text);
    // In battle the legend has the mark of a chosen cell, as drawn.
    let options = broadside_engine::Options {
        report: Some(broadside_engine::Report::PerVolley),
        ..Default::default()
    };
    let mut app = battle(Preset::Brasil, 2, options);
    let text = screen(&app, 80, 24);
    assert!(text.contains("o chosen"), "{text}");
    typ(&mut app, ":C3");
    press(&mut app, KeyCode::Enter);
    let text = screen(&app, 80, 24);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("3 "))
        .unwrap_or("");
    assert!(row.contains('o'), "{text}");
}

#[test]
fn vi_keys_move_like_the_arrows_without_taking_other_letters() {
    // Battle: h j k l move the cursor.
    let mut app = battle(Preset::Classic, 2, Default::default());
    let cursor = |app: &App| app.play.as_ref().map(|p| p.cursor).expect("a game");
    typ(&mut app, "jjl");
    assert_eq!(cursor(&app), broadside_engine::Cell::new(1, 2));
    typ(&mut app, "kh");
    assert_eq!(cursor(&app), broadside_engine::Cell::new(0, 1));
    // Placement: they move the ship.
    let mut app = placing_classic();
    let at = |app: &App| {
        app.play
            .as_ref()
            .and_then(|p| p.placing.as_ref())
            .map(|p| p.at)
            .expect("placing")
    };
    typ(&mut app, "jl");
    assert_eq!(at(&app), broadside_engine::Cell::new(1, 1));
    // The menu: j and k choose; l still loads a game.
    let mut app = self::app();
    typ(&mut app, "j");
    assert_eq!(app.menu, 1);
    typ(&mut app, "k");
    assert_eq!(app.menu, 0);
    typ(&mut app, "l");
    assert!(app.prompt.is_some(), "l opens the load prompt");
    // The help lists them.
    let mut app = battle(Preset::Classic, 2, Default::default());
    typ(&mut app, "?");
    let text = screen(&app, 120, 40);
    assert!(
        text.contains("h j k l = arrows") && text.contains("PgUp PgDn"),
        "{text}"
    );
}

#[test]
fn the_log_scrolls_back_with_page_up_and_down() {
    let mut app = battle(Preset::Classic, 2, Default::default());
    // Enough shots for a log longer than its few rows.
    for row in 0..10u16 {
        let label = broadside_engine::label(
            broadside_engine::LetterAxis::Rows,
            broadside_engine::Cell::new(row, row),
        );
        typ(&mut app, &format!(":{label}"));
        press(&mut app, KeyCode::Enter);
        settle(&mut app);
        if phase(&app) == Phase::Finished {
            break;
        }
    }
    let log = app.play.as_ref().map(|p| p.log.clone()).expect("a game");
    assert!(log.len() > 12, "{log:?}");
    let newest = screen(&app, 80, 24);
    assert!(newest.contains(&log[log.len() - 1]), "{newest}");
    assert!(!newest.contains(&format!(" {}\n", log[0])), "{newest}");
    assert!(newest.contains("PgUp older lines"), "{newest}");
    press(&mut app, KeyCode::PageUp);
    let back = screen(&app, 80, 24);
    assert!(back.contains("5 newer lines · End"), "{back}");
    assert!(back.contains(&log[log.len() - 6]), "{back}");
    // Home shows the first line; End the newest again.
    press(&mut app, KeyCode::Home);
    let oldest = screen(&app, 80, 24);
    assert!(oldest.contains(&log[0]), "{oldest}");
    assert!(oldest.contains("0 older"), "{oldest}");
    press(&mut app, KeyCode::End);
    assert_eq!(screen(&app, 80, 24), newest);
    // A scrolled log keeps its place as new lines arrive.
    press(&mut app, KeyCode::PageUp);
    let before = app.play.as_ref().map(|p| p.log_scroll.get()).unwrap_or(0);
    typ(&mut app, ":J1");
    press(&mut app, KeyCode::Enter);
    let after = app.play.as_ref().map(|p| p.log_scroll.get()).unwrap_or(0);
    let added = app.play.as_ref().map(|p| p.log.len()).unwrap_or(0) - log.len();
    assert_eq!(after, before + added);
}

#[test]
fn two_terminals_at_once_never_share_a_seat_identity() {
    let dir = std::env::temp_dir().join(format!("broadside-tui-tokens-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let token_file = dir.join("token");
    std::fs::write(&token_file, "stored-token").expect("a token file");
    let terminal = || {
        let (out, sent) = std::sync::mpsc::channel();
        let mut app = App::online_over(
            Config {
                server: Some("http://127.0.0.1:9".to_string()),
                token_file: Some(token_file.clone()),
                seed: Some(42),
                ..Config::default()
            },
            out,
        );
        app.update(Msg::Net(broadside_tui::NetEvent::Connected));
        let hello = next_sent(&sent);
        assert_eq!(hello["type"], "hello");
        (app, sent, hello["token"].as_str().map(str::to_string))
    };
    // The first terminal is the stored player (its ratings, its games).
    let (first, _sent, token) = terminal();
    assert_eq!(token.as_deref(), Some("stored-token"));
    // A second one at the same time is a guest of its own, kept beside.
    let (mut second, _sent2, token) = terminal();
    assert_eq!(token, None);
    frame(
        &mut second,
        serde_json::json!({"type": "welcome", "token": "guest-token", "nickname": "Guest"}),
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("token.2")).ok().as_deref(),
        Some("guest-token")
    );
    assert_eq!(
        std::fs::read_to_string(&token_file).ok().as_deref(),
        Some("stored-token")
    );
    // Once the first has ended, the next terminal is the stored player again.
    drop(first);
    let (_third, _sent3, token) = terminal();
    assert_eq!(token.as_deref(), Some("stored-token"));
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether a screen shows any board: its cells or its titles.
fn shows_a_board(text: &str) -> bool {
    text.contains('~') || text.contains("waters") || text.contains("1 2 3")
}

/// Hot-seat: the person to act, and a hand-over screen in between.
fn hand_over(app: &mut App, to: usize) {
    let play = app.play.as_ref().expect("a game");
    assert_eq!(play.handover, Some(to), "{}", screen(app, 80, 24));
    let text = screen(app, 80, 24);
    assert!(
        !shows_a_board(&text),
        "a board shows between turns:\n{text}"
    );
    assert!(
        text.contains(&format!("Pass the terminal to Player {}.", to + 1)),
        "{text}"
    );
    // No other key gets past it.
    typ(app, " xfa");
    press(app, KeyCode::Down);
    assert_eq!(app.play.as_ref().and_then(|p| p.handover), Some(to));
    press(app, KeyCode::Enter);
    let play = app.play.as_ref().expect("a game");
    assert_eq!((play.handover, play.me), (None, Some(to)));
}

#[test]
fn hot_seat_duel_hands_the_terminal_over_with_every_board_hidden() {
    let mut app = self::app();
    new_game(&mut app, Preset::Classic, 2);
    // The "People here" row: two people, no bot.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    assert_eq!(app.form.people, 2);
    let form = screen(&app, 80, 24);
    assert!(form.contains("2, passing the terminal"), "{form}");
    assert!(form.contains("person 2 at this terminal"), "{form}");
    start(&mut app);
    // Player 1 places, then hands over to Player 2, who places too.
    place_random(&mut app);
    hand_over(&mut app, 1);
    let placing = screen(&app, 80, 24);
    assert!(placing.contains("Placement: ship 1 of 10"), "{placing}");
    place_random(&mut app);
    hand_over(&mut app, 0);
    assert_eq!(phase(&app), Phase::Battle);
    // Shots pass the terminal back and forth; each sees their own log.
    let mut turns = 0;
    while phase(&app) != Phase::Finished {
        let play = app.play.as_ref().expect("a game");
        if let Some(next) = play.handover {
            hand_over(&mut app, next);
            turns += 1;
            continue;
        }
        let me = play.me.expect("a seat");
        let view = play.view.as_ref().expect("a view");
        assert!(view.to_move.contains(&me));
        let at = groups(&app)
            .into_iter()
            .flatten()
            .next()
            .expect("an open cell")
            .at;
        let label = broadside_engine::label(view.letter_axis, at);
        typ(&mut app, &format!(":{label}"));
        press(&mut app, KeyCode::Enter);
        if turns == 2 {
            insta::assert_snapshot!(screen(&app, 80, 24));
        }
    }
    assert!(turns > 20, "{turns}");
    let text = screen(&app, 80, 24);
    assert!(text.contains("Game over"), "{text}");
}

#[test]
fn hot_seat_salvo_with_three_people_and_a_bot() {
    let mut app = self::app();
    new_game(&mut app, Preset::Classic, 4);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Right);
    press(&mut app, KeyCode::Right);
    assert_eq!((app.form.people, app.form.seats), (3, 4));
    start(&mut app);
    let mut handovers = Vec::new();
    for _ in 0..3 {
        place_random(&mut app);
        if let Some(next) = app.play.as_ref().and_then(|p| p.handover) {
            handovers.push(next);
            hand_over(&mut app, next);
        }
    }
    assert_eq!(handovers, [1, 2]);
    settle(&mut app);
    assert_eq!(phase(&app), Phase::Battle);
    // A salvo round: each person sends a salvo in turn; the bot's comes by
    // itself; a hand-over screen between every two people.
    for round in 0..3 {
        for _person in 0..3 {
            settle(&mut app);
            if let Some(next) = app.play.as_ref().and_then(|p| p.handover) {
                hand_over(&mut app, next);
            }
            let play = app.play.as_ref().expect("a game");
            let view = play.view.as_ref().expect("a view");
            if view.phase == Phase::Finished {
                return;
            }
            let me = play.me.expect("a seat");
            assert!(
                view.salvo_round && view.to_move.contains(&me),
                "round {round}"
            );
            // Spread: two shots on every opponent.
            for group in groups(&app) {
                for target in group.into_iter().take(2) {
                    go_to(&mut app, target);
                    press(&mut app, KeyCode::Enter);
                }
            }
            typ(&mut app, "x");
            let after = app.play.as_ref().expect("a game");
            assert!(
                after.handover.is_some()
                    || after
                        .view
                        .as_ref()
                        .is_some_and(|v| !v.to_move.contains(&me)),
                "round {round}: {:?}",
                app.notice
            );
        }
    }
}

#[test]
fn hot_seat_from_the_command_line_opens_the_form_set_for_the_people() {
    let mut app = App::new(
        Config {
            seed: Some(42),
            hot_seat: Some(3),
            ..Config::default()
        },
        None,
    );
    assert_eq!(app.screen, Screen::NewGame);
    assert_eq!((app.form.people, app.form.seats), (3, 3));
    let text = screen(&app, 80, 24);
    assert!(
        text.contains("3 people at this terminal: choose the game, then Start."),
        "{text}"
    );
    assert!(text.contains("3, passing the terminal"), "{text}");
    assert!(
        text.contains("The 3 people here take the first seats"),
        "{text}"
    );
    // Three people and no bot: the first hands over to the second.
    start(&mut app);
    place_random(&mut app);
    hand_over(&mut app, 1);
}
