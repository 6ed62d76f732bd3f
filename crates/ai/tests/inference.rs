//! The inference of the `bayes` strategy: what it must and must not believe.

use broadside_ai::infer::{probabilities, probabilities_and_layouts, Effort};
use broadside_ai::model::{self, Area, HiddenShip, Known, VolleyFact};
use broadside_ai::{Bot, Strategy};
use broadside_engine::{
    Cell, Command, Game, Options, Phase, Preset, Report, Setup, Shape, Size, Target,
};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

const EFFORT: Effort = Effort {
    evaluations: 400_000,
    min_sweeps: 200,
    max_sweeps: 2_000,
};

/// An area drawn as rows of view characters, hiding ships of the given lengths.
fn area(rows: &[&str], lengths: &[u16], no_touch: bool) -> Area {
    let size = Size::new(rows[0].len() as u16, rows.len() as u16);
    let cells = rows
        .iter()
        .flat_map(|r| r.chars())
        .map(|ch| match ch {
            '~' => Known::Unknown,
            'X' => Known::Hit,
            '!' => Known::Scanned,
            '+' => Known::Fired,
            '#' => Known::Sunk,
            _ => Known::Water,
        })
        .collect::<Vec<_>>();
    let mut types: Vec<(String, Shape)> = Vec::new();
    let mut ships = Vec::new();
    for &len in lengths {
        let kind = match types.iter().position(|(_, s)| s.len() == len as usize) {
            Some(k) => k,
            None => {
                types.push((format!("ship{len}"), Shape::line(len)));
                types.len() - 1
            }
        };
        ships.push(HiddenShip { kind });
    }
    let types_len = types.len();
    Area {
        board: 1,
        origin: Cell::new(0, 0),
        size,
        owner: Some(1),
        hit_kind: vec![None; cells.len()],
        cells,
        sunk_by_kind: vec![0; types.len()],
        types,
        ships,
        no_touch,
        hard: false,
        volleys: Vec::new(),
        sunk_ships: Vec::new(),
        tight_tilt: 0.0,
        ranks: (0..types_len).collect(),
        sequential_prior: false,
    }
}

fn p_at(p: &[f64], size: Size, col: u16, row: u16) -> f64 {
    p[size.index(Cell::new(col, row))]
}

#[test]
fn known_cells_get_no_probability() {
    let a = area(
        &["~O~~~~", "~~X~~~", "~~~.~~", "~~~~~~", "#~~!~~", "~~~~~~"],
        &[3, 2],
        true,
    );
    let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(1));
    for (i, k) in a.cells.iter().enumerate() {
        if !k.targetable() {
            assert_eq!(p[i], 0.0, "cell {i} ({k:?}) is known");
        }
    }
    // A scanned ship part is certain.
    assert!(p_at(&p, a.size, 3, 4) > 0.99, "{}", p_at(&p, a.size, 3, 4));
}

