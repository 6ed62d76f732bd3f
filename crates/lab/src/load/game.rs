//! The simulated players: one task per game connects its one or two people,
//! sets the room up and plays at a person's pace (random unshot cells), game
//! after game through rematches, timing each shot until the state that
//! reports it; a failed game starts again on new connections.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use broadside_engine::{Cell, Intent, Target};
use broadside_protocol::{BotLevel, BotSeat, ClientFrame, CreateRoom};
use futures_util::StreamExt;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout_at};
use tokio_tungstenite::tungstenite::Message;

use super::extras::hello;
use super::player::{connect, Expect, Player};
use super::resume::{check_acknowledged, forget_in_flight, join, record_final_views, resume};
use super::shared::Shared;
use super::wire::{expect, read, send, Followed, Frame, View};
use super::{Gauge, Setup, Stop, PATIENCE, RETRY};

/// A random cell of an opponent's board that this view shows as not yet
/// shot (`~`, R-12), as `(board, col, row)`.
fn pick_target(view: &View, rng: &mut impl Rng) -> Option<(u64, usize, usize)> {
    let mut chosen = None;
    let mut seen = 0u32;
    for board in &view.boards {
        let Some(owner) = board.owner else { continue };
        if Some(owner) == view.seat {
            continue;
        }
        for (row, line) in board.rows.iter().enumerate() {
            // Every R-12 character is ASCII: the byte index is the column.
            for (col, _) in line.bytes().enumerate().filter(|&(_, c)| c == b'~') {
                seen += 1;
                if rng.random_range(0..seen) == 0 {
                    chosen = Some((owner, col, row));
                }
            }
        }
    }
    chosen
}

/// Whether these events report a move of `seat` of the kind `expect` waits for.
fn answered(frame: &Frame, seat: Option<u64>, expect: Expect) -> bool {
    match expect {
        Expect::Ready => frame
            .events
            .iter()
            .any(|e| e.event == "ready" && e.seat.is_some() && e.seat == seat),
        Expect::Shot => reports_shot(frame, seat),
        Expect::NewGame => frame.view.as_ref().is_some_and(|v| v.phase != "finished"),
    }
}

fn reports_shot(frame: &Frame, shooter: Option<u64>) -> bool {
    shooter.is_some()
        && frame
            .events
            .iter()
            .any(|e| e.event == "shot" && e.shooter == shooter)
}

/// A delay of `pace` ± 50%, uniformly drawn.
fn jitter(pace: Duration, rng: &mut impl Rng) -> Duration {
    let micros = u64::try_from(pace.as_micros()).unwrap_or(u64::MAX);
    Duration::from_micros(rng.random_range(micros / 2..=micros.saturating_mul(3) / 2))
}

/// One game task: plays until the run is over, starting again from new
/// connections after a failure.
pub(super) async fn game_task(
    shared: Arc<Shared>,
    setup: Arc<Setup>,
    index: usize,
    person_vs_person: bool,
    start_at: Instant,
    seed: u64,
    mut stop: watch::Receiver<bool>,
) {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    tokio::select! {
        _ = sleep_until(start_at.into()) => {}
        _ = stop.changed() => return,
    }
    loop {
        if *stop.borrow() {
            return;
        }
        let outcome = play(
            &shared,
            &setup,
            index,
            person_vs_person,
            &mut rng,
            &mut stop,
        )
        .await;
        match outcome {
            Stop::Over => return,
            Stop::Failed => {
                tokio::select! {
                    _ = tokio::time::sleep(RETRY) => {}
                    _ = stop.changed() => return,
                }
            }
        }
    }
}

/// What woke the game loop.
enum Wake {
    Message(
        usize,
        Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
    ),
    Timer,
    Over,
}

