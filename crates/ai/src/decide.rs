//! Turning per-cell hit probabilities into commands: single shots, hard-rule
//! volleys, salvos (spread and focus), and when an ability or special is worth
//! more than the shots it replaces.

use std::collections::BTreeSet;

use broadside_engine::{Action, Cell, Command, End, Line, Mode, Rules, SalvoMode, Target, View};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::model::{self, Area, Known, Memory, Waters, TIGHT_TILT};
use crate::{heur, infer, rollout, Bot, Strategy};

/// The admiral thinks ahead once this few ships are left to find: then the
/// game's end is near, the rollouts are short and stay coupled, and a
/// difference between two shots stands out from the estimate's noise; with
/// more ships left the differences are no larger than their standard errors,
/// and acting on them loses shots (docs/ai.md: "Only near the end", in the
/// description of the look-ahead at the top, and the tuning table of "The
/// admiral against bayes").
const ROLLOUT_SHIPS: usize = 2;
/// How much more the admiral samples than bayes where it thinks ahead: every
/// recorded sweep of the chain is one fleet to play out (8 × 160 sweeps).
const ROLLOUT_EFFORT: usize = 8;
/// The admiral weighs at most this many candidate cells…
const ROLLOUT_CANDIDATES: usize = 6;
/// …among those this close to the likeliest one.
const ROLLOUT_MARGIN: f64 = 0.1;
/// Another cell replaces bayes's only where it saves shots by more than this
/// many standard errors of the paired difference: a lower bar acts on noise,
/// a higher one passes up real savings (docs/ai.md, the tuning table of "The
/// admiral against bayes").
const ROLLOUT_CONFIDENCE: f64 = 1.0;

/// One opponent area with the strategy's hit probability per local cell.
struct Scored {
    area: Area,
    p: Vec<f64>,
    /// The strategy's own score where it differs from `p`: it orders cells
    /// whose probabilities were capped to the same 1.0 (a density count
    /// through a hit is far above 1).
    rank: Option<Vec<f64>>,
    /// For the admiral's look-ahead: fleets consistent with what is known,
    /// drawn from the posterior.
    layouts: Option<Vec<rollout::Layout>>,
}

impl Bot {
    pub(crate) fn battle_command(
        &mut self,
        seat: usize,
        view: &View,
        rules: &Rules,
    ) -> Option<Command> {
        let mut areas = model::areas(seat, view, rules, &self.memory);
        let count = areas.len().max(1);
        let admiral = self.strategy == Strategy::Admiral;
        let admiral_duel = admiral && count == 1 && !view.salvo_round;
        // In games of three seats or more fleets are kept tight (even when
        // only two seats are left), and hard and up suspect it. Not in space,
        // where fleets are bought and scanned and the suspicion does not pay
        // (docs/ai.md, "Salvo games: the hunters suspect a tight fleet"). In
        // a duel no level assumes hiding: a tilt towards the edge, where
        // hidden fleets lie, costs against fleets laid at random most of what
        // the admiral's look-ahead wins, and a person's duel fleet may be
        // laid anyhow (docs/ai.md, "The admiral: hidden fleets lie along the
        // edge").
        if self.strategy.suspects_tight() && view.seats.len() >= 3 && view.mode != Mode::Space {
            for area in &mut areas {
                area.tight_tilt = TIGHT_TILT;
            }
        }
        // The admiral looks a shot ahead where one shot is one decision: a
        // duel turn against one fleet.
        let lookahead = admiral_duel && !rules.per_volley();
        let scored: Vec<Scored> = areas
            .into_iter()
            .map(|area| {
                if lookahead && area.ships.len() <= ROLLOUT_SHIPS && rollout::applies(&area) {
                    let mut effort = self.effort;
                    effort.evaluations *= ROLLOUT_EFFORT;
                    effort.max_sweeps *= ROLLOUT_EFFORT;
                    let (p, layouts) =
                        infer::probabilities_and_layouts(&area, effort, usize::MAX, &mut self.rng);
                    return Scored {
                        area,
                        p,
                        rank: None,
                        layouts: Some(layouts),
                    };
                }
                let (p, rank) =
                    self.score(&area, count, view.salvo_round, view.mode == Mode::Space);
                Scored {
                    area,
                    p,
                    rank,
                    layouts: None,
                }
            })
            .collect();
        if view.salvo_round {
            return Some(self.salvo(seat, view, rules, &scored));
        }
        let first_action = view.shots_this_turn == 0;
        if first_action {
            if let Some(action) = self.action(view, rules, &scored, None) {
                return Some(Command::Ability {
                    seat,
                    action: action.1,
                });
            }
        }
        if rules.per_volley() {
            let available: usize = scored.iter().map(|s| s.area.targetable().count()).sum();
            let want = (rules.shots_per_turn as usize).min(available);
            let cells = self
                .best_targets(&scored, want)
                .into_iter()
                .map(|t| t.at)
                .collect();
            return Some(Command::Volley { seat, cells });
        }
        if let [only] = scored.as_slice() {
            if let Some(layouts) = &only.layouts {
                if let Some(target) = self.roll_out(only, layouts) {
                    return Some(Command::Fire { seat, target });
                }
            }
        }
        let target = self.best_targets(&scored, 1).into_iter().next()?;
        Some(Command::Fire { seat, target })
    }

