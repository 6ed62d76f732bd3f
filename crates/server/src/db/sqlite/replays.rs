//! SQLite: built replays (replay.rs) and node names. One process owns the
//! file, so a node's name is always its own here.

use std::time::Duration;

use rusqlite::params;

use super::{exec, first, Sqlite};
use crate::db::store::{NodeClaim, NodeStore, ReplayStore};
use crate::db::DbError;

impl ReplayStore for Sqlite {
    async fn load_replay(&self, game_id: i64) -> Result<Option<(String, Vec<u8>)>, DbError> {
        self.call(move |conn| {
            let mut statement =
                conn.prepare_cached("SELECT tag, gzip FROM replays WHERE game_id = ?1")?;
            first(&mut statement, [game_id], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
        })
        .await
    }

    async fn store_replay(
        &self,
        game_id: i64,
        tag: String,
        gzip: Vec<u8>,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO replays (game_id, tag, gzip, built_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (game_id) DO NOTHING",
                params![game_id, tag, gzip, now_ms],
            )?;
            Ok(())
        })
        .await
    }
}

impl NodeStore for Sqlite {
    async fn claim_node(
        &self,
        _node: String,
        _instance: String,
        _ttl: Duration,
    ) -> Result<NodeClaim, DbError> {
        Ok(NodeClaim::Held)
    }

    async fn renew_node(
        &self,
        _node: String,
        _instance: String,
        _ttl: Duration,
    ) -> Result<bool, DbError> {
        Ok(true)
    }

    async fn release_node(&self, _node: String, _instance: String) -> Result<(), DbError> {
        Ok(())
    }
}
