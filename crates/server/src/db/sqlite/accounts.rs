//! SQLite: accounts, passkeys, sessions, recovery codes and link codes.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{exec, first, rows, Sqlite};
use crate::db::store::{AccountRow, AccountStore, LinkKind, NewAccount, PasskeyRow};
use crate::db::DbError;

const ACCOUNT_COLUMNS: &str = "player_id, username, handle, created_ms";

fn account_row(row: &Row<'_>) -> Result<AccountRow, DbError> {
    Ok(AccountRow {
        player_id: row.get(0)?,
        username: row.get(1)?,
        handle: row.get(2)?,
        created_ms: row.get(3)?,
    })
}

fn insert_passkey(conn: &Connection, row: &PasskeyRow) -> Result<bool, DbError> {
    let added = exec(
        conn,
        "INSERT INTO passkeys (cred_id, player_id, passkey, created_ms, last_used_ms)
         VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (cred_id) DO NOTHING",
        params![
            row.cred_id,
            row.player_id,
            row.passkey,
            row.created_ms,
            row.last_used_ms
        ],
    )?;
    Ok(added == 1)
}

impl AccountStore for Sqlite {
    async fn account(&self, player_id: i64) -> Result<Option<AccountRow>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE player_id = ?1"
            ))?;
            first(&mut statement, [player_id], account_row)
        })
        .await
    }

    async fn account_by_key(&self, key: String) -> Result<Option<AccountRow>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE username_key = ?1"
            ))?;
            first(&mut statement, [key], account_row)
        })
        .await
    }

    async fn create_account(&self, new: NewAccount) -> Result<bool, DbError> {
        self.call(move |conn| {
            // The job runs in a savepoint of its own: an error below rolls
            // back every row it wrote.
            let created = exec(
                conn,
                "INSERT INTO accounts (player_id, username, username_key, handle, created_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                params![new.player_id, new.username, new.key, new.handle, new.now_ms],
            )?;
            if created == 0 {
                return Ok(false);
            }
            if !insert_passkey(conn, &new.passkey)? {
                return Err(DbError::Corrupt("a passkey's id is stored twice".into()));
            }
            exec(
                conn,
                "INSERT INTO sessions (token_hash, player_id, created_ms) VALUES (?1, ?2, ?3)",
                params![new.session_hash, new.player_id, new.now_ms],
            )?;
            exec(
                conn,
                "UPDATE players SET token_hash = ?2 WHERE id = ?1",
                params![new.player_id, new.unusable_hash],
            )?;
            for hash in &new.recovery_hashes {
                exec(
                    conn,
                    "INSERT INTO recovery_codes (player_id, code_hash) VALUES (?1, ?2)",
                    params![new.player_id, hash],
                )?;
            }
            Ok(true)
        })
        .await
    }

    async fn passkeys(&self, player_id: i64) -> Result<Vec<PasskeyRow>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT cred_id, player_id, passkey, created_ms, last_used_ms FROM passkeys
                 WHERE player_id = ?1 ORDER BY created_ms, cred_id",
            )?;
            rows(&mut statement, [player_id], |row| {
                Ok(PasskeyRow {
                    cred_id: row.get(0)?,
                    player_id: row.get(1)?,
                    passkey: row.get(2)?,
                    created_ms: row.get(3)?,
                    last_used_ms: row.get(4)?,
                })
            })
        })
        .await
    }

    async fn add_passkey(&self, row: PasskeyRow) -> Result<bool, DbError> {
        self.call(move |conn| insert_passkey(conn, &row)).await
    }

    async fn passkey_used(
        &self,
        cred_id: String,
        passkey: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "UPDATE passkeys SET passkey = ?2, last_used_ms = ?3 WHERE cred_id = ?1",
                params![cred_id, passkey, now_ms],
            )?;
            Ok(())
        })
        .await
    }

    async fn create_session(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO sessions (token_hash, player_id, created_ms) VALUES (?1, ?2, ?3)",
                params![hash, player_id, now_ms],
            )?;
            Ok(())
        })
        .await
    }

    async fn end_session(&self, hash: Vec<u8>) -> Result<bool, DbError> {
        self.call(move |conn| {
            Ok(exec(conn, "DELETE FROM sessions WHERE token_hash = ?1", [hash])? == 1)
        })
        .await
    }

    async fn end_other_sessions(&self, player_id: i64, keep: Vec<u8>) -> Result<u32, DbError> {
        self.call(move |conn| {
            let ended = exec(
                conn,
                "DELETE FROM sessions WHERE player_id = ?1 AND token_hash <> ?2",
                params![player_id, keep],
            )?;
            Ok(u32::try_from(ended).unwrap_or(u32::MAX))
        })
        .await
    }

    async fn session_counts(&self, player_id: i64) -> Result<(u32, u32), DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT (SELECT count(*) FROM sessions WHERE player_id = ?1),
                        (SELECT count(*) FROM recovery_codes
                         WHERE player_id = ?1 AND used_ms IS NULL)",
            )?;
            let counts = first(&mut statement, [player_id], |row| {
                Ok((row.get::<_, u32>(0)?, row.get::<_, u32>(1)?))
            })?;
            Ok(counts.unwrap_or((0, 0)))
        })
        .await
    }

    async fn use_recovery_code(
        &self,
        player_id: i64,
        hash: Vec<u8>,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        self.call(move |conn| {
            let used = exec(
                conn,
                "UPDATE recovery_codes SET used_ms = ?3
                 WHERE player_id = ?1 AND code_hash = ?2 AND used_ms IS NULL",
                params![player_id, hash, now_ms],
            )?;
            Ok(used == 1)
        })
        .await
    }

    async fn store_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        player_id: Option<i64>,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "DELETE FROM link_codes WHERE expires_ms < ?1",
                [now_ms],
            )?;
            exec(
                conn,
                "INSERT INTO link_codes (code_hash, kind, player_id, expires_ms)
                 VALUES (?1, ?2, ?3, ?4)",
                params![hash, kind.as_str(), player_id, expires_ms],
            )?;
            Ok(())
        })
        .await
    }

    async fn approve_link_code(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        self.call(move |conn| {
            let approved = exec(
                conn,
                "UPDATE link_codes SET player_id = ?2
                 WHERE code_hash = ?1 AND kind = 'request' AND player_id IS NULL
                   AND expires_ms >= ?3",
                params![hash, player_id, now_ms],
            )?;
            Ok(approved == 1)
        })
        .await
    }

    async fn take_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        now_ms: i64,
    ) -> Result<Option<i64>, DbError> {
        self.call(move |conn| {
            let player: Option<i64> = conn
                .prepare_cached(
                    "DELETE FROM link_codes
                     WHERE code_hash = ?1 AND kind = ?2 AND player_id IS NOT NULL
                       AND expires_ms >= ?3
                     RETURNING player_id",
                )?
                .query_row(params![hash, kind.as_str(), now_ms], |row| row.get(0))
                .optional()?;
            Ok(player)
        })
        .await
    }
}
