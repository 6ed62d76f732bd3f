//! PostgreSQL: players (a guest's token hash and nickname; an account's
//! sessions are in `sessions`, accounts.rs).

use super::Postgres;
use crate::db::store::PlayerStore;
use crate::db::DbError;

impl PlayerStore for Postgres {
    async fn player_by_token_hash(&self, hash: Vec<u8>) -> Result<Option<(i64, String)>, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "SELECT id, nickname FROM players WHERE token_hash = $1
                 UNION ALL
                 SELECT players.id, players.nickname FROM sessions
                 JOIN players ON players.id = sessions.player_id
                 WHERE sessions.token_hash = $1",
            )
            .await?;
        let row = client.query_opt(&statement, &[&hash]).await?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(
                "INSERT INTO players (token_hash, nickname, created_ms) VALUES ($1, $2, $3)
                 RETURNING id",
            )
            .await?;
        let row = client
            .query_one(&statement, &[&hash, &nickname, &now_ms])
            .await?;
        self.committed();
        Ok(row.get(0))
    }

    async fn nickname(&self, player_id: i64) -> Result<Option<String>, DbError> {
        let rows = self
            .query("SELECT nickname FROM players WHERE id = $1", &[&player_id])
            .await?;
        Ok(rows.first().map(|row| row.get(0)))
    }

    async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached("UPDATE players SET nickname = $2 WHERE id = $1")
            .await?;
        client.execute(&statement, &[&player_id, &nickname]).await?;
        self.committed();
        Ok(())
    }
}