    /// The admiral's shot: each of the likeliest cells (and density's choice)
    /// is played out to the end against every fleet of the posterior sample,
    /// with density firing after it (see [`rollout`]); every candidate meets
    /// the same fleets and tie-breaks. Bayes's cell is kept unless another
    /// saved shots by more than [`ROLLOUT_CONFIDENCE`] standard errors of the
    /// paired difference; then the one that saved the most is fired. `None`
    /// where rollouts do not apply or there is nothing to choose between.
    fn roll_out(&mut self, scored: &Scored, layouts: &[rollout::Layout]) -> Option<Target> {
        if layouts.is_empty() {
            return None;
        }
        let world = rollout::World::new(&scored.area)?;
        let mut cells: Vec<(f64, u64, usize)> = scored
            .area
            .targetable()
            .map(|x| (scored.p[x], self.rng.random(), x))
            .collect();
        cells.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let top = cells.first()?.0;
        let mut candidates: Vec<usize> = cells
            .iter()
            .take_while(|c| c.0 >= top - ROLLOUT_MARGIN)
            .take(ROLLOUT_CANDIDATES)
            .map(|c| c.2)
            .collect();
        if let Some(d) = world.density_choice(self.rng.random()) {
            if !candidates.contains(&d) {
                candidates.push(d);
            }
        }
        if candidates.len() < 2 {
            return None;
        }
        let seeds: Vec<u64> = layouts.iter().map(|_| self.rng.random()).collect();
        let shots = |x: usize| -> Vec<f64> {
            layouts
                .iter()
                .zip(&seeds)
                .map(|(layout, &seed)| world.play_out(layout, x, seed) as f64)
                .collect()
        };
        let greedy = shots(candidates[0]);
        let mut best = (0.0f64, candidates[0]);
        for &x in &candidates[1..] {
            let d: Vec<f64> = shots(x).iter().zip(&greedy).map(|(a, g)| a - g).collect();
            let m = d.len() as f64;
            let mean = d.iter().sum::<f64>() / m;
            let var = d.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (m - 1.0).max(1.0);
            if mean + ROLLOUT_CONFIDENCE * (var / m).sqrt() < 0.0 && mean < best.0 {
                best = (mean, x);
            }
        }
        Some(scored.area.target(best.1))
    }

