//! The lobby service: a person's public play outside any room — the quick
//! match (its queue, the pairing, the bot offer's level), the open rooms,
//! the leaderboard, the history and the person's own games.
//!
//! The quick-match queue is a table shared by every node (`match_queue`):
//! pairing takes the partner's row and the own in one transaction, so nobody
//! is paired twice, and the partner's connection — on this node or another —
//! is told to join the new room through its control channel or over NATS.
//! A connection waiting in the queue does not poll: it watches its preset's
//! [`QueueNews`] here, which this node publishes whenever one of its
//! connections enters, leaves or is paired, and — on a shared database only,
//! where other nodes change the queue too — once a second from one task per
//! node ([`Lobby::watch_queues`]).
//!
//! Above the registry (a match makes and starts a room), below the
//! connections.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use broadside_ai::Level;
use broadside_engine::{Options, Preset};
use broadside_protocol::{LeaderboardLine, MyGame, OpenRoom, PastGame, RoomPhase};
use serde_json::Value;
use tokio::sync::watch;

use crate::cluster::Cluster;
use crate::conns::Conns;
use crate::context::RoomContext;
use crate::cpu::Key;
use crate::db::Waiting;
use crate::outbox::{ConnId, Control, RemoteSink};
use crate::protocol::{self, codes, Refusal, ServerFrame};
use crate::registry::Registry;
use crate::room::{Person, RoomSetup};

/// How often, on a shared database, this node reads the queues its
/// connections wait in (other nodes change them too).
const QUEUE_LOOK: Duration = Duration::from_secs(1);
/// Rooms in the open rooms' list, lines of a leaderboard and of a history.
const OPEN_ROOMS: usize = 50;
const LEADERBOARD: usize = 50;
const HISTORY: usize = 50;

/// The news of one preset's queue for the connections waiting in it: how
/// many people wait. A connection that hears two or more tries to pair
/// (a pairing that crossed another may have left two waiting).
pub type QueueNews = watch::Receiver<u32>;

/// The lobby service of this node.
pub struct Lobby {
    context: Arc<RoomContext>,
    registry: Arc<Registry>,
    /// This node's connections: a partner waiting here is told through its
    /// own control channel.
    conns: Arc<Conns>,
    /// The bus, to reach a partner on another node.
    cluster: Option<Arc<Cluster>>,
    /// Per preset (by its id), the news of its queue for this node's
    /// waiting connections.
    queues: Mutex<HashMap<&'static str, (Preset, watch::Sender<u32>)>>,
}

impl Lobby {
    pub fn new(
        context: Arc<RoomContext>,
        registry: Arc<Registry>,
        conns: Arc<Conns>,
        cluster: Option<Arc<Cluster>>,
    ) -> Arc<Lobby> {
        Arc::new(Lobby {
            context,
            registry,
            conns,
            cluster,
            queues: Mutex::new(HashMap::new()),
        })
    }

    // ----- the quick match -----------------------------------------------------------

    /// The news of `preset`'s queue, for a connection that waits in it.
    pub fn queue_news(&self, preset: Preset) -> QueueNews {
        let mut queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        queues
            .entry(preset.id())
            .or_insert_with(|| (preset, watch::channel(0).0))
            .1
            .subscribe()
    }