/// Connects the players of one game, sets the room up and plays games in it
/// (rematch after rematch) until the run is over or something fails.
async fn play(
    shared: &Shared,
    setup: &Setup,
    index: usize,
    person_vs_person: bool,
    rng: &mut Pcg64Mcg,
    stop: &mut watch::Receiver<bool>,
) -> Stop {
    let mut players: Vec<Player> = Vec::with_capacity(2);
    let result = setup_and_play(
        shared,
        setup,
        index,
        person_vs_person,
        rng,
        stop,
        &mut players,
    )
    .await;
    let reason = match result {
        Ok(never) => match never {},
        Err(reason) => reason,
    };
    if matches!(reason, Stop::Over) {
        // Say goodbye properly; the server may be busy, so not for long.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
        for player in &mut players {
            let _ = timeout_at(deadline, player.ws.close(None)).await;
        }
    }
    reason
}

async fn setup_and_play<'a>(
    shared: &'a Shared,
    setup: &Setup,
    index: usize,
    person_vs_person: bool,
    rng: &mut Pcg64Mcg,
    stop: &mut watch::Receiver<bool>,
    players: &mut Vec<Player<'a>>,
) -> Result<Infallible, Stop> {
    let hello = |who: &str| hello(None, Some(format!("load {index}{who}")));
    players.push(connect(setup, shared, stop).await?);
    let host = &mut players[0].ws;
    send(host, shared, &hello("a")).await?;
    let token = expect(host, "welcome", shared, stop).await?.token;
    players[0].token = token;
    let host = &mut players[0].ws;
    let bots = if person_vs_person {
        Vec::new()
    } else {
        vec![BotSeat {
            seat: 1,
            level: BotLevel::Easy,
        }]
    };
    send(
        host,
        shared,
        &ClientFrame::CreateRoom(Box::new(CreateRoom {
            preset: setup.preset,
            seats: 2,
            options: None,
            teams: None,
            bots,
            public: false,
            rated: false,
        })),
    )
    .await?;
    let room = expect(host, "room", shared, stop).await?;
    let code = room.room.map(|r| r.code).ok_or_else(|| {
        shared.error_frame("room_without_code");
        Stop::Failed
    })?;
    if person_vs_person {
        players.push(connect(setup, shared, stop).await?);
        let guest = &mut players[1].ws;
        send(guest, shared, &hello("b")).await?;
        let token = expect(guest, "welcome", shared, stop).await?.token;
        players[1].token = token;
        let guest = &mut players[1].ws;
        send(guest, shared, &join(&code)).await?;
        expect(guest, "room", shared, stop).await?;
    }
    send(&mut players[0].ws, shared, &ClientFrame::Start).await?;

    let mut running: Option<Gauge> = None;
    // The shots whose report is awaited, for their latency: (shooter, sent),
    // oldest first.
    let mut in_flight: VecDeque<(usize, Instant)> = VecDeque::new();
    let mut last_state = Instant::now();
    loop {
        let mut soonest: Option<Instant> = None;
        let mut consider = |at: Instant| soonest = Some(soonest.map_or(at, |s| s.min(at)));
        for player in players.iter() {
            if let Some(at) = player.next_at {
                consider(at);
            }
            if let Some((_, sent)) = player.pending {
                consider(sent + PATIENCE);
            }
        }
        if let Some(&(_, sent)) = in_flight.front() {
            consider(sent + PATIENCE);
        }
        // A game where none of ours has anything to do waits for the server
        // (the start, a bot): it stalls if no state comes in time.
        let idle = soonest.is_none();
        let deadline = soonest.unwrap_or(last_state + PATIENCE);
        let wake = {
            let (first, rest) = players.split_at_mut(1);
            let second = rest.first_mut();
            tokio::select! {
                message = first[0].ws.next() => Wake::Message(0, message),
                message = async {
                    match second {
                        Some(p) => p.ws.next().await,
                        None => std::future::pending().await,
                    }
                } => Wake::Message(1, message),
                _ = sleep_until(deadline.into()) => Wake::Timer,
                _ = stop.changed() => Wake::Over,
            }
        };
        match wake {
            Wake::Over => {
                if setup.final_views {
                    record_final_views(players, &code, shared).await;
                }
                return Err(Stop::Over);
            }
            Wake::Message(p, message) => {
                let frame = match read(message, shared) {
                    Ok(Some(frame)) => frame,
                    Ok(None) => continue,
                    Err(Stop::Failed) if setup.resume => {
                        resume(&mut players[p], &code, setup, shared, stop).await?;
                        forget_in_flight(&mut players[p], p, &mut in_flight);
                        continue;
                    }
                    Err(stop) => return Err(stop),
                };
                // A state without events is a join's: the connection was joined
                // to its room again (it moved to another node). A move in
                // flight may have been lost with the old owner: decide again
                // from this state.
                if setup.resume && frame.kind == "state" && frame.events.is_empty() {
                    forget_in_flight(&mut players[p], p, &mut in_flight);
                }
                let mut frame = frame;
                if let Followed::OutOfStep { ask } = players[p].copy.follow(&mut frame) {
                    if ask {
                        send(&mut players[p].ws, shared, &ClientFrame::Resync).await?;
                    }
                    continue;
                }
                match frame.kind.as_str() {
                    "state" => {
                        last_state = Instant::now();
                        if running.is_none() {
                            running = Some(Gauge::hold(&shared.games_running));
                        }
                        let Some(view) = &frame.view else { continue };
                        let seat = view.seat;
                        // The latency of the shot in flight ends on the
                        // opponent's connection (person against person) or on
                        // the shooter's own (against a bot).
                        let watched = if person_vs_person { 1 - p } else { p };
                        if let Some(i) = in_flight.iter().position(|&(s, _)| s == watched) {
                            if reports_shot(&frame, players[watched].seat()) {
                                let (_, sent) = in_flight.remove(i).expect("found above");
                                shared.sample(sent.elapsed());
                            }
                        }
                        let player = &mut players[p];
                        if let Some((expect, _)) = player.pending {
                            if answered(&frame, seat, expect) {
                                player.pending = None;
                                if let Some(cell) = player.aiming.take() {
                                    player.acked.push(cell);
                                    shared.acknowledged.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }
                        check_acknowledged(player, frame.view.as_ref(), shared);
                        let finished = view.phase == "finished";
                        let was_finished =
                            player.view.as_ref().is_some_and(|v| v.phase == "finished");
                        let my_move = view.my_move();
                        player.view = frame.view;
                        if finished {
                            player.pending = None;
                            player.next_at = None;
                            if !was_finished {
                                if p == 0 && shared.measuring.load(Ordering::Relaxed) {
                                    shared.games_finished.fetch_add(1, Ordering::Relaxed);
                                }
                                // Every person asks for a rematch, like people
                                // would: the first offers, the other accepts.
                                player.next_at = Some(Instant::now() + jitter(setup.pace, rng));
                            }
                        } else if my_move && player.pending.is_none() && player.next_at.is_none() {
                            let placement =
                                player.view.as_ref().is_some_and(|v| v.phase == "placement");
                            let delay = if placement {
                                Duration::ZERO
                            } else {
                                jitter(setup.pace, rng)
                            };
                            player.next_at = Some(Instant::now() + delay);
                        }
                    }
                    "error" => {
                        shared.error_frame(frame.code.as_deref().unwrap_or("error"));
                        let player = &mut players[p];
                        if frame.request.as_deref() == Some("command") {
                            // The move was refused: decide again from the view.
                            if matches!(player.pending, Some((Expect::Shot, _))) {
                                if let Some(i) = in_flight.iter().rposition(|&(s, _)| s == p) {
                                    in_flight.remove(i);
                                }
                            }
                            player.pending = None;
                            if player.view.as_ref().is_some_and(View::my_move) {
                                player.next_at = Some(Instant::now() + jitter(setup.pace, rng));
                            }
                        }
                    }
                    _ => {}
                }
            }
            Wake::Timer => {
                let now = Instant::now();
                let late = players
                    .iter()
                    .any(|p| p.pending.is_some_and(|(_, sent)| now >= sent + PATIENCE))
                    || in_flight
                        .front()
                        .is_some_and(|&(_, sent)| now >= sent + PATIENCE)
                    || (idle && now >= last_state + PATIENCE);
                if late {
                    shared.timeouts.fetch_add(1, Ordering::Relaxed);
                    return Err(Stop::Failed);
                }
                for (p, player) in players.iter_mut().enumerate() {
                    if player.next_at.is_none_or(|at| at > now) {
                        continue;
                    }
                    player.next_at = None;
                    let Some(view) = &player.view else {
                        continue;
                    };
                    let (frame, expect) = match view.phase.as_str() {
                        "finished" => (ClientFrame::Rematch, Expect::NewGame),
                        "placement" if view.my_move() => {
                            (ClientFrame::intent(&Intent::PlaceRandom), Expect::Ready)
                        }
                        "battle" if view.my_move() => {
                            let Some((board, col, row)) = pick_target(view, rng) else {
                                continue;
                            };
                            player.aiming = Some((board, col, row));
                            (
                                ClientFrame::intent(&Intent::Fire {
                                    target: Target {
                                        board: board as usize,
                                        at: Cell {
                                            col: col as u16,
                                            row: row as u16,
                                        },
                                    },
                                }),
                                Expect::Shot,
                            )
                        }
                        _ => continue,
                    };
                    let sent = Instant::now();
                    send(&mut player.ws, shared, &frame).await?;
                    player.pending = Some((expect, sent));
                    if expect == Expect::Shot {
                        in_flight.push_back((p, sent));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::wire::Board;
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

    fn view(seat: u64, rows: &[&str]) -> View {
        View {
            seat: Some(seat),
            phase: "battle".to_string(),
            to_move: vec![seat],
            boards: vec![
                Board {
                    owner: Some(0),
                    rows: vec!["~~~".to_string(); 3],
                },
                Board {
                    owner: Some(1),
                    rows: rows.iter().map(|r| r.to_string()).collect(),
                },
            ],
        }
    }

    #[test]
    fn targets_are_unshot_cells_of_the_opponent() {
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        let battle = view(0, &["OX#", "O~O", ".~*"]);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            seen.insert(pick_target(&battle, &mut rng).expect("two cells are left"));
        }
        let expected: std::collections::BTreeSet<_> = [(1, 1, 1), (1, 1, 2)].into();
        assert_eq!(seen, expected);
        assert_eq!(pick_target(&view(0, &["OOO"]), &mut rng), None);
    }

    #[test]
    fn jitter_stays_within_half_the_pace() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let pace = Duration::from_millis(2000);
        for _ in 0..1000 {
            let d = jitter(pace, &mut rng);
            assert!(d >= Duration::from_millis(1000) && d <= Duration::from_millis(3000));
        }
    }

    #[tokio::test]
    async fn a_503_on_upgrade_counts_as_a_failed_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback binds");
        let addr = listener.local_addr().expect("bound");
        let server = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut stream, _) = listener.accept().expect("the generator connects");
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            stream
                .write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n")
                .expect("the answer is written");
        });
        let setup = Setup {
            resume: false,
            final_views: false,
            addr,
            url: format!("ws://{addr}/ws"),
            preset: broadside_engine::Preset::Classic,
            pace: Duration::from_millis(100),
            ws_config: WebSocketConfig::default(),
        };
        let shared = Shared::new().expect("a histogram");
        let (_stop_tx, mut stop) = watch::channel(false);
        assert!(matches!(
            connect(&setup, &shared, &mut stop).await,
            Err(Stop::Failed)
        ));
        assert_eq!(shared.connect_errors.load(Ordering::Relaxed), 1);
        assert_eq!(shared.errors(), 1);
        assert_eq!(shared.connections.load(Ordering::Relaxed), 0);
        server.join().expect("the fake server ends");
    }
}