    /// The strategy's hit probability for every cell of an area, and its raw
    /// score when that, not the probability, orders the cells.
    ///
    /// In a space duel bayes fires by the placement count's order, with the
    /// sampler's probabilities for its abilities.
    ///
    /// In a salvo round the sampler draws from a seed made of what everybody
    /// sees of the area, so that two bots sampling the same facts reach the
    /// same probabilities and can foresee each other's shots
    /// (see [`yield_to_earlier`]).
    fn score(
        &mut self,
        area: &Area,
        areas: usize,
        salvo: bool,
        space: bool,
    ) -> (Vec<f64>, Option<Vec<f64>>) {
        let raw = match self.strategy {
            Strategy::Random => {
                let p = area
                    .cells
                    .iter()
                    .map(|k| if k.targetable() { 0.5 } else { 0.0 });
                return (p.collect(), None);
            }
            Strategy::Bayes | Strategy::Admiral => {
                let mut effort = self.effort;
                effort.evaluations /= areas;
                let p = if salvo {
                    let mut rng = Pcg64Mcg::seed_from_u64(public_seed(area));
                    infer::probabilities(area, effort, &mut rng)
                } else {
                    infer::probabilities(area, effort, &mut self.rng)
                };
                // In a space duel the sampler mixes poorly (fourteen ships
                // that may not touch on 200 cells) and the placement count
                // aims better; where several areas or a salvo compare cells,
                // the sampler's probabilities do (docs/ai.md, "Space duel:
                // bayes fires in the placement count's order").
                let rank = (space && areas == 1 && !salvo).then(|| heur::density(area));
                return (p, rank);
            }
            Strategy::Hunt => heur::hunt(area, self.parity_offset),
            Strategy::Density => heur::density(area),
        };
        let mut p = raw.clone();
        heur::as_probabilities(area, &mut p);
        (p, Some(raw))
    }

