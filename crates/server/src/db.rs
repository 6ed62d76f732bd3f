//! Persistence behind one interface with two backends: SQLite in a file (the
//! single-node default, `sqlite`) and PostgreSQL (`postgres`), which several
//! nodes of a cluster share.
//!
//! A game is stored as its setup (with the seed) and the ordered list of
//! accepted commands; replaying them through the engine rebuilds it exactly,
//! because all of the game's randomness comes from the seeded generator inside
//! it.
//!
//! **One contract.** A backend implements [`store::Store`]: reads, writes and
//! locks (transactions, the lease fence), nothing that decides. [`Db`] sits
//! above the backends and is where the decisions live (`decisions.rs`): the
//! ratings a finished game writes, whom the quick-match queue pairs, whether
//! a command log read back is sound, and the guards on what is stored. The
//! contract suite (`contract/`, tests only) runs every check on both
//! backends.
//!
//! **Leases.** In a cluster exactly one node owns a room: it holds the room's
//! lease (owner node, expiry, fencing token). Every write on behalf of a room
//! carries the owner's [`Lease`] and is refused ([`DbError::Fenced`]) once
//! another node has taken the room, so two nodes can never both append to one
//! game's log. With SQLite one process owns the file and every room, and the
//! leases are trivial (token 0, never fenced).

mod decisions;
mod postgres;
mod records;
mod sqlite;
mod store;

#[cfg(test)]
mod contract;
#[cfg(test)]
mod testing;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

pub use records::{
    ChatRecord, CommandRecord, GameRecord, GameResults, Lease, MyGame, OpenRoom, Owner, PastGame,
    Ranked, RoomRecord, SeatKind, SeatRecord, SeatResult, StoredGame, Waiting,
};
pub use store::{
    AccountRow, LinkKind, LogLine, NewAccount, NodeClaim, PasskeyRow, ReportRow, Sanction,
};
use store::{
    AccountStore, LeaseStore, LogStore, ModerationStore, NodeStore, PlayerStore, PublicStore,
    QueueStore, ReplayStore, RoomStore, Store,
};

use crate::ratings::Rating;

/// A failure of the database.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database: {0}")]
    Postgres(String),
    #[error("cannot create the data directory: {0}")]
    Io(#[from] std::io::Error),
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    #[error("the database is closed")]
    Closed,
    #[error("database commit: {0}")]
    Commit(String),
    /// The write's lease is no longer the room's: another node owns it now.
    #[error("room {0} is owned by another node now")]
    Fenced(String),
}

enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// The database, shared by all tasks of a node.
pub struct Db(Backend);

/// Runs the same code on whichever backend this is: `both!(self, store =>
/// expression)` with `store` bound to the backend.
macro_rules! both {
    ($db:expr, $store:ident => $body:expr) => {
        match &$db.0 {
            Backend::Sqlite($store) => $body,
            Backend::Postgres($store) => $body,
        }
    };
}

impl Db {
    /// Opens (creating if missing) the SQLite database at `path`, migrates it
    /// and starts its writer.
    pub fn open(path: &Path) -> Result<Db, DbError> {
        Ok(Db(Backend::Sqlite(sqlite::Sqlite::open(path)?)))
    }

    /// A private SQLite database in memory (measurements and unit tests).
    pub fn open_in_memory() -> Result<Db, DbError> {
        Ok(Db(Backend::Sqlite(sqlite::Sqlite::open_in_memory()?)))
    }

    /// Opens the database `spec` names: a `postgres://` (or `postgresql://`)
    /// URL, migrated on connection, or else the path of a SQLite file.
    pub async fn connect(spec: &str) -> Result<Db, DbError> {
        if Db::is_postgres_url(spec) {
            Ok(Db(Backend::Postgres(
                postgres::Postgres::connect(spec).await?,
            )))
        } else {
            Db::open(Path::new(spec))
        }
    }

    /// Whether `spec` names a PostgreSQL database rather than a SQLite file.
    pub fn is_postgres_url(spec: &str) -> bool {
        spec.starts_with("postgres://") || spec.starts_with("postgresql://")
    }

    /// Whether several nodes may share this database (then leases matter).
    pub fn is_shared(&self) -> bool {
        both!(self, store => store.is_shared())
    }

