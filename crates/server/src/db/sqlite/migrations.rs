//! SQLite's schema: the migrations in order, counted by `PRAGMA user_version`.

use rusqlite::Connection;

use crate::db::DbError;

/// The migrations, in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    token_hash  BLOB NOT NULL UNIQUE,
    nickname    TEXT NOT NULL,
    created_ms  INTEGER NOT NULL
);
CREATE TABLE rooms (
    code        TEXT PRIMARY KEY,
    setup       TEXT NOT NULL,
    host        INTEGER NOT NULL,
    game_id     INTEGER,
    game_number INTEGER NOT NULL DEFAULT 0,
    phase       TEXT NOT NULL,
    to_move     TEXT NOT NULL DEFAULT '[]',
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
);
CREATE INDEX rooms_by_phase ON rooms(phase);
CREATE TABLE seats (
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    player_id   INTEGER REFERENCES players(id),
    level       TEXT,
    PRIMARY KEY (room_code, seat)
);
CREATE INDEX seats_by_player ON seats(player_id);
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    number      INTEGER NOT NULL,
    setup       TEXT NOT NULL,
    deadline_ms INTEGER,
    finished    INTEGER NOT NULL DEFAULT 0,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
);
CREATE TABLE commands (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    command     TEXT NOT NULL,
    at_ms       INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE chat (
    id          INTEGER PRIMARY KEY,
    room_code   TEXT NOT NULL REFERENCES rooms(code),
    seat        INTEGER,
    nickname    TEXT NOT NULL,
    text        TEXT NOT NULL,
    at_ms       INTEGER NOT NULL
);
CREATE INDEX chat_by_room ON chat(room_code, id);
"#,
    // The timer's deadline travels with each command, so that a command is one
    // row written (the room's summary only changes with the phase or the turn).
    r#"
ALTER TABLE commands ADD COLUMN deadline_ms INTEGER;
"#,
    // Public play: open rooms, results, ratings and the quick-match queue.
    r#"
ALTER TABLE rooms ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
CREATE INDEX rooms_open ON rooms(public, phase);
CREATE TABLE game_results (
    game_id       INTEGER NOT NULL REFERENCES games(id),
    seat          INTEGER NOT NULL,
    player_id     INTEGER REFERENCES players(id),
    placing       INTEGER NOT NULL,
    rating_before REAL,
    rating_after  REAL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_results_by_player ON game_results(player_id, game_id);
CREATE TABLE ratings (
    player_id   INTEGER NOT NULL REFERENCES players(id),
    preset      TEXT NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    games       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (player_id, preset)
);
CREATE INDEX ratings_by_preset ON ratings(preset, rating);
CREATE TABLE match_queue (
    player_id   INTEGER PRIMARY KEY REFERENCES players(id),
    nickname    TEXT NOT NULL,
    preset      TEXT NOT NULL,
    node        TEXT NOT NULL,
    conn        INTEGER NOT NULL,
    since_ms    INTEGER NOT NULL
);
CREATE INDEX match_queue_by_preset ON match_queue(preset, since_ms);
"#,
    // Fair play: a chat line said to watchers only, and every pair of people
    // a rated game rated (the pair limit; the opponents met).
    r#"
ALTER TABLE chat ADD COLUMN watchers INTEGER NOT NULL DEFAULT 0;
CREATE TABLE rated_pairs (
    player_a    INTEGER NOT NULL REFERENCES players(id),
    player_b    INTEGER NOT NULL REFERENCES players(id),
    preset      TEXT NOT NULL,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    at_ms       INTEGER NOT NULL,
    PRIMARY KEY (game_id, player_a, player_b)
);
CREATE INDEX rated_pairs_by_pair ON rated_pairs(player_a, player_b, at_ms);
CREATE INDEX rated_pairs_by_b ON rated_pairs(player_b, preset);
"#,
    // Replays built once (replay.rs).
    r#"
CREATE TABLE replays (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id),
    tag         TEXT NOT NULL,
    gzip        BLOB NOT NULL,
    built_ms    INTEGER NOT NULL
);
"#,
    // Accounts (accounts.rs): passkeys, sessions, recovery codes, link codes.
    r#"
CREATE TABLE accounts (
    player_id    INTEGER PRIMARY KEY REFERENCES players(id),
    username     TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    handle       BLOB NOT NULL UNIQUE,
    created_ms   INTEGER NOT NULL
);
CREATE TABLE passkeys (
    cred_id      TEXT PRIMARY KEY,
    player_id    INTEGER NOT NULL REFERENCES accounts(player_id),
    passkey      TEXT NOT NULL,
    created_ms   INTEGER NOT NULL,
    last_used_ms INTEGER
);
CREATE INDEX passkeys_by_player ON passkeys(player_id);
CREATE TABLE sessions (
    token_hash   BLOB PRIMARY KEY,
    player_id    INTEGER NOT NULL REFERENCES accounts(player_id),
    created_ms   INTEGER NOT NULL
);
CREATE INDEX sessions_by_player ON sessions(player_id);
CREATE TABLE recovery_codes (
    player_id    INTEGER NOT NULL REFERENCES accounts(player_id),
    code_hash    BLOB NOT NULL,
    used_ms      INTEGER,
    PRIMARY KEY (player_id, code_hash)
);
CREATE TABLE link_codes (
    code_hash    BLOB PRIMARY KEY,
    kind         TEXT NOT NULL,
    player_id    INTEGER REFERENCES accounts(player_id),
    expires_ms   INTEGER NOT NULL
);
"#, // Moderation (moderation.rs): blocks, reports, bans and mutes, and the
    // log of what the operators did.
    r#"
CREATE TABLE blocks (
    player_id    INTEGER NOT NULL REFERENCES players(id),
    blocked_id   INTEGER NOT NULL REFERENCES players(id),
    created_ms   INTEGER NOT NULL,
    PRIMARY KEY (player_id, blocked_id)
);
CREATE INDEX blocks_by_blocked ON blocks(blocked_id);
CREATE TABLE reports (
    id           INTEGER PRIMARY KEY,
    reporter_id  INTEGER NOT NULL REFERENCES players(id),
    reported_id  INTEGER NOT NULL REFERENCES players(id),
    room_code    TEXT,
    game_id      INTEGER,
    reason       TEXT NOT NULL,
    note         TEXT,
    created_ms   INTEGER NOT NULL
);
CREATE TABLE sanctions (
    player_id       INTEGER PRIMARY KEY REFERENCES players(id),
    banned_until_ms INTEGER,
    muted_until_ms  INTEGER,
    changed_ms      INTEGER NOT NULL
);
CREATE INDEX sanctions_by_change ON sanctions(changed_ms);
CREATE TABLE moderation_log (
    id           INTEGER PRIMARY KEY,
    player_id    INTEGER NOT NULL REFERENCES players(id),
    action       TEXT NOT NULL,
    until_ms     INTEGER,
    reason       TEXT NOT NULL,
    at_ms        INTEGER NOT NULL
);
"#,
];

pub(super) fn migrate(conn: &mut Connection) -> Result<(), DbError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(migration)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}