#[test]
fn no_touching_rules_out_the_diagonals_of_a_hit() {
    let a = area(
        &["~~~~~~", "~~~~~~", "~~X~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
        &[3, 2],
        true,
    );
    let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(2));
    for (c, r) in [(1, 1), (3, 1), (1, 3), (3, 3)] {
        assert!(
            p_at(&p, a.size, c, r) < 1e-9,
            "diagonal ({c},{r}) = {}",
            p_at(&p, a.size, c, r)
        );
    }
    // The hit's ship continues on one of the four sides.
    let sides: f64 = [(2, 1), (2, 3), (1, 2), (3, 2)]
        .iter()
        .map(|&(c, r)| p_at(&p, a.size, c, r))
        .sum();
    assert!(sides > 0.99, "{sides}");
    // Where ships may touch, a second ship may lie on a diagonal.
    let touching = area(
        &["~~~~~~", "~~~~~~", "~~X~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
        &[3, 2],
        false,
    );
    let p = probabilities(&touching, EFFORT, &mut Pcg64Mcg::seed_from_u64(2));
    assert!(p_at(&p, touching.size, 1, 1) > 0.01);
}

#[test]
fn sunk_ships_and_their_surroundings_hold_nothing() {
    // No water ring (shared sea), but still keeps the neighbours empty.
    let mut a = area(
        &["~~~~~~", "~###~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
        &[2],
        true,
    );
    a.sunk_ships.push((0, vec![7, 8, 9]));
    let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(3));
    for i in [0, 1, 2, 3, 4, 6, 10, 12, 13, 14, 15, 16] {
        assert!(p[i] < 1e-9, "cell {i} touches the sunk ship: {}", p[i]);
    }
    assert!(p.iter().sum::<f64>() > 1.99, "the destroyer is somewhere");
}

#[test]
fn an_afloat_ship_is_never_entirely_hit() {
    // Two hits in a row and one destroyer afloat: it cannot be exactly those
    // two cells (it would have sunk), so a third ship part lies at an end.
    let a = area(
        &["~~~~~~", "~~XX~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
        &[3],
        false,
    );
    let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(4));
    let ends = p_at(&p, a.size, 1, 1) + p_at(&p, a.size, 4, 1);
    assert!(ends > 0.99, "{ends}");
    let lone = area(
        &["~~~~~~", "~~XX~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
        &[2],
        false,
    );
    let p = probabilities(&lone, EFFORT, &mut Pcg64Mcg::seed_from_u64(4));
    // A destroyer on those hits would have sunk; no layout explains them, so
    // the sampler reports its best effort but never more than one ship.
    assert!(p.iter().sum::<f64>() <= 2.0 + 1e-9);
}

#[test]
fn hard_rule_volley_counts_locate_the_ships() {
    // One destroyer; a volley of three far-apart cells hit once, so the
    // destroyer lies across exactly one of them and its other cell is next to it.
    let mut a = area(
        &["+~~~~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~", "+~~~~+"],
        &[2],
        false,
    );
    a.hard = true;
    a.volleys.push(VolleyFact {
        cells: vec![0, 30, 35],
        hits_by_kind: vec![1],
    });
    let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(5));
    let near: f64 = [1, 6, 24, 31, 29, 34].iter().map(|&i| p[i]).sum();
    assert!(near > 0.99, "{near} {p:?}");
    // A volley that hit nothing clears its cells' neighbourhood of that hope.
    let mut b = a.clone();
    b.volleys[0].hits_by_kind = vec![0];
    b.cells[0] = Known::Water;
    b.cells[30] = Known::Water;
    b.cells[35] = Known::Water;
    let p = probabilities(&b, EFFORT, &mut Pcg64Mcg::seed_from_u64(5));
    let near: f64 = [1, 6, 24, 31, 29, 34].iter().map(|&i| p[i]).sum();
    assert!(near < 0.7, "{near}");
}

#[test]
fn hard_rule_sunk_count_says_where_a_ship_is_not() {
    // Two fired cells side by side, both hit (a 3-hit volley would show X; here
    // the volley said 2 of 3) and the destroyer reported sunk: it lies on them.
    let mut a = area(
        &["++~~~~", "~~~~~~", "~~~~~+", "~~~~~~", "~~~~~~", "~~~~~~"],
        &[2, 3],
        false,
    );
    a.hard = true;
    a.sunk_by_kind = vec![1, 0];
    a.volleys.push(VolleyFact {
        cells: vec![0, 1, 17],
        hits_by_kind: vec![2, 0],
    });
    let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(6));
    // The cruiser is not on the volley's cells, so it is anywhere else.
    let total: f64 = p.iter().sum();
    assert!((total - 3.0).abs() < 0.05, "{total}");
}