    /// The `count` best targetable cells over the given areas: by probability,
    /// then by the strategy's raw score (probabilities capped at 1.0 tie), and
    /// exact ties at random so equal cells are not fired in reading order.
    fn best_targets(&mut self, scored: &[Scored], count: usize) -> Vec<Target> {
        let mut all: Vec<(f64, f64, u64, Target)> = Vec::new();
        // Within one area the strategy's own rank decides; across areas only
        // probabilities compare.
        let single = scored.len() == 1;
        for s in scored {
            for i in s.area.targetable() {
                let p = if single { 0.0 } else { s.p[i] };
                let rank = s.rank.as_ref().map_or(s.p[i], |r| r[i]);
                all.push((p, rank, self.rng.random(), s.area.target(i)));
            }
        }
        all.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.cmp(&b.2))
        });
        all.into_iter().take(count).map(|(_, _, _, t)| t).collect()
    }

    fn salvo(&mut self, seat: usize, view: &View, rules: &Rules, scored: &[Scored]) -> Command {
        let per = rules.shots_per_opponent as usize;
        // Cells the seats before this one are expected to fire at are worth
        // less: a second shot on a cell adds nothing.
        let taken = if self.strategy == Strategy::Random {
            scored.iter().map(|s| vec![0; s.p.len()]).collect()
        } else {
            yield_to_earlier(seat, view, rules, scored, &mut self.memory)
        };
        match rules.salvo {
            SalvoMode::Spread => {
                // An ability may replace the shots on one opponent.
                let action = self.action(view, rules, scored, Some(per));
                let mut shots = Vec::new();
                for (i, s) in scored.iter().enumerate() {
                    if action.as_ref().is_some_and(|(a, _)| *a == i) {
                        continue;
                    }
                    shots.extend(self.salvo_targets(s, &taken[i], per));
                }
                Command::Salvo {
                    seat,
                    shots,
                    action: action.map(|(_, a)| a),
                }
            }
            SalvoMode::Focus => {
                // Every shot on one opponent: the one that fired most at this
                // seat's waters (see [`focus_victim`]); the random strategy
                // picks one at random.
                let total = per * scored.len();
                let live: Vec<usize> = (0..scored.len())
                    .filter(|&i| scored[i].area.targetable().next().is_some())
                    .collect();
                let chosen = if self.strategy == Strategy::Random {
                    (!live.is_empty()).then(|| live[self.rng.random_range(0..live.len())])
                } else {
                    focus_victim(seat, &live, view, rules, scored, &self.memory, self.grudge)
                };
                let shots = match chosen {
                    Some(i) => self.salvo_targets(&scored[i], &taken[i], total),
                    None => Vec::new(),
                };
                Command::Salvo {
                    seat,
                    shots,
                    action: None,
                }
            }
        }
    }

    /// A salvo's `count` cells on one area: the best by the strategy's order
    /// after the cells earlier seats are expected to take (`taken`, see
    /// [`yield_to_earlier`]). Random shooters draw theirs.
    fn salvo_targets(&mut self, s: &Scored, taken: &[u32], count: usize) -> Vec<Target> {
        if self.strategy == Strategy::Random {
            return self.best_targets(std::slice::from_ref(s), count);
        }
        salvo_order(s, taken)
            .into_iter()
            .take(count)
            .map(|i| s.area.target(i))
            .collect()
    }

    /// An ability or special worth more than the shots it replaces, with the
    /// index of the area it aims at. `salvo_shots` is the number of shots per
    /// opponent in a spread salvo round, `None` in a duel turn.
    fn action(
        &mut self,
        view: &View,
        rules: &Rules,
        scored: &[Scored],
        salvo_shots: Option<usize>,
    ) -> Option<(usize, Action)> {
        if self.strategy == Strategy::Random || scored.is_empty() {
            return None;
        }
        let ready = |id: &str| view.abilities.get(id).is_some_and(|a| a.ready);
        let shared = view.mode == Mode::SharedSea;
        // What the replaced shots would be worth, per area.
        let shots = salvo_shots.unwrap_or(rules.shots_per_turn as usize);
        let replaced: Vec<f64> = scored
            .iter()
            .map(|s| {
                let worth = expected_hits(s, shots);
                // A hit-again turn goes on after a hit.
                if salvo_shots.is_none() && rules.hit_again {
                    worth * 1.6
                } else {
                    worth
                }
            })
            .collect();
        let open_hits = scored.iter().any(|s| s.area.open_hits() > 0);
        let keen_scanner = self.strategy.keen_scanner();
        // The laser's bar: the share of the replaced shots' worth it must
        // beat, and the chance it must have of hitting at all.
        let (laser_share, laser_floor) = if self.strategy.keen_laser() {
            (0.8, 0.3)
        } else {
            (1.3, 0.8)
        };
        let mut best: Option<(f64, usize, Action)> = None;
        let mut consider = |value: f64, area: usize, action: Action| {
            if best.as_ref().is_none_or(|(v, _, _)| value > *v) {
                best = Some((value, area, action));
            }
        };
        for (i, s) in scored.iter().enumerate() {
            let area = &s.area;
            let board = area.board;
            let global = |index: usize| area.target(index).at;
            if ready("nuke") {
                if let Some((index, value)) = best_nuke(s) {
                    if value >= 2.5 && value > replaced[i] * 1.5 {
                        consider(
                            value,
                            i,
                            Action::Nuke {
                                board,
                                at: global(index),
                            },
                        );
                    }
                }
            }
            if ready("wide") {
                if let Some((index, value)) = best_square(s, |p| p) {
                    if value >= 1.6 && value > replaced[i] * 1.5 {
                        consider(
                            value,
                            i,
                            Action::Wide {
                                board,
                                center: global(index),
                            },
                        );
                    }
                }
            }
            if ready("bombard") && !shared {
                if let Some((line, value)) = best_line(s) {
                    if value >= 2.5 && value > replaced[i] * 1.5 {
                        consider(value, i, Action::Bombard { board, line });
                    }
                }
            }
            if ready("laser") && !shared {
                if let Some((column, from, value)) = best_laser(s) {
                    if value > replaced[i] * laser_share && value >= laser_floor {
                        consider(
                            value,
                            i,
                            Action::Laser {
                                board,
                                column,
                                from,
                            },
                        );
                    }
                }
            }
            // The levels below expert look only while hunting, not while a
            // hit waits to be finished; the keen ones whenever they can: a
            // scanned ship part is a sure hit, and in a hit-again turn a
            // sure hit is a shot more.
            let hunting = !open_hits && s.p.iter().copied().fold(0.0, f64::max) < 0.4;
            for id in ["scanner", "radar"] {
                let keen = id == "scanner" && keen_scanner;
                if ready(id) && (keen || hunting) {
                    if let Some((index, value)) = best_square(s, |p| p * (1.0 - p)) {
                        let center = global(index);
                        let action = if id == "scanner" {
                            Action::Scanner { board, center }
                        } else {
                            Action::Radar { board, center }
                        };
                        // Worth a little less than a sure hit, so shots win ties.
                        if value >= 1.0 || (keen && value > 0.0) {
                            consider(value * 0.5, i, action);
                        }
                    }
                }
            }
        }
        if ready("reserve") && !shared && !open_hits {
            // Three more fighters to find: always worth a quiet turn.
            let cheapest =
                (0..scored.len()).min_by(|&a, &b| replaced[a].total_cmp(&replaced[b]))?;
            let board = salvo_shots.map(|_| scored[cheapest].area.board);
            consider(1.0, cheapest, Action::Reserve { board, cells: None });
        }
        best.map(|(_, i, a)| (i, a))
    }
}

