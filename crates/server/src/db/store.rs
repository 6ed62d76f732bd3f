//! The contract a storage backend fulfils: [`Store`], the reads, writes and
//! locks (transactions, the lease fence) of one database, and nothing that
//! decides. What to write and whether stored data is sound is decided once,
//! above the backends, in `decisions.rs`; a backend only stores and reads.
//!
//! **Why `fn … -> impl Future + Send`.** The methods are native async
//! functions in traits, spelled out with a `Send` bound so that every backend
//! is checked, where it is written, to hand the server futures it may spawn on
//! its worker threads. `Db` dispatches over an enum of the two concrete
//! backends, so nothing needs a `dyn Store`: no boxing per call, no extra
//! crate (`async-trait`), and an implementation may simply be an `async fn`.
//!
//! [`Store`] is the sum of one trait per concern (players, rooms and games,
//! the command log, public queries, the quick-match queue, leases), so that
//! each backend implements each concern in a module of its own.
//!
//! **Decisions inside a backend's transaction.** A game's ratings must be
//! computed from ratings read (and locked) in the transaction that stores its
//! last command. For that the backend, inside that transaction, hands a
//! [`ResultsTx`] (three primitives: lock ratings, write ratings, write result
//! rows) to the shared [`store_results`](super::decisions::store_results),
//! which decides what is written. [`ResultsTx`]'s futures carry no `Send`
//! bound: SQLite's run on its writer thread, where they are ready at once
//! (`now_or_never`); PostgreSQL's are checked `Send` with the
//! `record_command` that awaits them.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use super::{
    ChatRecord, CommandRecord, DbError, Lease, MyGame, OpenRoom, Owner, PastGame, Ranked,
    RoomRecord, Waiting,
};
use crate::ratings::Rating;

/// Everything a backend provides.
pub(crate) trait Store:
    PlayerStore
    + AccountStore
    + ModerationStore
    + RoomStore
    + LogStore
    + PublicStore
    + QueueStore
    + LeaseStore
    + ReplayStore
    + NodeStore
{
    /// Whether several nodes may share this database (then leases matter).
    fn is_shared(&self) -> bool;

    /// Commits made and jobs done so far.
    fn stats(&self) -> (u64, u64);
}

pub(crate) trait PlayerStore {
    /// The player whose session token hashes to `hash` (a guest's own token,
    /// or a session of an account): id and nickname.
    fn player_by_token_hash(
        &self,
        hash: Vec<u8>,
    ) -> impl Future<Output = Result<Option<(i64, String)>, DbError>> + Send;

    /// A new player; answers the id.
    fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> impl Future<Output = Result<i64, DbError>> + Send;

    fn set_nickname(
        &self,
        player_id: i64,
        nickname: String,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// A player's nickname, if there is such a player.
    fn nickname(
        &self,
        player_id: i64,
    ) -> impl Future<Output = Result<Option<String>, DbError>> + Send;
}

/// Accounts (a player with a username and passkeys), their sessions,
/// recovery codes and the one-use codes that link a device. Secrets are
/// stored only as SHA-256 hashes.
pub(crate) trait AccountStore {
    /// The account of a player, if the player has one.
    fn account(
        &self,
        player_id: i64,
    ) -> impl Future<Output = Result<Option<AccountRow>, DbError>> + Send;

    /// The account whose username has the key `key` (accounts.rs).
    fn account_by_key(
        &self,
        key: String,
    ) -> impl Future<Output = Result<Option<AccountRow>, DbError>> + Send;

    /// One transaction: makes the player an account with its first passkey
    /// and recovery codes, and turns the guest's token into the account's
    /// first session (the player's own token hash is replaced by
    /// `new.unusable_hash`, which no token has). `false`, and nothing
    /// written, if the player already has an account or the username key
    /// is taken.
    fn create_account(&self, new: NewAccount)
        -> impl Future<Output = Result<bool, DbError>> + Send;

    /// The passkeys of a player, oldest first.
    fn passkeys(
        &self,
        player_id: i64,
    ) -> impl Future<Output = Result<Vec<PasskeyRow>, DbError>> + Send;