/// Plays a practice game and checks every bayes decision against the view.
#[test]
fn bayes_fires_only_where_it_may_and_reads_volleys_through_observe() {
    for (preset, options) in [
        (Preset::Classic, Options::default()),
        (
            Preset::Brasil,
            Options {
                report: Some(Report::PerVolley),
                ..Options::default()
            },
        ),
    ] {
        let setup = Setup {
            preset,
            seats: 2,
            seed: 11,
            options: Options {
                practice: Some(true),
                ..options
            },
            teams: None,
        };
        let mut game = Game::new(&setup).expect("valid setup");
        game.apply(Command::PlaceRandom { seat: 0 })
            .expect("placed");
        game.apply(Command::PlaceRandom { seat: 1 })
            .expect("placed");
        let mut bot = Bot::new(Strategy::Bayes, 3);
        let mut memory = model::Memory::default();
        while game.phase() != Phase::Finished {
            let view = game.view(Some(0));
            let areas = model::areas(0, &view, game.rules(), &memory);
            assert_eq!(areas.len(), 1);
            if preset == Preset::Brasil {
                let fired = areas[0]
                    .cells
                    .iter()
                    .filter(|k| **k != Known::Unknown)
                    .count();
                let volleys: usize = areas[0].volleys.iter().map(|v| v.cells.len()).sum();
                assert_eq!(
                    fired, volleys,
                    "every fired cell comes from an observed volley"
                );
            }
            let command = bot.next_command(&view, game.rules()).expect("a move");
            let cells: Vec<Cell> = match &command {
                Command::Fire {
                    target: Target { at, .. },
                    ..
                } => vec![*at],
                Command::Volley { cells, .. } => cells.clone(),
                other => panic!("unexpected {other:?}"),
            };
            for at in cells {
                assert!(
                    areas[0].cells[view.board_size.index(at)].targetable(),
                    "fired at a known cell {at:?}"
                );
            }
            let events = game.apply(command).expect("legal");
            let mine = game.events_for(Some(0), &events);
            bot.observe(&mine);
            memory.observe(&mine);
        }
    }
}

/// The exact posterior of a small position without volleys: every layout of
/// straight ships that avoids water, explains every hit, leaves no afloat ship
/// entirely hit and (when asked) keeps ships apart, counted once per ordering
/// of the ships (the same factor for every layout).
fn exact_marginals(a: &Area, lengths: &[u16]) -> Vec<f64> {
    exact_marginals_with(a, lengths, false)
}

/// Exact marginals; with `sequential` every layout weighs what the engine's
/// random placement gives it, ships placed in the order of `lengths`: on a
/// square board each ship takes any position still free at its turn with the
/// same chance, so a layout weighs the product of 1 / (free positions).
fn exact_marginals_with(a: &Area, lengths: &[u16], sequential: bool) -> Vec<f64> {
    let size = a.size;
    let n = a.cells.len();
    let mut placements: Vec<Vec<Vec<usize>>> = Vec::new();
    let mut every: Vec<Vec<Vec<usize>>> = Vec::new();
    for &len in lengths {
        let mut list = Vec::new();
        let mut all = Vec::new();
        for (dc, dr) in [(1u16, 0u16), (0, 1)] {
            if len == 1 && dr == 1 {
                continue;
            }
            for row in 0..size.rows {
                for col in 0..size.cols {
                    let cells: Option<Vec<usize>> = (0..len)
                        .map(|k| {
                            let c = Cell::new(col + dc * k, row + dr * k);
                            size.contains(c).then(|| size.index(c))
                        })
                        .collect();
                    let Some(cells) = cells else { continue };
                    all.push(cells.clone());
                    let on_water = cells
                        .iter()
                        .any(|&i| matches!(a.cells[i], Known::Water | Known::Sunk));
                    let all_hit = cells.iter().all(|&i| a.cells[i] == Known::Hit);
                    if !on_water && !all_hit {
                        list.push(cells);
                    }
                }
            }
        }
        placements.push(list);
        every.push(all);
    }
    struct Walk<'a> {
        a: &'a Area,
        placements: Vec<Vec<Vec<usize>>>,
        every: Vec<Vec<Vec<usize>>>,
        sequential: bool,
    }
    fn walk(
        w: &Walk,
        depth: usize,
        weight: f64,
        taken: &mut Vec<u8>,
        counts: &mut [f64],
        total: &mut f64,
    ) {
        let (a, placements) = (w.a, &w.placements);
        let size = a.size;
        if depth == placements.len() {
            let explained = a
                .cells
                .iter()
                .zip(taken.iter())
                .all(|(k, &t)| !k.must_be_ship() || t == 1);
            if explained {
                *total += weight;
                for (c, &t) in counts.iter_mut().zip(taken.iter()) {
                    if t == 1 {
                        *c += weight;
                    }
                }
            }
            return;
        }
        let free = |cells: &Vec<usize>| {
            cells
                .iter()
                .all(|&i| taken[i] != 1 && !(a.no_touch && taken[i] == 2))
        };
        let step = if w.sequential {
            let room = w.every[depth].iter().filter(|c| free(c)).count() as f64;
            1.0 / room
        } else {
            1.0
        };
        for cells in &placements[depth] {
            // 1 = a ship part, 2 = a neighbour of one (only with no touching).
            let blocked = cells.iter().any(|&i| {
                taken[i] == 1
                    || (a.no_touch && taken[i] == 2)
                    || (a.no_touch
                        && size
                            .neighbours(size.cell(i))
                            .any(|c| a.cells[size.index(c)] == Known::Sunk))
            });
            if blocked {
                continue;
            }
            let before = taken.clone();
            for &i in cells {
                taken[i] = 1;
            }
            if a.no_touch {
                for &i in cells {
                    for c in size.neighbours(size.cell(i)) {
                        let j = size.index(c);
                        if taken[j] == 0 {
                            taken[j] = 2;
                        }
                    }
                }
            }
            // The tight tilt: the cells this ship covers or touches that no
            // known ship part covers or touches.
            let known = |i: usize| a.cells[i].must_be_ship() || a.cells[i] == Known::Sunk;
            let near_known =
                |i: usize| known(i) || size.neighbours(size.cell(i)).any(|c| known(size.index(c)));
            let fresh = (0..a.cells.len())
                .filter(|&i| {
                    !near_known(i)
                        && (cells.contains(&i)
                            || size
                                .neighbours(size.cell(i))
                                .any(|c| cells.contains(&size.index(c))))
                })
                .count();
            let tilt = (-a.tight_tilt * fresh as f64).exp();
            walk(w, depth + 1, weight * step * tilt, taken, counts, total);
            *taken = before;
        }
    }
    let w = Walk {
        a,
        placements,
        every,
        sequential,
    };
    let mut counts = vec![0.0; n];
    let mut total = 0.0;
    walk(&w, 0, 1.0, &mut vec![0; n], &mut counts, &mut total);
    assert!(total > 0.0, "the position has a layout");
    let marginals = counts
        .iter()
        .zip(&a.cells)
        .map(|(c, k)| if k.targetable() { c / total } else { 0.0 })
        .collect();
    marginals
}

