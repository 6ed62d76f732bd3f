//! PostgreSQL: accounts, passkeys, sessions, recovery codes and link codes.

use tokio_postgres::Row;

use super::Postgres;
use crate::db::store::{AccountRow, AccountStore, LinkKind, NewAccount, PasskeyRow};
use crate::db::DbError;

const ACCOUNT_COLUMNS: &str = "player_id, username, handle, created_ms";

fn account_row(row: &Row) -> AccountRow {
    AccountRow {
        player_id: row.get(0),
        username: row.get(1),
        handle: row.get(2),
        created_ms: row.get(3),
    }
}

const INSERT_PASSKEY: &str =
    "INSERT INTO passkeys (cred_id, player_id, passkey, created_ms, last_used_ms)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (cred_id) DO NOTHING";

impl AccountStore for Postgres {
    async fn account(&self, player_id: i64) -> Result<Option<AccountRow>, DbError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE player_id = $1");
        let rows = self.query(&sql, &[&player_id]).await?;
        Ok(rows.first().map(account_row))
    }

    async fn account_by_key(&self, key: String) -> Result<Option<AccountRow>, DbError> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE username_key = $1");
        let rows = self.query(&sql, &[&key]).await?;
        Ok(rows.first().map(account_row))
    }

    async fn create_account(&self, new: NewAccount) -> Result<bool, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let created = tx
            .execute(
                "INSERT INTO accounts (player_id, username, username_key, handle, created_ms)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                &[
                    &new.player_id,
                    &new.username,
                    &new.key,
                    &new.handle,
                    &new.now_ms,
                ],
            )
            .await?;
        if created == 0 {
            return Ok(false);
        }
        let passkey = &new.passkey;
        let added = tx
            .execute(
                INSERT_PASSKEY,
                &[
                    &passkey.cred_id,
                    &passkey.player_id,
                    &passkey.passkey,
                    &passkey.created_ms,
                    &passkey.last_used_ms,
                ],
            )
            .await?;
        if added == 0 {
            return Err(DbError::Corrupt("a passkey's id is stored twice".into()));
        }
        tx.execute(
            "INSERT INTO sessions (token_hash, player_id, created_ms) VALUES ($1, $2, $3)",
            &[&new.session_hash, &new.player_id, &new.now_ms],
        )
        .await?;
        tx.execute(
            "UPDATE players SET token_hash = $2 WHERE id = $1",
            &[&new.player_id, &new.unusable_hash],
        )
        .await?;
        for hash in &new.recovery_hashes {
            tx.execute(
                "INSERT INTO recovery_codes (player_id, code_hash) VALUES ($1, $2)",
                &[&new.player_id, hash],
            )
            .await?;
        }
        tx.commit().await?;
        self.committed();
        Ok(true)
    }

    async fn passkeys(&self, player_id: i64) -> Result<Vec<PasskeyRow>, DbError> {
        let rows = self
            .query(
                "SELECT cred_id, player_id, passkey, created_ms, last_used_ms FROM passkeys
                 WHERE player_id = $1 ORDER BY created_ms, cred_id",
                &[&player_id],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| PasskeyRow {
                cred_id: row.get(0),
                player_id: row.get(1),
                passkey: row.get(2),
                created_ms: row.get(3),
                last_used_ms: row.get(4),
            })
            .collect())
    }

    async fn add_passkey(&self, row: PasskeyRow) -> Result<bool, DbError> {
        let added = self
            .execute(
                INSERT_PASSKEY,
                &[
                    &row.cred_id,
                    &row.player_id,
                    &row.passkey,
                    &row.created_ms,
                    &row.last_used_ms,
                ],
            )
            .await?;
        Ok(added == 1)
    }

    async fn passkey_used(
        &self,
        cred_id: String,
        passkey: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.execute(
            "UPDATE passkeys SET passkey = $2, last_used_ms = $3 WHERE cred_id = $1",
            &[&cred_id, &passkey, &now_ms],
        )
        .await?;
        Ok(())
    }

    async fn create_session(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.execute(
            "INSERT INTO sessions (token_hash, player_id, created_ms) VALUES ($1, $2, $3)",
            &[&hash, &player_id, &now_ms],
        )
        .await?;
        Ok(())
    }

    async fn end_session(&self, hash: Vec<u8>) -> Result<bool, DbError> {
        let ended = self
            .execute("DELETE FROM sessions WHERE token_hash = $1", &[&hash])
            .await?;
        Ok(ended == 1)
    }

    async fn end_other_sessions(&self, player_id: i64, keep: Vec<u8>) -> Result<u32, DbError> {
        let ended = self
            .execute(
                "DELETE FROM sessions WHERE player_id = $1 AND token_hash <> $2",
                &[&player_id, &keep],
            )
            .await?;
        Ok(u32::try_from(ended).unwrap_or(u32::MAX))
    }

    async fn session_counts(&self, player_id: i64) -> Result<(u32, u32), DbError> {
        let rows = self
            .query(
                "SELECT (SELECT count(*) FROM sessions WHERE player_id = $1),
                        (SELECT count(*) FROM recovery_codes
                         WHERE player_id = $1 AND used_ms IS NULL)",
                &[&player_id],
            )
            .await?;
        let count = |at: usize| -> u32 {
            rows.first()
                .map(|row| u32::try_from(row.get::<_, i64>(at)).unwrap_or(u32::MAX))
                .unwrap_or(0)
        };
        Ok((count(0), count(1)))
    }

    async fn use_recovery_code(
        &self,
        player_id: i64,
        hash: Vec<u8>,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        let used = self
            .execute(
                "UPDATE recovery_codes SET used_ms = $3
                 WHERE player_id = $1 AND code_hash = $2 AND used_ms IS NULL",
                &[&player_id, &hash, &now_ms],
            )
            .await?;
        Ok(used == 1)
    }

    async fn store_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        player_id: Option<i64>,
        now_ms: i64,
        expires_ms: i64,
    ) -> Result<(), DbError> {
        self.execute(
            "WITH expired AS (DELETE FROM link_codes WHERE expires_ms < $5)
             INSERT INTO link_codes (code_hash, kind, player_id, expires_ms)
             VALUES ($1, $2, $3, $4)",
            &[&hash, &kind.as_str(), &player_id, &expires_ms, &now_ms],
        )
        .await?;
        Ok(())
    }

    async fn approve_link_code(
        &self,
        hash: Vec<u8>,
        player_id: i64,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        let approved = self
            .execute(
                "UPDATE link_codes SET player_id = $2
                 WHERE code_hash = $1 AND kind = 'request' AND player_id IS NULL
                   AND expires_ms >= $3",
                &[&hash, &player_id, &now_ms],
            )
            .await?;
        Ok(approved == 1)
    }

    async fn take_link_code(
        &self,
        hash: Vec<u8>,
        kind: LinkKind,
        now_ms: i64,
    ) -> Result<Option<i64>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "DELETE FROM link_codes
                 WHERE code_hash = $1 AND kind = $2 AND player_id IS NOT NULL
                   AND expires_ms >= $3
                 RETURNING player_id",
            )
            .await?;
        let row = client
            .query_opt(&statement, &[&hash, &kind.as_str(), &now_ms])
            .await?;
        self.committed();
        Ok(row.map(|row| row.get(0)))
    }
}
