//! PostgreSQL: the quick-match queue's rows, and the claim that takes two
//! of them at once (whom to pair is decided in `decisions.rs`).

use super::Postgres;
use crate::db::decisions::small;
use crate::db::store::{Claim, QueueStore, Queued};
use crate::db::{DbError, Waiting};

impl QueueStore for Postgres {
    async fn enqueue(&self, waiting: Waiting, preset: String, now_ms: i64) -> Result<(), DbError> {
        self.execute(
            "INSERT INTO match_queue (player_id, preset, node, conn, since_ms, nickname)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (player_id) DO UPDATE SET preset = $2, node = $3, conn = $4,
                 since_ms = $5, nickname = $6",
            &[
                &waiting.player_id,
                &preset,
                &waiting.node,
                &(waiting.conn as i64),
                &now_ms,
                &waiting.nickname,
            ],
        )
        .await?;
        Ok(())
    }

    async fn dequeue(&self, player_id: i64, conn: u64) -> Result<bool, DbError> {
        let removed = self
            .execute(
                "DELETE FROM match_queue WHERE player_id = $1 AND conn = $2",
                &[&player_id, &(conn as i64)],
            )
            .await?;
        Ok(removed > 0)
    }

    /// One statement: nobody's rows are locked.
    async fn queued_with(
        &self,
        me: i64,
        conn: u64,
    ) -> Result<Option<(String, Vec<Queued>)>, DbError> {
        let rows = self
            .query(
                "WITH mine AS (SELECT preset FROM match_queue WHERE player_id = $1 AND conn = $2)
                 SELECT q.player_id, q.node, q.conn, q.nickname, q.since_ms, q.preset
                 FROM match_queue AS q JOIN mine ON q.preset = mine.preset",
                &[&me, &(conn as i64)],
            )
            .await?;
        // `me` is among them whenever `me` waits.
        let Some(preset) = rows.first().map(|row| row.get::<_, String>(5)) else {
            return Ok(None);
        };
        let queued = rows
            .iter()
            .map(|row| Queued {
                waiting: Waiting {
                    player_id: row.get(0),
                    node: row.get(1),
                    conn: row.get::<_, i64>(2) as u64,
                    nickname: row.get(3),
                },
                since_ms: row.get(4),
            })
            .collect();
        Ok(Some((preset, queued)))
    }

    /// One transaction. `me`'s row is locked first (waiting for a node that
    /// is pairing `me` right now: then `me` is gone); the partner's is taken
    /// `SKIP LOCKED`, so that no two claims wait for each other.
    async fn claim_pair(
        &self,
        me: i64,
        conn: u64,
        preset: &str,
        partner: i64,
    ) -> Result<Claim, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let mine = tx
            .prepare_cached(
                "SELECT 1 FROM match_queue WHERE player_id = $1 AND conn = $2 AND preset = $3
                 FOR UPDATE",
            )
            .await?;
        if tx
            .query_opt(&mine, &[&me, &(conn as i64), &preset])
            .await?
            .is_none()
        {
            return Ok(Claim::NotWaiting);
        }
        let theirs = tx
            .prepare_cached(
                "SELECT player_id, node, conn, nickname FROM match_queue
                 WHERE player_id = $1 AND preset = $2 AND player_id != $3
                 FOR UPDATE SKIP LOCKED",
            )
            .await?;
        let Some(row) = tx.query_opt(&theirs, &[&partner, &preset, &me]).await? else {
            return Ok(Claim::PartnerTaken);
        };
        let partner = Waiting {
            player_id: row.get(0),
            node: row.get(1),
            conn: row.get::<_, i64>(2) as u64,
            nickname: row.get(3),
        };
        let delete = tx
            .prepare_cached("DELETE FROM match_queue WHERE player_id IN ($1, $2)")
            .await?;
        tx.execute(&delete, &[&me, &partner.player_id]).await?;
        tx.commit().await?;
        self.committed();
        Ok(Claim::Paired(partner))
    }

    async fn waiting(&self, preset: String) -> Result<u32, DbError> {
        let rows = self
            .query(
                "SELECT count(*) FROM match_queue WHERE preset = $1",
                &[&preset],
            )
            .await?;
        small(rows[0].get(0), "queue length")
    }

    async fn clear_queue(&self, node: String) -> Result<(), DbError> {
        self.execute("DELETE FROM match_queue WHERE node = $1", &[&node])
            .await?;
        Ok(())
    }
}