/// Two positions with hits to explain, ships touching and apart.
const WITH_HITS: [(&[&str], &[u16], bool); 2] = [
    (
        &["~~~~~~", "~~X~~~", "~~~~O~", "~O~~~~", "~~~~~~", "~~~X~~"],
        &[4, 3, 2],
        false,
    ),
    (
        &["~~~~~~", "~~X~~~", "~~~~~~", "~~O~~~", "~~~~~~", "~~~~~~"],
        &[3, 2, 2],
        true,
    ),
];

/// The layouts the admiral plays out: each one consistent with what is known
/// (every hit explained, no ship on water, none overlapping, none touching
/// where ships may not), and together distributed like the exact posterior.
#[test]
fn sampled_layouts_are_consistent_and_match_exact_enumeration() {
    for (case, &(rows, lengths, no_touch)) in WITH_HITS.iter().enumerate() {
        let a = area(rows, lengths, no_touch);
        let exact_p = exact_marginals(&a, lengths);
        let effort = Effort {
            evaluations: EFFORT.evaluations * 4,
            max_sweeps: EFFORT.max_sweeps * 4,
            ..EFFORT
        };
        let (_, layouts) = probabilities_and_layouts(
            &a,
            effort,
            usize::MAX,
            &mut Pcg64Mcg::seed_from_u64(3 + case as u64),
        );
        assert!(
            layouts.len() >= 200,
            "case {case}: {} layouts",
            layouts.len()
        );
        let n = a.cells.len();
        let mut seen = vec![0.0f64; n];
        for layout in &layouts {
            let mut owner = vec![usize::MAX; n];
            assert_eq!(
                layout.len(),
                lengths.len(),
                "case {case}: every ship placed"
            );
            for (s, (kind, cells)) in layout.iter().enumerate() {
                assert_eq!(cells.len(), lengths[*kind] as usize);
                for &c in cells {
                    let c = c as usize;
                    assert_eq!(owner[c], usize::MAX, "case {case}: ships overlap");
                    assert_ne!(a.cells[c], Known::Water, "case {case}: a ship on water");
                    owner[c] = s;
                    seen[c] += 1.0 / layouts.len() as f64;
                }
            }
            for (c, known) in a.cells.iter().enumerate() {
                if *known == Known::Hit {
                    assert_ne!(owner[c], usize::MAX, "case {case}: hit {c} unexplained");
                }
                if no_touch && owner[c] != usize::MAX {
                    for d in a.size.neighbours(a.size.cell(c)) {
                        let o = owner[a.size.index(d)];
                        assert!(o == usize::MAX || o == owner[c], "case {case}: ships touch");
                    }
                }
            }
        }
        for c in (0..n).filter(|&c| a.cells[c].targetable()) {
            assert!(
                (seen[c] - exact_p[c]).abs() < 0.08,
                "case {case} cell {c}: sampled {} exact {}",
                seen[c],
                exact_p[c]
            );
        }
    }
}