    /// Adds a passkey; `false` if its credential id is stored already.
    fn add_passkey(&self, row: PasskeyRow) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Stores a passkey's state after a sign-in (its counter) and when.
    fn passkey_used(
        &self,
        cred_id: String,
        passkey: String,
        now_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn create_session(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Ends one session; `false` if it was not there.
    fn end_session(&self, hash: Vec<u8>) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Ends every session of the player but `keep`; answers how many ended.
    fn end_other_sessions(
        &self,
        player_id: i64,
        keep: Vec<u8>,
    ) -> impl Future<Output = Result<u32, DbError>> + Send;

    /// Sessions and recovery codes left of a player.
    fn session_counts(
        &self,
        player_id: i64,
    ) -> impl Future<Output = Result<(u32, u32), DbError>> + Send;

    /// Marks a recovery code used; `false` if the player has no such unused code.
    fn use_recovery_code(
        &self,
        player_id: i64,
        hash: Vec<u8>,
        now_ms: i64,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Stores a link code (removing expired ones): an `offer` names the
    /// account it signs in to; a `request` names none until approved.
    fn store_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        player_id: Option<i64>,
        now_ms: i64,
        expires_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Approves a pending `request` code for the player; `false` if there is
    /// no such unexpired, unapproved code.
    fn approve_link_code(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Takes (removes) a code of `kind` that names an account and has not
    /// expired: the account's player. `None` (nothing removed) otherwise.
    fn take_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        now_ms: i64,
    ) -> impl Future<Output = Result<Option<i64>, DbError>> + Send;
}

/// Blocks between people, reports, and the operators' bans and mutes.
pub(crate) trait ModerationStore {
    /// `player` blocks `blocked` (again: nothing changes).
    fn add_block(
        &self,
        player: i64,
        blocked: i64,
        now_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn remove_block(
        &self,
        player: i64,
        blocked: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// The people `player` blocks, with the name to show (the username of
    /// an account, else the nickname), most recent first.
    fn blocks_of(
        &self,
        player: i64,
    ) -> impl Future<Output = Result<Vec<(i64, String)>, DbError>> + Send;

    /// Those of `others` whom `player` blocks or who block `player`.
    fn blocked_either_way(
        &self,
        player: i64,
        others: Vec<i64>,
    ) -> impl Future<Output = Result<Vec<i64>, DbError>> + Send;

    fn add_report(&self, report: ReportRow) -> impl Future<Output = Result<(), DbError>> + Send;

    /// The most recent reports, newest first, at most `limit`, each with
    /// the names of both people.
    fn reports(
        &self,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<(ReportRow, String, String)>, DbError>> + Send;

    /// One transaction: sets a person's ban and mute (`None`: none) and logs
    /// the action (every node follows the log: `sanctions_since`).
    fn set_sanction(
        &self,
        sanction: Sanction,
        action: String,
        reason: String,
        now_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// A person's ban and mute as stored (`None` for both when none).
    fn sanction(
        &self,
        player: i64,
    ) -> impl Future<Output = Result<Option<Sanction>, DbError>> + Send;

    /// The sanctions of the people the operators' log names after its line
    /// `after`, each with that line's id (in order; the caller asks again
    /// from the last id it saw).
    fn sanctions_since(
        &self,
        after: i64,
    ) -> impl Future<Output = Result<Vec<(Sanction, i64)>, DbError>> + Send;

    /// The operators' log, newest first, at most `limit`: player, action,
    /// until, reason, when.
    fn moderation_log(
        &self,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<LogLine>, DbError>> + Send;
}

/// A report as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRow {
    pub id: i64,
    pub reporter: i64,
    pub reported: i64,
    pub room_code: Option<String>,
    pub game_id: Option<i64>,
    pub reason: String,
    pub note: Option<String>,
    pub created_ms: i64,
}

/// A person's ban and mute: until when (unix ms), `None` for none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sanction {
    pub player: i64,
    pub banned_until_ms: Option<i64>,
    pub muted_until_ms: Option<i64>,
}

/// One line of the operators' log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub id: i64,
    pub player: i64,
    pub action: String,
    pub until_ms: Option<i64>,
    pub reason: String,
    pub at_ms: i64,
}

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    pub player_id: i64,
    pub username: String,
    /// The WebAuthn user handle (16 bytes).
    pub handle: Vec<u8>,
    pub created_ms: i64,
}

/// A passkey as stored: the verifier's state as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasskeyRow {
    /// The credential id, base64url.
    pub cred_id: String,
    pub player_id: i64,
    pub passkey: String,
    pub created_ms: i64,
    pub last_used_ms: Option<i64>,
}

/// What [`AccountStore::create_account`] writes.
#[derive(Clone, Debug)]
pub struct NewAccount {
    pub player_id: i64,
    pub username: String,
    pub key: String,
    pub handle: Vec<u8>,
    pub passkey: PasskeyRow,
    /// The guest token's hash, which becomes the account's first session.
    pub session_hash: Vec<u8>,
    pub unusable_hash: Vec<u8>,
    pub recovery_hashes: Vec<Vec<u8>>,
    pub now_ms: i64,
}

/// Which way a link code works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// Shown by a signed-in device; entered on the new one.
    Offer,
    /// Shown by the new device (the terminal); approved on a signed-in one.
    Request,
}

impl LinkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Offer => "offer",
            LinkKind::Request => "request",
        }
    }
}

