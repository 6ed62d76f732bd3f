//! SQLite: players (a guest's token hash and nickname; an account's
//! sessions are in `sessions`, accounts.rs).

use rusqlite::params;

use super::{exec, first, Sqlite};
use crate::db::store::PlayerStore;
use crate::db::DbError;

impl PlayerStore for Sqlite {
    async fn player_by_token_hash(&self, hash: Vec<u8>) -> Result<Option<(i64, String)>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT id, nickname FROM players WHERE token_hash = ?1
                 UNION ALL
                 SELECT players.id, players.nickname FROM sessions
                 JOIN players ON players.id = sessions.player_id
                 WHERE sessions.token_hash = ?1",
            )?;
            first(&mut statement, [hash], |row| Ok((row.get(0)?, row.get(1)?)))
        })
        .await
    }

    async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO players (token_hash, nickname, created_ms) VALUES (?1, ?2, ?3)",
                params![hash, nickname, now_ms],
            )?;
            Ok(conn.last_insert_rowid())
        })
        .await
    }

    async fn nickname(&self, player_id: i64) -> Result<Option<String>, DbError> {
        self.call(move |conn| {
            let mut statement =
                conn.prepare_cached("SELECT nickname FROM players WHERE id = ?1")?;
            first(&mut statement, [player_id], |row| Ok(row.get(0)?))
        })
        .await
    }

    async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "UPDATE players SET nickname = ?2 WHERE id = ?1",
                params![player_id, nickname],
            )?;
            Ok(())
        })
        .await
    }
}
