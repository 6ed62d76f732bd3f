//! SQLite: the quick-match queue's rows (whom to pair is decided in
//! `decisions.rs`). The writer runs one job at a time, so a claim needs no
//! lock: it is one job.

use rusqlite::params;

use super::{exec, first, rows, Sqlite};
use crate::db::decisions::small;
use crate::db::store::{Claim, QueueStore, Queued};
use crate::db::{DbError, Waiting};

impl QueueStore for Sqlite {
    async fn enqueue(&self, waiting: Waiting, preset: String, now_ms: i64) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO match_queue (player_id, preset, node, conn, since_ms, nickname) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(player_id) DO UPDATE SET preset = ?2, node = ?3, conn = ?4, since_ms = ?5, nickname = ?6",
                params![waiting.player_id, preset, waiting.node, waiting.conn as i64, now_ms, waiting.nickname],
            )?;
            Ok(())
        })
        .await
    }

    async fn dequeue(&self, player_id: i64, conn: u64) -> Result<bool, DbError> {
        self.call(move |db| {
            let removed = exec(
                db,
                "DELETE FROM match_queue WHERE player_id = ?1 AND conn = ?2",
                params![player_id, conn as i64],
            )?;
            Ok(removed > 0)
        })
        .await
    }

    async fn queued_with(
        &self,
        me: i64,
        conn: u64,
    ) -> Result<Option<(String, Vec<Queued>)>, DbError> {
        self.call(move |db| {
            let mut mine = db
                .prepare_cached("SELECT preset FROM match_queue WHERE player_id = ?1 AND conn = ?2")?;
            let Some(preset) = first(&mut mine, params![me, conn as i64], |row| {
                Ok(row.get::<_, String>(0)?)
            })?
            else {
                return Ok(None);
            };
            let mut all = db.prepare_cached(
                "SELECT player_id, node, conn, nickname, since_ms FROM match_queue WHERE preset = ?1",
            )?;
            let queued = rows(&mut all, [&preset], |row| {
                Ok(Queued {
                    waiting: Waiting {
                        player_id: row.get(0)?,
                        node: row.get(1)?,
                        conn: row.get::<_, i64>(2)? as u64,
                        nickname: row.get(3)?,
                    },
                    since_ms: row.get(4)?,
                })
            })?;
            Ok(Some((preset, queued)))
        })
        .await
    }

    async fn claim_pair(
        &self,
        me: i64,
        conn: u64,
        preset: &str,
        partner: i64,
    ) -> Result<Claim, DbError> {
        let preset = preset.to_string();
        self.call(move |db| {
            let mut mine = db.prepare_cached(
                "SELECT 1 FROM match_queue WHERE player_id = ?1 AND conn = ?2 AND preset = ?3",
            )?;
            if first(&mut mine, params![me, conn as i64, preset], |_| Ok(()))?.is_none() {
                return Ok(Claim::NotWaiting);
            }
            let mut theirs = db.prepare_cached(
                "SELECT player_id, node, conn, nickname FROM match_queue
                 WHERE player_id = ?1 AND preset = ?2 AND player_id != ?3",
            )?;
            let found = first(&mut theirs, params![partner, preset, me], |row| {
                Ok(Waiting {
                    player_id: row.get(0)?,
                    node: row.get(1)?,
                    conn: row.get::<_, i64>(2)? as u64,
                    nickname: row.get(3)?,
                })
            })?;
            let Some(partner) = found else {
                return Ok(Claim::PartnerTaken);
            };
            exec(
                db,
                "DELETE FROM match_queue WHERE player_id IN (?1, ?2)",
                params![me, partner.player_id],
            )?;
            Ok(Claim::Paired(partner))
        })
        .await
    }

    async fn waiting(&self, preset: String) -> Result<u32, DbError> {
        self.call(move |conn| {
            let mut statement =
                conn.prepare_cached("SELECT count(*) FROM match_queue WHERE preset = ?1")?;
            let count = first(&mut statement, [preset], |row| Ok(row.get::<_, i64>(0)?))?;
            small(count.unwrap_or(0), "queue length")
        })
        .await
    }

    async fn clear_queue(&self, node: String) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(conn, "DELETE FROM match_queue WHERE node = ?1", [node])?;
            Ok(())
        })
        .await
    }
}