/// Rooms, their seats, games and chat. Every write but `create_room` is
/// behind the lease's fence: refused with [`DbError::Fenced`], and nothing
/// written, once the lease is no longer the room's (a backend whose database
/// one process owns never fences).
pub(crate) trait RoomStore {
    /// Stores a new room with `node`'s lease on it, atomically; `None` (and
    /// nothing written) if its code is taken.
    fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        ttl: Duration,
    ) -> impl Future<Output = Result<Option<Lease>, DbError>> + Send;

    /// Writes a room's row and replaces its seats (insert or update).
    fn save_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        lease: &Lease,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Stores a new game (number, setup, deadline) and points the room's row
    /// at it with the room's summary; answers the game's id.
    fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        lease: &Lease,
    ) -> impl Future<Output = Result<i64, DbError>> + Send;

    fn add_chat(
        &self,
        code: String,
        line: ChatRecord,
        lease: &Lease,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Codes of the rooms whose phase is neither `lobby` nor `finished`,
    /// least recently active first.
    fn running_rooms(&self) -> impl Future<Output = Result<Vec<String>, DbError>> + Send;

    /// A room with its seats (in seat order, with the players' nicknames),
    /// the id its row points at and that game with its whole log, as stored
    /// and read at one moment; `None` if there is no such room.
    fn load_room(
        &self,
        code: String,
    ) -> impl Future<Output = Result<Option<StoredRoom>, DbError>> + Send;

    /// The rooms not finished where `player_id` holds a person's seat, most
    /// recently active first, at most 50, each with its seats.
    fn my_games(&self, player_id: i64)
        -> impl Future<Output = Result<Vec<MyGame>, DbError>> + Send;

    /// The last `limit` chat lines of a room, oldest first.
    fn recent_chat(
        &self,
        code: String,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<ChatRecord>, DbError>> + Send;
}

/// The command log.
pub(crate) trait LogStore {
    /// Appends one command (behind the fence) with the deadline after it; when
    /// the record is `finished` marks the game finished (at `at_ms`, deadline
    /// cleared); when the summary changed or the game finished, updates the
    /// room's phase and seats to move. When it carries results, the backend
    /// runs [`store_results`](super::decisions::store_results) with its
    /// [`ResultsTx`] in the same transaction, after the fence. All of it or
    /// nothing. A sequence number already stored is an error (not `Fenced`).
    /// The caller has checked that `seq` fits an `i64`.
    fn record_command(
        &self,
        record: CommandRecord,
        lease: &Lease,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// A game by its id with its whole log, read at one moment; `None` if no
    /// game has this id.
    fn load_game(&self, id: i64) -> impl Future<Output = Result<Option<GameRows>, DbError>> + Send;
}

/// What a backend offers inside the transaction of a game's last command.
pub(crate) trait ResultsTx {
    /// The ratings of `players` (ascending ids) in `preset`, every one of
    /// them (missing: the starting rating), held until the transaction ends
    /// so that no other game's results change them meanwhile.
    fn lock_ratings(
        &mut self,
        players: &[i64],
        preset: &str,
        at_ms: i64,
    ) -> impl Future<Output = Result<BTreeMap<i64, Rating>, DbError>>;

    /// Stores new ratings of people whose ratings this transaction locked.
    fn write_ratings(
        &mut self,
        preset: &str,
        at_ms: i64,
        ratings: &BTreeMap<i64, Rating>,
    ) -> impl Future<Output = Result<(), DbError>>;

    /// How many rated games each pair of people (`(a, b)`, `a < b`) played
    /// together since `since_ms`, in any preset, in the order of `pairs`.
    /// Called after `lock_ratings`, whose locks order concurrent games of
    /// the same people, so each sees the pairs the one before it wrote.
    fn rated_games_of_pairs(
        &mut self,
        pairs: &[(i64, i64)],
        since_ms: i64,
    ) -> impl Future<Output = Result<Vec<u32>, DbError>>;

    /// Stores the pairs of people a rated game rated.
    fn write_rated_pairs(
        &mut self,
        game_id: i64,
        preset: &str,
        at_ms: i64,
        pairs: &[(i64, i64)],
    ) -> impl Future<Output = Result<(), DbError>>;

    /// Stores the game's result rows.
    fn write_results(
        &mut self,
        game_id: i64,
        rows: &[ResultRow],
    ) -> impl Future<Output = Result<(), DbError>>;
}

/// Reads for the public pages.
pub(crate) trait PublicStore {
    /// Rooms that are public and in their lobby, most recently updated first,
    /// at most `limit`, each with its seats.
    fn open_rooms(
        &self,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<OpenRoom>, DbError>> + Send;

    /// A preset's ratings, best first (then most games, then the oldest
    /// player), at most `limit`.
    fn leaderboard(
        &self,
        preset: String,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<Ranked>, DbError>> + Send;

    /// The stored ratings of some people in a preset (missing: unrated).
    fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> impl Future<Output = Result<BTreeMap<i64, Rating>, DbError>> + Send;

    /// The games with a result row of `player_id`, most recently finished
    /// first, at most `limit`.
    fn history(
        &self,
        player_id: i64,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<PastGame>, DbError>> + Send;
}

/// The quick-match queue: one row per person. Whom to pair is decided above
/// ([`take_partner`](super::decisions::take_partner)).
pub(crate) trait QueueStore {
    /// Stores (or replaces) the person's row: preset, node, connection,
    /// nickname, since `now_ms`.
    fn enqueue(
        &self,
        waiting: Waiting,
        preset: String,
        now_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Removes the person's row if it is connection `conn`'s; `true` if it was there.
    fn dequeue(
        &self,
        player_id: i64,
        conn: u64,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// If `me` waits from `conn`: the preset and everybody who waits for it
    /// (`me` too), in no particular order.
    fn queued_with(
        &self,
        me: i64,
        conn: u64,
    ) -> impl Future<Output = Result<Option<(String, Vec<Queued>)>, DbError>> + Send;

    /// One transaction: if `me` still waits from `conn` for `preset` (a
    /// concurrent claim of `me`'s row is waited for) and `partner` waits for
    /// `preset` with a row no concurrent transaction holds, removes both rows
    /// and answers the partner's; otherwise removes nothing.
    fn claim_pair(
        &self,
        me: i64,
        conn: u64,
        preset: &str,
        partner: i64,
    ) -> impl Future<Output = Result<Claim, DbError>> + Send;

    /// How many rows a preset has.
    fn waiting(&self, preset: String) -> impl Future<Output = Result<u32, DbError>> + Send;

    /// Removes a node's rows.
    fn clear_queue(&self, node: String) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// The rooms' leases (trivial where one process owns the database: every
/// room is its own, token 0, never fenced).
pub(crate) trait LeaseStore {
    /// Takes the room for `node` (a new, larger token) if the room exists and
    /// nobody holds it, its lease has expired or `node` itself held it; one
    /// atomic step, so two nodes racing cannot both win.
    fn acquire(
        &self,
        code: String,
        node: &str,
        ttl: Duration,
    ) -> impl Future<Output = Result<Option<Lease>, DbError>> + Send;

    /// Extends the lease; `false` if another holder has taken the room.
    fn renew(
        &self,
        lease: &Lease,
        ttl: Duration,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Leaves the lease expired (`hand_over`) or removes it; nothing if it is
    /// no longer this holder's.
    fn release(
        &self,
        lease: &Lease,
        hand_over: bool,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Rooms whose lease has expired, longest expired first, at most `limit`.
    fn expired_leases(
        &self,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<String>, DbError>> + Send;

    /// Who holds the room's lease, if anybody, and whether it is still live.
    fn owner(&self, code: String) -> impl Future<Output = Result<Option<Owner>, DbError>> + Send;
}

/// Finished games' replays as built once (replay.rs): the tag of the JSON
/// and the JSON gzip-compressed. Not behind a fence: a finished game no
/// longer changes, and any node may build its replay.
pub(crate) trait ReplayStore {
    /// The stored replay of a game, if it has been built.
    fn load_replay(
        &self,
        game_id: i64,
    ) -> impl Future<Output = Result<Option<(String, Vec<u8>)>, DbError>> + Send;

    /// Stores a game's replay; one already stored is kept.
    fn store_replay(
        &self,
        game_id: i64,
        tag: String,
        gzip: Vec<u8>,
        now_ms: i64,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// Nodes' names: a lease per name (held by one running process, its
/// *instance*), so that two live processes never serve under one name
/// (trivial where one process owns the database).
pub(crate) trait NodeStore {
    /// Takes the name for `instance` if nobody holds it, its lease has
    /// expired or `instance` itself holds it; one atomic step.
    fn claim_node(
        &self,
        node: String,
        instance: String,
        ttl: Duration,
    ) -> impl Future<Output = Result<NodeClaim, DbError>> + Send;

    /// Extends the lease; `false` if another instance has taken the name.
    fn renew_node(
        &self,
        node: String,
        instance: String,
        ttl: Duration,
    ) -> impl Future<Output = Result<bool, DbError>> + Send;

    /// Gives the name up, if `instance` still holds it.
    fn release_node(
        &self,
        node: String,
        instance: String,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// What [`NodeStore::claim_node`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeClaim {
    /// The name is the caller's now.
    Held,
    /// Another instance holds it, for this much longer unless it renews.
    Taken {
        instance: String,
        expires_in: Duration,
    },
}

/// A room as a backend reads it, before the shared checks.
#[derive(Clone, Debug)]
pub(crate) struct StoredRoom {
    pub room: RoomRecord,
    /// The game the room's row points at.
    pub game_id: Option<i64>,
    /// That game, if it exists.
    pub game: Option<GameRows>,
}

/// A game's row and its log as a backend reads them, before the shared checks.
#[derive(Clone, Debug)]
pub(crate) struct GameRows {
    pub id: i64,
    pub room_code: String,
    pub number: u32,
    pub setup: String,
    /// The game's own deadline (before its first command).
    pub deadline_ms: Option<i64>,
    pub finished: bool,
    pub updated_ms: i64,
    /// The log in the order of its sequence numbers.
    pub log: Vec<Logged>,
}

/// One row of a command log.
#[derive(Clone, Debug)]
pub(crate) struct Logged {
    pub seq: i64,
    pub command: String,
    /// The timer's deadline after the command.
    pub deadline_ms: Option<i64>,
}

/// One row of a game's results.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ResultRow {
    pub seat: usize,
    pub player_id: Option<i64>,
    pub placing: u32,
    pub rating_before: Option<f64>,
    pub rating_after: Option<f64>,
}

/// A row of the quick-match queue.
#[derive(Clone, Debug)]
pub(crate) struct Queued {
    pub waiting: Waiting,
    pub since_ms: i64,
}

/// What [`QueueStore::claim_pair`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// Both rows removed: the partner's as it was.
    Paired(Waiting),
    /// `me` no longer waits (from that connection, for that preset).
    NotWaiting,
    /// The partner is gone or being paired by somebody else.
    PartnerTaken,
}