/// The sampler's marginals against exact enumeration, with ships that touch
/// and with ships kept apart: a chain that mixes badly would drift from them.
#[test]
fn sampler_marginals_match_exact_enumeration() {
    let cases: [(&[&str], &[u16], bool); 3] = [
        WITH_HITS[0],
        WITH_HITS[1],
        (
            &["~~~~~~", "~~~~~~", "~~O~~~", "~~~~~~", "~~~O~~", "~~~~~~"],
            &[3, 2, 2, 1],
            true,
        ),
    ];
    for (case, (rows, lengths, no_touch)) in cases.into_iter().enumerate() {
        let a = area(rows, lengths, no_touch);
        let exact = exact_marginals(&a, lengths);
        let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(7 + case as u64));
        let worst = p
            .iter()
            .zip(&exact)
            .map(|(s, e)| (s - e).abs())
            .fold(0.0, f64::max);
        assert!(
            worst < 0.04,
            "case {case}: largest error {worst}\nsampled {p:?}\nexact {exact:?}"
        );
    }
}

/// With the engine's random placement as the prior (the default for boards
/// laid by "Random"), the sampler's marginals match the exact ones.
#[test]
fn sampler_follows_the_engines_random_placement_exactly() {
    let cases: [(&[&str], &[u16], bool); 3] = [
        (
            &["~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
            &[4, 3, 2, 1],
            true,
        ),
        (
            &["~~~~~~", "~~X~~~", "~~~~~~", "~~O~~~", "~~~~~~", "~O~~~~"],
            &[3, 2, 2],
            true,
        ),
        (
            &["~~~~~~", "~~~~~~", "~~X~O~", "~~~~~~", "~O~~~~", "~~~~~~"],
            &[4, 3, 2],
            false,
        ),
    ];
    for (case, (rows, lengths, no_touch)) in cases.into_iter().enumerate() {
        let mut a = area(rows, lengths, no_touch);
        a.sequential_prior = true;
        let exact = exact_marginals_with(&a, lengths, true);
        let uniform = exact_marginals_with(&a, lengths, false);
        let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(70 + case as u64));
        let worst = assert_close(case, &p, &exact);
        if case == 0 {
            // The two priors really differ here, so the check above has teeth.
            assert!(
                gap(&exact, &uniform) > 0.05,
                "worst {worst} teeth {}",
                gap(&exact, &uniform)
            );
        }
    }
}

/// The largest difference between two sets of marginals.
fn gap(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(s, e)| (s - e).abs())
        .fold(0.0, f64::max)
}

/// Asserts that sampled marginals are within 0.03 of the exact ones, and
/// returns the largest error.
fn assert_close(case: usize, p: &[f64], exact: &[f64]) -> f64 {
    let worst = gap(p, exact);
    assert!(
        worst < 0.03,
        "case {case}: largest error {worst}\nsampled {p:?}\nexact {exact:?}"
    );
    worst
}

