//! PostgreSQL: built replays (replay.rs) and node names — a lease on each
//! node's name (instance, expiry by the database's clock), so that two live
//! processes never serve under one name.

use std::time::Duration;

use super::{millis, Postgres};
use crate::db::store::{NodeClaim, NodeStore, ReplayStore};
use crate::db::DbError;

impl ReplayStore for Postgres {
    async fn load_replay(&self, game_id: i64) -> Result<Option<(String, Vec<u8>)>, DbError> {
        let rows = self
            .query(
                "SELECT tag, gzip FROM replays WHERE game_id = $1",
                &[&game_id],
            )
            .await?;
        Ok(rows.first().map(|row| (row.get(0), row.get(1))))
    }

    /// Several nodes may build one game's replay at once: the first stored
    /// stays (they are equal).
    async fn store_replay(
        &self,
        game_id: i64,
        tag: String,
        gzip: Vec<u8>,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.execute(
            "INSERT INTO replays (game_id, tag, gzip, built_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (game_id) DO NOTHING",
            &[&game_id, &tag, &gzip, &now_ms],
        )
        .await?;
        Ok(())
    }
}

impl NodeStore for Postgres {
    /// One statement: of two processes claiming one name at once, one wins.
    async fn claim_node(
        &self,
        node: String,
        instance: String,
        ttl: Duration,
    ) -> Result<NodeClaim, DbError> {
        let claimed = self
            .query(
                "INSERT INTO node_names (node, instance, expires_at)
                 VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond')
                 ON CONFLICT (node) DO UPDATE
                     SET instance = EXCLUDED.instance, expires_at = EXCLUDED.expires_at
                     WHERE node_names.expires_at <= now() OR node_names.instance = EXCLUDED.instance
                 RETURNING instance",
                &[&node, &instance, &millis(ttl)],
            )
            .await?;
        self.committed();
        if !claimed.is_empty() {
            return Ok(NodeClaim::Held);
        }
        let holder = self
            .query(
                "SELECT instance, GREATEST(0, (EXTRACT(EPOCH FROM expires_at - now()) * 1000))::bigint
                 FROM node_names WHERE node = $1",
                &[&node],
            )
            .await?;
        Ok(match holder.first() {
            Some(row) => NodeClaim::Taken {
                instance: row.get(0),
                expires_in: Duration::from_millis(u64::try_from(row.get::<_, i64>(1)).unwrap_or(0)),
            },
            // Released in between: the next claim takes it.
            None => NodeClaim::Taken {
                instance: String::new(),
                expires_in: Duration::ZERO,
            },
        })
    }

    /// Even an expired claim renews while nobody else has taken the name.
    async fn renew_node(
        &self,
        node: String,
        instance: String,
        ttl: Duration,
    ) -> Result<bool, DbError> {
        let updated = self
            .execute(
                "UPDATE node_names SET expires_at = now() + $3::bigint * interval '1 millisecond'
                 WHERE node = $1 AND instance = $2",
                &[&node, &instance, &millis(ttl)],
            )
            .await?;
        Ok(updated == 1)
    }

    async fn release_node(&self, node: String, instance: String) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM node_names WHERE node = $1 AND instance = $2",
            &[&node, &instance],
        )
        .await?;
        Ok(())
    }
}