/// How often this seat's foresight of an earlier seat must have come true
/// (see [`Memory::foresees`]) for this seat to leave it the cells foreseen.
const FORESEES: f64 = 0.5;

/// For every area and cell, how many of the alive seats before this one in
/// seat order are expected to fire there in this round: each of them
/// is foreseen to take its shots as this seat would rank the cells (in
/// `focus`, all on the opponent it would choose). A second shot on a cell adds
/// nothing, so this seat fires at cells nobody took first; bots that
/// score alike then split the likeliest cells instead of all firing at the
/// same ones. What is foreseen is checked when the round resolves, and only
/// seats whose choices were foreseen right at least half the time are left
/// their cells: a seat that shoots at random or ranks cells otherwise takes
/// nothing in particular.
fn yield_to_earlier(
    seat: usize,
    view: &View,
    rules: &Rules,
    scored: &[Scored],
    memory: &mut Memory,
) -> Vec<Vec<u32>> {
    let mut taken: Vec<Vec<u32>> = scored.iter().map(|s| vec![0; s.p.len()]).collect();
    let per = rules.shots_per_opponent as usize;
    let team = |s: usize| view.seats[s].team;
    for other in view.seats.iter().filter(|o| o.alive && o.seat < seat) {
        let leave = memory.foresees(other.seat) >= FORESEES;
        // The areas that seat fires at: not its own, not its team's.
        let targets: Vec<usize> = (0..scored.len())
            .filter(|&i| {
                scored[i]
                    .area
                    .owner
                    .is_none_or(|owner| owner != other.seat && team(owner) != other.team)
            })
            .collect();
        // That seat does not know what this seat's scans found: it
        // is not expected to fire there.
        let mut foreseen = BTreeSet::new();
        let mut take = |i: usize, count: usize, taken: &mut Vec<Vec<u32>>| {
            let area = &scored[i].area;
            let order = salvo_order(&scored[i], &taken[i]);
            for cell in order
                .into_iter()
                .filter(|&c| area.cells[c] != Known::Scanned)
                .take(count)
            {
                foreseen.insert((area.board, area.target(cell).at));
                if leave {
                    taken[i][cell] += 1;
                }
            }
        };
        match rules.salvo {
            SalvoMode::Spread => {
                for &i in &targets {
                    take(i, per, &mut taken);
                }
            }
            SalvoMode::Focus => {
                let total = per * targets.len();
                if let Some(i) =
                    foreseen_victim(seat, other.seat, &targets, view, rules, scored, memory)
                {
                    take(i, total, &mut taken);
                }
            }
        }
        memory.foresee(other.seat, foreseen);
    }
    taken
}

/// The area (among `targets`, this seat's areas that `other` may fire at)
/// that `other` is expected to focus on, by the rule of [`focus_victim`]
/// seen from its waters; `None` when it is expected to fire at this seat, or
/// when several opponents tie and its own secret order decides.
fn foreseen_victim(
    seat: usize,
    other: usize,
    targets: &[usize],
    view: &View,
    rules: &Rules,
    scored: &[Scored],
    memory: &Memory,
) -> Option<usize> {
    let seats = view.seats.len();
    let Some(theirs) = Waters::of(other, view, rules) else {
        return targets.last().copied();
    };
    // (seat, area); this seat is a target without an area.
    let mut options: Vec<(usize, Option<usize>)> = targets
        .iter()
        .filter_map(|&i| scored[i].area.owner.map(|o| (o, Some(i))))
        .collect();
    if view.seats[seat].team != view.seats[other].team {
        options.push((seat, None));
    }
    let value = |o: usize| memory.shoots_at(o, theirs, seats);
    let best = options
        .iter()
        .map(|&(o, _)| value(o))
        .fold(f64::NEG_INFINITY, f64::max);
    // A tie is broken by that seat's own secret order: not foreseen.
    match options
        .iter()
        .filter(|&&(o, _)| value(o) == best)
        .collect::<Vec<_>>()[..]
    {
        [&(_, i)] => i,
        _ => None,
    }
}