    /// Tells this node's connections waiting for `preset` how many wait:
    /// when the count changed, and whenever two or more wait (they should be
    /// paired: the ones here try).
    fn publish(&self, preset: Preset, waiting: u32) {
        let queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, news)) = queues.get(preset.id()) {
            news.send_if_modified(|told| {
                let wake = *told != waiting || waiting >= 2;
                *told = waiting;
                wake
            });
        }
    }

    /// Reads how many wait for `preset` and tells this node's waiting
    /// connections; returns the count.
    pub async fn refresh(&self, preset: Preset) -> Result<u32, Refusal> {
        let waiting = self
            .context
            .db
            .waiting(preset.id().to_string())
            .await
            .map_err(internal)?;
        self.publish(preset, waiting);
        Ok(waiting)
    }

    /// Puts a person (from connection `conn`) in `preset`'s queue.
    pub async fn enqueue(
        &self,
        person: &Person,
        conn: ConnId,
        preset: Preset,
    ) -> Result<(), Refusal> {
        let waiting = Waiting {
            player_id: person.player_id,
            nickname: person.nickname.clone(),
            node: self.context.config.node.clone(),
            conn,
        };
        self.context
            .db
            .enqueue(waiting, preset.id().to_string(), self.context.now_ms())
            .await
            .map_err(internal)
    }

    /// Takes a person out of `preset`'s queue, if they wait from `conn`:
    /// `false` if they no longer did (a partner's pairing took them out
    /// first, and their game is starting).
    pub async fn dequeue(
        &self,
        person: &Person,
        conn: ConnId,
        preset: Preset,
    ) -> Result<bool, Refusal> {
        let waited = self
            .context
            .db
            .dequeue(person.player_id, conn)
            .await
            .map_err(internal)?;
        // The others here see one fewer; a failed read only delays that.
        let _ = self.refresh(preset).await;
        Ok(waited)
    }

    /// The person who has waited longest for the same preset, taken out of
    /// the queue together with `person`, if anybody waits and `person`
    /// still does. A partner whose node died (or whose connection here is
    /// gone) is skipped, and `person` queues again.
    pub async fn take_partner(
        &self,
        person: &Person,
        conn: ConnId,
        preset: Preset,
    ) -> Result<Option<Waiting>, Refusal> {
        let db = &self.context.db;
        for _ in 0..4 {
            let Some((_, partner)) = db
                .take_partner(person.player_id, conn)
                .await
                .map_err(internal)?
            else {
                return Ok(None);
            };
            let alive = match &self.cluster {
                Some(cluster) => cluster.is_alive(&partner.node),
                None => true,
            } && (partner.node != self.context.config.node
                || self.conns.outbox(partner.conn).is_some());
            if alive {
                return Ok(Some(partner));
            }
            self.enqueue(person, conn, preset).await?;
        }
        Ok(None)
    }

    /// A rated room for `person` and their `partner`, started at once; the
    /// partner's connection (on this node or another) is told to join it.
    /// Returns the room's code.
    pub async fn start_match(
        &self,
        person: Person,
        language: Option<String>,
        preset: Preset,
        partner: Waiting,
        key: Key,
    ) -> Result<String, Refusal> {
        // Rated when both are accounts; a guest's quick match is casual.
        let partner_account = self
            .context
            .db
            .account(partner.player_id)
            .await
            .map_err(|e| Refusal::new(codes::INTERNAL, format!("the server failed: {e}")))?
            .is_some();
        let setup = RoomSetup {
            preset,
            seats: 2,
            options: Options::default(),
            teams: None,
            public: false,
            rated: person.account && partner_account,
            language,
        };
        let guest = Person {
            player_id: partner.player_id,
            nickname: partner.nickname.clone(),
            account: partner_account,
        };
        let code = self
            .registry
            .create(setup, person, Some(guest), &[], key)
            .await?;
        self.registry.start_now(&code).await?;
        self.control_for(&partner.node, partner.conn, Control::Join(code.clone()));
        // The others waiting here see two fewer.
        let _ = self.refresh(preset).await;
        Ok(code)
    }

    /// An unrated game against a bot of `level`, started at once (the
    /// accepted bot offer). Returns the room's code.
    pub async fn bot_game(
        &self,
        person: Person,
        language: Option<String>,
        preset: Preset,
        level: Level,
        key: Key,
    ) -> Result<String, Refusal> {
        let setup = RoomSetup {
            preset,
            seats: 2,
            options: Options::default(),
            teams: None,
            public: false,
            rated: false,
            language,
        };
        let code = self
            .registry
            .create(setup, person, None, &[(1, level)], key)
            .await?;
        self.registry.start_now(&code).await?;
        Ok(code)
    }

    /// A bot of about this person's strength in `preset`.
    pub async fn bot_level(&self, person: &Person, preset: Preset) -> Level {
        let rating = self
            .context
            .db
            .ratings(vec![person.player_id], preset.id().to_string())
            .await
            .ok()
            .and_then(|r| r.get(&person.player_id).map(|r| r.rating))
            .unwrap_or(1500.0);
        match rating {
            r if r < 1350.0 => Level::Easy,
            r if r < 1550.0 => Level::Medium,
            r if r < 1750.0 => Level::Hard,
            _ => Level::Expert,
        }
    }

    /// Hands a connection of this node or of another node a control.
    fn control_for(&self, node: &str, conn: ConnId, control: Control) {
        if node == self.context.config.node {
            if let Some(outbox) = self.conns.outbox(conn) {
                outbox.control(control);
            }
        } else if let Some(cluster) = &self.cluster {
            cluster.send_control(node, conn, control);
        }
    }

    /// On a shared database, one task per node: once a second, reads the
    /// queues that this node's connections wait in and publishes their news
    /// (a newcomer on another node, or a pairing that crossed another and
    /// left two waiting). Ends with the lobby.
    pub async fn watch_queues(lobby: Weak<Lobby>) {
        loop {
            tokio::time::sleep(QUEUE_LOOK).await;
            let Some(lobby) = lobby.upgrade() else {
                return;
            };
            let watched: Vec<Preset> = {
                let mut queues = lobby.queues.lock().unwrap_or_else(|p| p.into_inner());
                queues.retain(|_, (_, news)| news.receiver_count() > 0);
                queues.values().map(|(preset, _)| *preset).collect()
            };
            for preset in watched {
                if let Err(refusal) = lobby.refresh(preset).await {
                    tracing::warn!(error = %refusal.message, "cannot read the quick-match queue");
                }
            }
        }
    }

    // ----- lists ---------------------------------------------------------------------

    /// `my_games`: the rooms a person holds a seat in.
    pub async fn my_games(&self, player_id: i64) -> Result<ServerFrame, Refusal> {
        let games = self
            .context
            .db
            .my_games(player_id)
            .await
            .map_err(internal)?;
        let games: Vec<MyGame> = games
            .into_iter()
            .map(|game| {
                let to_move: Vec<usize> = serde_json::from_str(&game.to_move).unwrap_or_default();
                MyGame {
                    preset: preset_of(&game.setup),
                    // Stored phases are the ids of the room's phases.
                    phase: RoomPhase::from_id(&game.phase).unwrap_or(RoomPhase::Lobby),
                    your_turn: to_move.contains(&game.seat),
                    players: protocol::seat_summaries(&game.seats),
                    code: game.code,
                    seat: game.seat,
                    updated: game.updated_ms,
                }
            })
            .collect();
        Ok(ServerFrame::Games { games })
    }

    /// `open_rooms`: the public rooms in their lobby with a seat open.
    pub async fn open_rooms(&self) -> Result<ServerFrame, Refusal> {
        let rooms = self
            .context
            .db
            .open_rooms(OPEN_ROOMS)
            .await
            .map_err(internal)?;
        let rooms: Vec<OpenRoom> = rooms
            .into_iter()
            .filter_map(|room| {
                let setup: RoomSetup = serde_json::from_str(&room.setup).ok()?;
                let taken = room
                    .seats
                    .iter()
                    .filter(|s| s.kind != crate::db::SeatKind::Open)
                    .count();
                let host = room.seats.first().and_then(|s| s.nickname.clone());
                (taken < setup.seats).then_some(OpenRoom {
                    code: room.code,
                    preset: setup.preset,
                    seats: setup.seats,
                    taken,
                    language: setup.language,
                    host,
                    rated: setup.rated,
                    spectators_see_all: setup.options.spectators_see_all.unwrap_or(false),
                    updated: room.updated_ms,
                })
            })
            .collect();
        Ok(ServerFrame::OpenRooms { rooms })
    }

    /// `leaderboard`: the best ratings of a preset.
    pub async fn leaderboard(&self, preset: Preset) -> Result<ServerFrame, Refusal> {
        let rows = self
            .context
            .db
            .leaderboard(preset.id().to_string(), LEADERBOARD)
            .await
            .map_err(internal)?;
        let players: Vec<LeaderboardLine> = rows
            .into_iter()
            .map(|row| LeaderboardLine {
                nickname: row.nickname,
                rating: row.rating.rating.round(),
                deviation: row.rating.deviation.round(),
                games: row.rating.games,
                wins: row.rating.wins,
                provisional: row.rating.provisional(),
            })
            .collect();
        Ok(ServerFrame::Leaderboard { preset, players })
    }

    /// `history`: the person's finished games, newest first.
    pub async fn history(&self, player_id: i64) -> Result<ServerFrame, Refusal> {
        let games = self
            .context
            .db
            .history(player_id, HISTORY)
            .await
            .map_err(internal)?;
        let games: Vec<PastGame> = games
            .into_iter()
            .map(|game| {
                let preset = preset_of(&game.setup);
                let result = match game.placing {
                    1 if game.firsts == game.seats => "draw".to_string(),
                    1 => "win".to_string(),
                    _ if game.seats == 2 => "loss".to_string(),
                    placing => format!("place {placing}"),
                };
                let change = game
                    .rating_before
                    .zip(game.rating_after)
                    .map(|(before, after)| (after - before).round());
                PastGame {
                    id: game.game_id,
                    code: game.code,
                    preset,
                    finished_at: game.finished_ms,
                    result,
                    placing: game.placing,
                    seats: game.seats,
                    rating: game.rating_after.map(f64::round),
                    rating_change: change,
                    replay: format!("/g/{}", game.game_id),
                }
            })
            .collect();
        Ok(ServerFrame::History { games })
    }
}

