//! PostgreSQL's schema: the migrations in order, applied once under an
//! advisory lock (nodes starting together migrate once).

use super::Postgres;
use crate::db::DbError;

/// The key of the advisory lock that migrations hold, so that nodes starting
/// together migrate the database once ("Broadside" in ASCII).
const MIGRATION_LOCK: i64 = 0x4272_6f61_6473_6964;

/// The migrations, in order; `schema_migrations` lists the versions applied
/// (the first is version 1).
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE players (
    id          BIGSERIAL PRIMARY KEY,
    token_hash  BYTEA NOT NULL UNIQUE,
    nickname    TEXT NOT NULL,
    created_ms  BIGINT NOT NULL
);
CREATE TABLE rooms (
    code        TEXT PRIMARY KEY,
    setup       TEXT NOT NULL,
    host        BIGINT NOT NULL,
    game_id     BIGINT,
    game_number BIGINT NOT NULL DEFAULT 0,
    phase       TEXT NOT NULL,
    to_move     TEXT NOT NULL DEFAULT '[]',
    created_ms  BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL
);
CREATE INDEX rooms_by_phase ON rooms(phase);
CREATE TABLE seats (
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    player_id   BIGINT REFERENCES players(id),
    level       TEXT,
    PRIMARY KEY (room_code, seat)
);
CREATE INDEX seats_by_player ON seats(player_id);
CREATE TABLE games (
    id          BIGSERIAL PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    number      BIGINT NOT NULL,
    setup       TEXT NOT NULL,
    deadline_ms BIGINT,
    finished    BOOLEAN NOT NULL DEFAULT FALSE,
    created_ms  BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL
);
CREATE TABLE commands (
    game_id     BIGINT NOT NULL REFERENCES games(id),
    seq         BIGINT NOT NULL,
    command     TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    deadline_ms BIGINT,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE chat (
    id          BIGSERIAL PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        BIGINT,
    nickname    TEXT NOT NULL,
    text        TEXT NOT NULL,
    at_ms       BIGINT NOT NULL
);
CREATE INDEX chat_by_room ON chat(room_code, id);
CREATE TABLE leases (
    room_code   TEXT PRIMARY KEY REFERENCES rooms(code),
    node        TEXT NOT NULL,
    token       BIGINT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX leases_by_expiry ON leases(expires_at);
CREATE SEQUENCE lease_tokens;
"#,
    // Public play: open rooms, results, ratings and the quick-match queue.
    // (`placing` is a reserved word of PostgreSQL: it is quoted.)
    r#"
ALTER TABLE rooms ADD COLUMN public BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX rooms_open ON rooms(public, phase);
CREATE TABLE game_results (
    game_id       BIGINT NOT NULL REFERENCES games(id),
    seat          BIGINT NOT NULL,
    player_id     BIGINT REFERENCES players(id),
    "placing"     BIGINT NOT NULL,
    rating_before DOUBLE PRECISION,
    rating_after  DOUBLE PRECISION,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_results_by_player ON game_results(player_id, game_id);
CREATE TABLE ratings (
    player_id   BIGINT NOT NULL REFERENCES players(id),
    preset      TEXT NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    games       BIGINT NOT NULL,
    wins        BIGINT NOT NULL,
    updated_ms  BIGINT NOT NULL,
    PRIMARY KEY (player_id, preset)
);
CREATE INDEX ratings_by_preset ON ratings(preset, rating);
CREATE TABLE match_queue (
    player_id   BIGINT PRIMARY KEY REFERENCES players(id),
    nickname    TEXT NOT NULL,
    preset      TEXT NOT NULL,
    node        TEXT NOT NULL,
    conn        BIGINT NOT NULL,
    since_ms    BIGINT NOT NULL
);
CREATE INDEX match_queue_by_preset ON match_queue(preset, since_ms);
"#,
    // Fair play: a chat line said to watchers only, and every pair of people
    // a rated game rated (the pair limit; the opponents met).
    r#"
ALTER TABLE chat ADD COLUMN watchers BOOLEAN NOT NULL DEFAULT FALSE;
CREATE TABLE rated_pairs (
    player_a    BIGINT NOT NULL REFERENCES players(id),
    player_b    BIGINT NOT NULL REFERENCES players(id),
    preset      TEXT NOT NULL,
    game_id     BIGINT NOT NULL REFERENCES games(id),
    at_ms       BIGINT NOT NULL,
    PRIMARY KEY (game_id, player_a, player_b)
);
CREATE INDEX rated_pairs_by_pair ON rated_pairs(player_a, player_b, at_ms);
CREATE INDEX rated_pairs_by_b ON rated_pairs(player_b, preset);
"#,
    // Replays built once (replay.rs), and the lease on each node's name.
    r#"
CREATE TABLE replays (
    game_id     BIGINT PRIMARY KEY REFERENCES games(id),
    tag         TEXT NOT NULL,
    gzip        BYTEA NOT NULL,
    built_ms    BIGINT NOT NULL
);
CREATE TABLE node_names (
    node        TEXT PRIMARY KEY,
    instance    TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
"#,
    // Accounts (accounts.rs): passkeys, sessions, recovery codes, link codes.
    r#"
CREATE TABLE accounts (
    player_id    BIGINT PRIMARY KEY REFERENCES players(id),
    username     TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    handle       BYTEA NOT NULL UNIQUE,
    created_ms   BIGINT NOT NULL
);
CREATE TABLE passkeys (
    cred_id      TEXT PRIMARY KEY,
    player_id    BIGINT NOT NULL REFERENCES accounts(player_id),
    passkey      TEXT NOT NULL,
    created_ms   BIGINT NOT NULL,
    last_used_ms BIGINT
);
CREATE INDEX passkeys_by_player ON passkeys(player_id);
CREATE TABLE sessions (
    token_hash   BYTEA PRIMARY KEY,
    player_id    BIGINT NOT NULL REFERENCES accounts(player_id),
    created_ms   BIGINT NOT NULL
);
CREATE INDEX sessions_by_player ON sessions(player_id);
CREATE TABLE recovery_codes (
    player_id    BIGINT NOT NULL REFERENCES accounts(player_id),
    code_hash    BYTEA NOT NULL,
    used_ms      BIGINT,
    PRIMARY KEY (player_id, code_hash)
);
CREATE TABLE link_codes (
    code_hash    BYTEA PRIMARY KEY,
    kind         TEXT NOT NULL,
    player_id    BIGINT REFERENCES accounts(player_id),
    expires_ms   BIGINT NOT NULL
);
"#, // Moderation (moderation.rs): blocks, reports, bans and mutes, and the
    // log of what the operators did.
    r#"
CREATE TABLE blocks (
    player_id    BIGINT NOT NULL REFERENCES players(id),
    blocked_id   BIGINT NOT NULL REFERENCES players(id),
    created_ms   BIGINT NOT NULL,
    PRIMARY KEY (player_id, blocked_id)
);
CREATE INDEX blocks_by_blocked ON blocks(blocked_id);
CREATE TABLE reports (
    id           BIGSERIAL PRIMARY KEY,
    reporter_id  BIGINT NOT NULL REFERENCES players(id),
    reported_id  BIGINT NOT NULL REFERENCES players(id),
    room_code    TEXT,
    game_id      BIGINT,
    reason       TEXT NOT NULL,
    note         TEXT,
    created_ms   BIGINT NOT NULL
);
CREATE TABLE sanctions (
    player_id       BIGINT PRIMARY KEY REFERENCES players(id),
    banned_until_ms BIGINT,
    muted_until_ms  BIGINT,
    changed_ms      BIGINT NOT NULL
);
CREATE INDEX sanctions_by_change ON sanctions(changed_ms);
CREATE TABLE moderation_log (
    id           BIGSERIAL PRIMARY KEY,
    player_id    BIGINT NOT NULL REFERENCES players(id),
    action       TEXT NOT NULL,
    until_ms     BIGINT,
    reason       TEXT NOT NULL,
    at_ms        BIGINT NOT NULL
);
"#,
];

impl Postgres {
    /// Applies the migrations not yet applied, all in one transaction under an
    /// advisory lock: a node starting while another migrates waits, then finds
    /// nothing left to do.
    pub(super) async fn migrate(&self) -> Result<(), DbError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INT PRIMARY KEY)")
            .await?;
        let applied: i32 = tx
            .query_one(
                "SELECT COALESCE(max(version), 0) FROM schema_migrations",
                &[],
            )
            .await?
            .get(0);
        for (number, migration) in (1..).zip(MIGRATIONS) {
            if number <= applied {
                continue;
            }
            tx.batch_execute(migration).await?;
            tx.execute(
                "INSERT INTO schema_migrations (version) VALUES ($1)",
                &[&number],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