/// An area's targetable cells, best first: cells fewer earlier seats take
/// first, then by the strategy's own score (or the probability), exact ties by
/// a hash of the area's public state, the same for every seat that sees it.
fn salvo_order(s: &Scored, taken: &[u32]) -> Vec<usize> {
    let area = &s.area;
    let seen = area.cells.iter().filter(|k| **k != Known::Unknown).count() as u64;
    let salt = (area.board as u64) << 48
        ^ (area.origin.col as u64) << 32
        ^ (area.origin.row as u64) << 16
        ^ seen;
    let mut cells: Vec<(u32, f64, u64, usize)> = area
        .targetable()
        .map(|i| {
            let score = s.rank.as_ref().map_or(s.p[i], |r| r[i]);
            let tie = mix(salt ^ (i as u64).wrapping_mul(0x9e37_79b9));
            (taken[i], score, tie, i)
        })
        .collect();
    cells.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    cells.into_iter().map(|(_, _, _, i)| i).collect()
}

/// A seed made of what everybody sees of an area: where it is and every cell
/// that is no longer unknown.
fn public_seed(area: &Area) -> u64 {
    let mut z =
        mix((area.board as u64) << 32 ^ (area.origin.col as u64) << 16 ^ area.origin.row as u64);
    for (i, known) in area.cells.iter().enumerate() {
        if *known != Known::Unknown {
            z = mix(z ^ ((i as u64) << 8 | *known as u64));
        }
    }
    z
}

/// A 64-bit mix (splitmix64's finalizer): a fixed, well-spread hash.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Whom a focused salvo goes to, among the areas `live`: the opponent that
/// has fired the largest share of its shots at this seat's waters, so that
/// a seat shoots back at whoever shoots at it. An area whose owner is secret
/// (the shared sea) counts as the average of the opponents whose waters are
/// not known.
///
/// The bot shoots back rather than finishing the most damaged opponent,
/// because bots that finish the most damaged pile onto whichever seat was
/// hit first. It prefers no victim that has not fired at this seat (one a
/// salvo is expected to sink, or one whose return fire another seat draws),
/// because that leaves the seat that does fire at it unanswered (docs/ai.md,
/// "Focus: shoot back", and what was tried on top of it in "Focus: ties go
/// by each bot's own order").
///
/// Exact ties (the first round, or while nobody has fired at this seat) go
/// by the bot's `grudge`, an order of the opponents of its own, secret and
/// fixed for the game, because ties by seat order make every bot fire its
/// first salvo at the last seat, which fires back at the one before it: the
/// seats then fall from the last to the second whatever the levels, and a
/// person in the last seat faces every bot at once (docs/ai.md, "Focus: ties
/// go by each bot's own order").
fn focus_victim(
    seat: usize,
    live: &[usize],
    view: &View,
    rules: &Rules,
    scored: &[Scored],
    memory: &Memory,
    grudge: u64,
) -> Option<usize> {
    let seats = view.seats.len();
    let Some(mine) = Waters::of(seat, view, rules) else {
        return live.last().copied();
    };
    let known: BTreeSet<usize> = scored.iter().filter_map(|s| s.area.owner).collect();
    let hidden: Vec<f64> = view
        .seats
        .iter()
        .filter(|o| o.alive && o.seat != seat && o.team != view.seats[seat].team)
        .filter(|o| !known.contains(&o.seat))
        .map(|o| memory.shoots_at(o.seat, mine, seats))
        .collect();
    let secret = if hidden.is_empty() {
        1.0 / seats.max(1) as f64
    } else {
        hidden.iter().sum::<f64>() / hidden.len() as f64
    };
    let value = |i: usize| {
        scored[i]
            .area
            .owner
            .map_or(secret, |o| memory.shoots_at(o, mine, seats))
    };
    let order = |i: usize| {
        let who = scored[i].area.owner.map_or(1000 + i as u64, |o| o as u64);
        mix(grudge ^ who)
    };
    live.iter()
        .copied()
        .max_by(|&a, &b| value(a).total_cmp(&value(b)).then(order(a).cmp(&order(b))))
}