    /// Commits made and jobs done so far (SQLite's writer; jobs per commit
    /// shows the grouping).
    pub fn stats(&self) -> (u64, u64) {
        both!(self, store => store.stats())
    }

    pub async fn player_by_token_hash(
        &self,
        hash: Vec<u8>,
    ) -> Result<Option<(i64, String)>, DbError> {
        both!(self, store => store.player_by_token_hash(hash).await)
    }

    pub async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        both!(self, store => store.create_player(hash, nickname, now_ms).await)
    }

    /// A player's nickname, if there is such a player.
    pub async fn nickname(&self, player_id: i64) -> Result<Option<String>, DbError> {
        both!(self, store => store.nickname(player_id).await)
    }

    pub async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        both!(self, store => store.set_nickname(player_id, nickname).await)
    }

    pub async fn account(&self, player_id: i64) -> Result<Option<AccountRow>, DbError> {
        both!(self, store => store.account(player_id).await)
    }

    pub async fn account_by_key(&self, key: String) -> Result<Option<AccountRow>, DbError> {
        both!(self, store => store.account_by_key(key).await)
    }

    pub async fn create_account(&self, new: NewAccount) -> Result<bool, DbError> {
        both!(self, store => store.create_account(new).await)
    }

    pub async fn passkeys(&self, player_id: i64) -> Result<Vec<PasskeyRow>, DbError> {
        both!(self, store => store.passkeys(player_id).await)
    }

    pub async fn add_passkey(&self, row: PasskeyRow) -> Result<bool, DbError> {
        both!(self, store => store.add_passkey(row).await)
    }

    pub async fn passkey_used(
        &self,
        cred_id: String,
        passkey: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, store => store.passkey_used(cred_id, passkey, now_ms).await)
    }

    pub async fn create_session(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, store => store.create_session(hash, player_id, now_ms).await)
    }

    pub async fn end_session(&self, hash: Vec<u8>) -> Result<bool, DbError> {
        both!(self, store => store.end_session(hash).await)
    }

    pub async fn end_other_sessions(&self, player_id: i64, keep: Vec<u8>) -> Result<u32, DbError> {
        both!(self, store => store.end_other_sessions(player_id, keep).await)
    }

    /// Sessions and unused recovery codes of a player.
    pub async fn session_counts(&self, player_id: i64) -> Result<(u32, u32), DbError> {
        both!(self, store => store.session_counts(player_id).await)
    }

    pub async fn use_recovery_code(
        &self,
        player_id: i64,
        hash: Vec<u8>,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        both!(self, store => store.use_recovery_code(player_id, hash, now_ms).await)
    }

    pub async fn store_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        player_id: Option<i64>,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, store => store.store_link_code(hash, kind, player_id, now_ms, expires_ms).await)
    }

    pub async fn approve_link_code(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        both!(self, store => store.approve_link_code(hash, player_id, now_ms).await)
    }

    pub async fn take_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        now_ms: i64,
    ) -> Result<Option<i64>, DbError> {
        both!(self, store => store.take_link_code(hash, kind, now_ms).await)
    }

    pub async fn add_block(&self, player: i64, blocked: i64, now_ms: i64) -> Result<(), DbError> {
        both!(self, store => store.add_block(player, blocked, now_ms).await)
    }

    pub async fn remove_block(&self, player: i64, blocked: i64) -> Result<(), DbError> {
        both!(self, store => store.remove_block(player, blocked).await)
    }

    pub async fn blocks_of(&self, player: i64) -> Result<Vec<(i64, String)>, DbError> {
        both!(self, store => store.blocks_of(player).await)
    }

    pub async fn blocked_either_way(
        &self,
        player: i64,
        others: Vec<i64>,
    ) -> Result<Vec<i64>, DbError> {
        if others.is_empty() {
            return Ok(Vec::new());
        }
        both!(self, store => store.blocked_either_way(player, others).await)
    }

    pub async fn add_report(&self, report: ReportRow) -> Result<(), DbError> {
        both!(self, store => store.add_report(report).await)
    }

    pub async fn reports(&self, limit: usize) -> Result<Vec<(ReportRow, String, String)>, DbError> {
        both!(self, store => store.reports(limit).await)
    }

    pub async fn set_sanction(
        &self,
        sanction: Sanction,
        action: String,
        reason: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, store => store.set_sanction(sanction, action, reason, now_ms).await)
    }

    pub async fn sanction(&self, player: i64) -> Result<Option<Sanction>, DbError> {
        both!(self, store => store.sanction(player).await)
    }

    pub async fn sanctions_since(&self, after: i64) -> Result<Vec<(Sanction, i64)>, DbError> {
        both!(self, store => store.sanctions_since(after).await)
    }

    pub async fn moderation_log(&self, limit: usize) -> Result<Vec<LogLine>, DbError> {
        both!(self, store => store.moderation_log(limit).await)
    }

    /// Stores a new room owned by `node` and returns the node's lease on it;
    /// `None` (and nothing written) if its code is taken.
    pub async fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        both!(self, store => store.create_room(room, now_ms, node, ttl).await)
    }

    /// Writes a room's row and seats (insert or update).
    pub async fn save_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        lease: &Lease,
    ) -> Result<(), DbError> {
        both!(self, store => store.save_room(room, now_ms, lease).await)
    }

    /// Starts a new game in a room and returns its id.
    pub async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        lease: &Lease,
    ) -> Result<i64, DbError> {
        both!(self, store => store.start_game(room, setup, deadline_ms, now_ms, lease).await)
    }

    /// Appends one accepted command to a game's log with the game's new
    /// deadline, and updates the room's summary when it changed, atomically;
    /// the command that ends a game stores its results (and, if rated, the
    /// new ratings: `decisions::store_results`) in the same transaction.
    pub async fn record_command(
        &self,
        record: CommandRecord,
        lease: &Lease,
    ) -> Result<(), DbError> {
        decisions::check_command(&record)?;
        both!(self, store => store.record_command(record, lease).await)
    }

    pub async fn add_chat(
        &self,
        code: String,
        line: ChatRecord,
        lease: &Lease,
    ) -> Result<(), DbError> {
        both!(self, store => store.add_chat(code, line, lease).await)
    }

    /// Codes of the rooms whose game runs (started and not finished): these
    /// are restored when the server starts, so their timers and bots go on.
    pub async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        both!(self, store => store.running_rooms().await)
    }

    /// A room and its current game, if the room exists. A game the room
    /// points at must exist and its log be gapless (else [`DbError::Corrupt`]).
    pub async fn load_room(
        &self,
        code: String,
    ) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
        both!(self, store => store.load_room(code).await)?
            .map(decisions::room_and_game)
            .transpose()
    }

    /// The rooms (lobbies and unfinished games) where a player holds a seat,
    /// most recently active first.
    pub async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        both!(self, store => store.my_games(player_id).await)
    }

    /// The last `limit` chat lines of a room, oldest first.
    pub async fn recent_chat(
        &self,
        code: String,
        limit: usize,
    ) -> Result<Vec<ChatRecord>, DbError> {
        both!(self, store => store.recent_chat(code, limit).await)
    }

    /// A stored game by its id, with its whole command log (which must be
    /// gapless), finished or not; `None` if no game has this id.
    pub async fn load_game(&self, id: i64) -> Result<Option<StoredGame>, DbError> {
        both!(self, store => store.load_game(id).await)?
            .map(decisions::stored_game)
            .transpose()
    }

    // ----- public play -------------------------------------------------------------

    /// Public rooms still in their lobby, newest first.
    pub async fn open_rooms(&self, limit: usize) -> Result<Vec<OpenRoom>, DbError> {
        both!(self, store => store.open_rooms(limit).await)
    }

    /// The best `limit` ratings of a preset.
    pub async fn leaderboard(&self, preset: String, limit: usize) -> Result<Vec<Ranked>, DbError> {
        both!(self, store => store.leaderboard(preset, limit).await)
    }

    /// The current ratings of some people in a preset (missing: unrated).
    pub async fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        both!(self, store => store.ratings(players, preset).await)
    }

    /// The finished games a person played, newest first.
    pub async fn history(&self, player_id: i64, limit: usize) -> Result<Vec<PastGame>, DbError> {
        both!(self, store => store.history(player_id, limit).await)
    }

    /// Puts a person in the quick-match queue of a preset (again: the newest
    /// connection and preset win).
    pub async fn enqueue(
        &self,
        waiting: Waiting,
        preset: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, store => store.enqueue(waiting, preset, now_ms).await)
    }

    /// Takes a person out of the queue, if they wait from connection `conn`
    /// (so that an old tab does not cancel a newer one's wait); `true` if
    /// they did (`false`: a pairing took them out first).
    pub async fn dequeue(&self, player_id: i64, conn: u64) -> Result<bool, DbError> {
        both!(self, store => store.dequeue(player_id, conn).await)
    }

    /// If `me` still waits (from `conn`), takes the person who has waited
    /// longest for the same preset out of the queue together with `me`, and
    /// returns the preset and them (`decisions::take_partner`).
    pub async fn take_partner(
        &self,
        me: i64,
        conn: u64,
    ) -> Result<Option<(String, Waiting)>, DbError> {
        both!(self, store => decisions::take_partner(store, me, conn).await)
    }

    /// How many people wait for a preset.
    pub async fn waiting(&self, preset: String) -> Result<u32, DbError> {
        both!(self, store => store.waiting(preset).await)
    }

    /// Empties the queue of a node's connections (at its start: they are gone).
    pub async fn clear_queue(&self, node: String) -> Result<(), DbError> {
        both!(self, store => store.clear_queue(node).await)
    }

    // ----- leases ------------------------------------------------------------------

    /// Takes the room for `node` if nobody holds it, its lease has expired or
    /// `node` itself held it (a restarted node), with a new fencing token;
    /// `None` while another node's lease is live.
    pub async fn acquire(
        &self,
        code: String,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        both!(self, store => store.acquire(code, node, ttl).await)
    }

    /// Extends the lease; `false` if the room has been taken by another
    /// holder (then the room must be dropped at once).
    pub async fn renew(&self, lease: &Lease, ttl: Duration) -> Result<bool, DbError> {
        both!(self, store => store.renew(lease, ttl).await)
    }

    /// Gives the room up. With `hand_over` the lease is left expired, so that
    /// another node takes the room at once (it has a clock or bots to run);
    /// otherwise it is removed and the room is loaded wherever it is next
    /// joined.
    pub async fn release(&self, lease: &Lease, hand_over: bool) -> Result<(), DbError> {
        both!(self, store => store.release(lease, hand_over).await)
    }

    /// Rooms whose owner stopped renewing (died or was paused) or handed them
    /// over: at most `limit`, longest expired first.
    pub async fn expired_leases(&self, limit: usize) -> Result<Vec<String>, DbError> {
        both!(self, store => store.expired_leases(limit).await)
    }

    /// Who holds the room's lease, if anybody.
    pub async fn owner(&self, code: String) -> Result<Option<Owner>, DbError> {
        both!(self, store => store.owner(code).await)
    }

    // ----- replays and node names ----------------------------------------------------

    /// A finished game's replay as built once: its tag and gzip-compressed
    /// JSON (replay.rs), if it has been built.
    pub async fn load_replay(&self, game_id: i64) -> Result<Option<(String, Vec<u8>)>, DbError> {
        both!(self, store => store.load_replay(game_id).await)
    }

    /// Stores a finished game's replay (one already stored is kept).
    pub async fn store_replay(
        &self,
        game_id: i64,
        tag: String,
        gzip: Vec<u8>,
        now_ms: i64,
    ) -> Result<(), DbError> {
        both!(self, store => store.store_replay(game_id, tag, gzip, now_ms).await)
    }

    /// Takes the lease on the name `node` for this process (`instance`),
    /// unless another live process holds it (cluster.rs, `NodeName`).
    pub async fn claim_node(
        &self,
        node: String,
        instance: String,
        ttl: Duration,
    ) -> Result<NodeClaim, DbError> {
        both!(self, store => store.claim_node(node, instance, ttl).await)
    }

    /// Extends the lease on a node's name; `false` if another process has
    /// taken the name.
    pub async fn renew_node(
        &self,
        node: String,
        instance: String,
        ttl: Duration,
    ) -> Result<bool, DbError> {
        both!(self, store => store.renew_node(node, instance, ttl).await)
    }

    /// Gives a node's name up.
    pub async fn release_node(&self, node: String, instance: String) -> Result<(), DbError> {
        both!(self, store => store.release_node(node, instance).await)
    }
}