/// The preset named in a stored room setup (JSON), if it names one.
fn preset_of(setup: &str) -> Option<Preset> {
    serde_json::from_str::<Value>(setup)
        .ok()
        .and_then(|setup| serde_json::from_value(setup.get("preset")?.clone()).ok())
}

fn internal(error: impl std::fmt::Display) -> Refusal {
    Refusal::new("internal", format!("the server failed: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::db::Db;
    use crate::lifecycle::Lifecycle;
    use crate::outbox::Outbox;

    fn lobby() -> Arc<Lobby> {
        let db = Db::open_in_memory().expect("an in-memory database opens");
        let config = Config {
            cpu_threads: 1,
            ..Config::default()
        };
        let context = Arc::new(RoomContext::new(db, config));
        let (lifecycle, _stopper) = Lifecycle::new();
        let registry = Registry::new(context.clone(), None, Arc::new(lifecycle));
        Lobby::new(context, registry, Arc::new(Conns::default()), None)
    }

    async fn person(lobby: &Lobby, nickname: &str) -> Person {
        let player_id = lobby
            .context
            .db
            .create_player(nickname.as_bytes().to_vec(), nickname.into(), 0)
            .await
            .expect("a player is stored");
        Person {
            player_id,
            nickname: nickname.into(),
            account: true,
        }
    }

    /// A waiting connection is told what changed, and woken whenever two
    /// wait (they should be paired), without reading the queue itself.
    #[tokio::test]
    async fn the_queue_news_wakes_waiting_connections_on_change_and_when_two_wait() {
        let lobby = lobby();
        let classic = Preset::Classic;
        let ana = person(&lobby, "Ana").await;
        let bea = person(&lobby, "Bea").await;
        let mut news = lobby.queue_news(classic);
        let woken = |news: &mut QueueNews| {
            news.has_changed()
                .expect("the lobby lives")
                .then(|| *news.borrow_and_update())
        };

        lobby.enqueue(&ana, 1, classic).await.expect("Ana waits");
        assert_eq!(lobby.refresh(classic).await, Ok(1));
        assert_eq!(woken(&mut news), Some(1));
        assert_eq!(lobby.refresh(classic).await, Ok(1));
        assert_eq!(woken(&mut news), None, "nothing new: nobody is woken");

        lobby.enqueue(&bea, 2, classic).await.expect("Bea waits");
        assert_eq!(lobby.refresh(classic).await, Ok(2));
        assert_eq!(woken(&mut news), Some(2));
        assert_eq!(lobby.refresh(classic).await, Ok(2));
        assert_eq!(woken(&mut news), Some(2), "two wait: woken again to pair");

        // Ana pairs with Bea, whose connection is on this node.
        let (outbox, _inbox, _controls) = Outbox::new(8, 1 << 16);
        lobby.conns.register(2, outbox);
        let partner = lobby.take_partner(&ana, 1, classic).await;
        let partner = partner.expect("the queue reads").expect("Bea waits");
        assert_eq!(partner.player_id, bea.player_id);
        assert_eq!(lobby.refresh(classic).await, Ok(0));
        assert_eq!(woken(&mut news), Some(0));

        // A preset nobody here waits for has no news to tell.
        lobby.publish(Preset::Hasbro, 3);
        assert_eq!(lobby.queues.lock().expect("not poisoned").len(), 1);
    }

    /// A partner whose connection on this node is gone is skipped, and the
    /// one looking waits on.
    #[tokio::test]
    async fn a_partner_whose_connection_is_gone_is_skipped() {
        let lobby = lobby();
        let classic = Preset::Classic;
        let ana = person(&lobby, "Ana").await;
        let bea = person(&lobby, "Bea").await;
        lobby.enqueue(&bea, 2, classic).await.expect("Bea waits");
        lobby.enqueue(&ana, 1, classic).await.expect("Ana waits");
        let partner = lobby.take_partner(&ana, 1, classic).await;
        assert!(partner.expect("the queue reads").is_none());
        assert_eq!(lobby.refresh(classic).await, Ok(1), "Ana waits on alone");
    }
}