/// The hits expected from the `count` most likely cells of an area.
fn expected_hits(s: &Scored, count: usize) -> f64 {
    let mut p: Vec<f64> = s.area.targetable().map(|i| s.p[i]).collect();
    p.sort_by(|a, b| b.total_cmp(a));
    p.iter().take(count).sum()
}

/// The 3×3 square (centre index) with the largest sum of `f(p)` over its
/// targetable cells.
fn best_square(s: &Scored, f: impl Fn(f64) -> f64) -> Option<(usize, f64)> {
    let size = s.area.size;
    let mut best: Option<(usize, f64)> = None;
    for index in 0..s.area.cells.len() {
        let value: f64 = size
            .square3(size.cell(index))
            .map(|c| size.index(c))
            .filter(|&j| s.area.cells[j].targetable())
            .map(|j| f(s.p[j]))
            .sum();
        if value > 0.0 && best.is_none_or(|(_, v)| value > v) {
            best = Some((index, value));
        }
    }
    best
}

/// The nuke target with the most expected hits: it explodes only on a ship part.
fn best_nuke(s: &Scored) -> Option<(usize, f64)> {
    let size = s.area.size;
    let mut best: Option<(usize, f64)> = None;
    for index in s.area.targetable() {
        let at = size.cell(index);
        let mut around = 0.0;
        for dr in -2i32..=2 {
            for dc in -2i32..=2 {
                if dr.abs() + dc.abs() > 2 || (dr, dc) == (0, 0) {
                    continue;
                }
                let (c, r) = (at.col as i32 + dc, at.row as i32 + dr);
                if size.contains_signed(c, r) {
                    let j = size.index(Cell::new(c as u16, r as u16));
                    if s.area.cells[j].targetable() {
                        around += s.p[j];
                    }
                }
            }
        }
        let value = s.p[index] * (1.0 + around);
        if best.is_none_or(|(_, v)| value > v) {
            best = Some((index, value));
        }
    }
    best
}

/// The row or column with the most expected hits.
fn best_line(s: &Scored) -> Option<(Line, f64)> {
    let size = s.area.size;
    let mut best: Option<(Line, f64)> = None;
    let sum = |cells: &mut dyn Iterator<Item = usize>| -> f64 {
        cells
            .filter(|&j| s.area.cells[j].targetable())
            .map(|j| s.p[j])
            .sum()
    };
    for row in 0..size.rows {
        let value = sum(&mut (0..size.cols).map(|c| size.index(Cell::new(c, row))));
        if best.as_ref().is_none_or(|(_, v)| value > *v) {
            best = Some((Line::Row(row), value));
        }
    }
    for col in 0..size.cols {
        let value = sum(&mut (0..size.rows).map(|r| size.index(Cell::new(col, r))));
        if best.as_ref().is_none_or(|(_, v)| value > *v) {
            best = Some((Line::Column(col), value));
        }
    }
    best
}

/// The laser column most likely to hold an intact part, entered from the end
/// nearer to the likely parts. Value: the chance it hits something.
fn best_laser(s: &Scored) -> Option<(u16, End, f64)> {
    let size = s.area.size;
    let mut best: Option<(u16, End, f64)> = None;
    for col in 0..size.cols {
        let mut miss = 1.0;
        let (mut top, mut bottom) = (0.0, 0.0);
        for row in 0..size.rows {
            let j = size.index(Cell::new(col, row));
            let p = match s.area.cells[j] {
                Known::Unknown | Known::Scanned => s.p[j],
                _ => 0.0,
            };
            miss *= 1.0 - p.min(1.0);
            if row < size.rows / 2 {
                top += p;
            } else {
                bottom += p;
            }
        }
        let value = 1.0 - miss;
        let from = if top >= bottom { End::Top } else { End::Bottom };
        if best.is_none_or(|(_, _, v)| value > v) {
            best = Some((col, from, value));
        }
    }
    best
}