/// Checks a tilt of the sampler (set by `tilt` on the area) against exact
/// enumeration on three positions (empty, and with hits to explain, ships
/// touching and apart), under either prior; the tilt must move the exact
/// marginals. Returns each case's area, exact marginals without and with it.
fn check_tilt(tilt: impl Fn(&mut Area), seed: u64) -> Vec<(Area, Vec<f64>, Vec<f64>)> {
    let cases: [(&[&str], &[u16], bool, bool); 3] = [
        (
            &["~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~", "~~~~~~"],
            &[4, 3, 2, 1],
            true,
            true,
        ),
        (WITH_HITS[0].0, WITH_HITS[0].1, WITH_HITS[0].2, false),
        (WITH_HITS[1].0, WITH_HITS[1].1, WITH_HITS[1].2, true),
    ];
    let mut out = Vec::new();
    for (case, (rows, lengths, no_touch, sequential)) in cases.into_iter().enumerate() {
        let mut a = area(rows, lengths, no_touch);
        a.sequential_prior = sequential;
        let plain = exact_marginals_with(&a, lengths, sequential);
        tilt(&mut a);
        let exact = exact_marginals_with(&a, lengths, sequential);
        let p = probabilities(&a, EFFORT, &mut Pcg64Mcg::seed_from_u64(seed + case as u64));
        assert_close(case, &p, &exact);
        // The tilt really moves the marginals.
        assert!(gap(&exact, &plain) > 0.05, "case {case}: no teeth");
        out.push((a, plain, exact));
    }
    out
}

/// The admiral's suspicion that a fleet in a game of three seats or more was
/// kept tight: with `tight_tilt` each ship's placement weighs `exp(-tilt)`
/// less per cell it covers or touches that no known ship part covers or
/// touches, under either prior, and the sampler's marginals match that
/// exactly.
#[test]
fn a_tight_tilt_weighs_each_placement_by_the_fresh_cells_it_covers_or_touches() {
    // A cell on the edge has fewer neighbours, so on the empty board a tight
    // fleet lies against the edges more often: the corner gains.
    let (a, plain, exact) = &check_tilt(|a| a.tight_tilt = 0.6, 190)[0];
    let corner = a.size.index(Cell::new(0, 0));
    assert!(exact[corner] > plain[corner], "the corner");
}

/// The prior against the engine itself: on an empty classic board the
/// sampler's marginals are the frequencies of the engine's random placement,
/// and clearly not those of a uniform choice among all layouts, which crowds
/// ships against the edges.
#[test]
fn an_empty_board_looks_like_the_engines_random_layouts() {
    let setup = Setup {
        preset: Preset::Classic,
        seats: 2,
        seed: 5,
        options: Options::default(),
        teams: None,
    };
    let game = Game::new(&setup).expect("classic sets up");
    let rules = game.rules().clone();
    let size = rules.board;
    let mut rng = Pcg64Mcg::seed_from_u64(11);
    let layouts = 40_000;
    let mut freq = vec![0.0; size.cell_count()];
    for _ in 0..layouts {
        for placement in game.random_layout(0, &mut rng).expect("classic fits") {
            let index = rules.type_index(&placement.ship_type).expect("known type");
            for (x, y) in rules.catalogue[index]
                .shape
                .place(placement.at, placement.rot)
            {
                freq[size.index(Cell::new(x as u16, y as u16))] += 1.0 / layouts as f64;
            }
        }
    }
    let lengths = [4, 3, 3, 2, 2, 2, 1, 1, 1, 1];
    let empty: Vec<String> = (0..size.rows)
        .map(|_| "~".repeat(size.cols as usize))
        .collect();
    let rows: Vec<&str> = empty.iter().map(String::as_str).collect();
    let mut a = area(&rows, &lengths, true);
    let marginals = |a: &Area, seed: u64| {
        let mut sum = vec![0.0; size.cell_count()];
        for k in 0..8 {
            let p = probabilities(a, EFFORT, &mut Pcg64Mcg::seed_from_u64(seed + k));
            for (s, v) in sum.iter_mut().zip(p) {
                *s += v / 8.0;
            }
        }
        sum
    };
    let gap = |x: &[f64]| {
        x.iter()
            .zip(&freq)
            .map(|(s, e)| (s - e).abs())
            .fold(0.0, f64::max)
    };
    let uniform = marginals(&a, 100);
    a.sequential_prior = true;
    let sequential = marginals(&a, 200);
    assert!(
        gap(&sequential) < 0.02,
        "sequential prior off by {}",
        gap(&sequential)
    );
    assert!(
        gap(&uniform) > 0.04,
        "uniform prior only off by {}",
        gap(&uniform)
    );
}
