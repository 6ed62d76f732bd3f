//! PostgreSQL: blocks, reports, sanctions and the operators' log.

use super::Postgres;
use crate::db::store::{LogLine, ModerationStore, ReportRow, Sanction};
use crate::db::DbError;

/// The name to show of a player: the account's username, else the nickname.
fn shown(id: &str) -> String {
    format!(
        "COALESCE((SELECT username FROM accounts WHERE accounts.player_id = {id}),
                  (SELECT nickname FROM players WHERE players.id = {id}))"
    )
}

impl ModerationStore for Postgres {
    async fn add_block(&self, player: i64, blocked: i64, now_ms: i64) -> Result<(), DbError> {
        self.execute(
            "INSERT INTO blocks (player_id, blocked_id, created_ms) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING",
            &[&player, &blocked, &now_ms],
        )
        .await?;
        Ok(())
    }

    async fn remove_block(&self, player: i64, blocked: i64) -> Result<(), DbError> {
        self.execute(
            "DELETE FROM blocks WHERE player_id = $1 AND blocked_id = $2",
            &[&player, &blocked],
        )
        .await?;
        Ok(())
    }

    async fn blocks_of(&self, player: i64) -> Result<Vec<(i64, String)>, DbError> {
        let sql = format!(
            "SELECT blocked_id, {} FROM blocks WHERE player_id = $1
             ORDER BY created_ms DESC, blocked_id",
            shown("blocks.blocked_id")
        );
        let rows = self.query(&sql, &[&player]).await?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    async fn blocked_either_way(&self, player: i64, others: Vec<i64>) -> Result<Vec<i64>, DbError> {
        let rows = self
            .query(
                "SELECT DISTINCT CASE WHEN player_id = $1 THEN blocked_id ELSE player_id END
                 FROM blocks
                 WHERE (player_id = $1 AND blocked_id = ANY($2))
                    OR (blocked_id = $1 AND player_id = ANY($2))",
                &[&player, &others],
            )
            .await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    async fn add_report(&self, report: ReportRow) -> Result<(), DbError> {
        self.execute(
            "INSERT INTO reports (reporter_id, reported_id, room_code, game_id, reason, note,
                                  created_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &report.reporter,
                &report.reported,
                &report.room_code,
                &report.game_id,
                &report.reason,
                &report.note,
                &report.created_ms,
            ],
        )
        .await?;
        Ok(())
    }

    async fn reports(&self, limit: usize) -> Result<Vec<(ReportRow, String, String)>, DbError> {
        let sql = format!(
            "SELECT id, reporter_id, reported_id, room_code, game_id, reason, note, created_ms,
                    {}, {}
             FROM reports ORDER BY id DESC LIMIT $1",
            shown("reports.reporter_id"),
            shown("reports.reported_id")
        );
        let rows = self.query(&sql, &[&(limit as i64)]).await?;
        Ok(rows
            .iter()
            .map(|row| {
                (
                    ReportRow {
                        id: row.get(0),
                        reporter: row.get(1),
                        reported: row.get(2),
                        room_code: row.get(3),
                        game_id: row.get(4),
                        reason: row.get(5),
                        note: row.get(6),
                        created_ms: row.get(7),
                    },
                    row.get(8),
                    row.get(9),
                )
            })
            .collect())
    }

    async fn set_sanction(
        &self,
        sanction: Sanction,
        action: String,
        reason: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        let until = match action.as_str() {
            "mute" => sanction.muted_until_ms,
            _ => sanction.banned_until_ms,
        };
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.execute(
            "INSERT INTO sanctions (player_id, banned_until_ms, muted_until_ms, changed_ms)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (player_id) DO UPDATE SET banned_until_ms = $2,
                 muted_until_ms = $3, changed_ms = $4",
            &[
                &sanction.player,
                &sanction.banned_until_ms,
                &sanction.muted_until_ms,
                &now_ms,
            ],
        )
        .await?;
        tx.execute(
            "INSERT INTO moderation_log (player_id, action, until_ms, reason, at_ms)
             VALUES ($1, $2, $3, $4, $5)",
            &[&sanction.player, &action, &until, &reason, &now_ms],
        )
        .await?;
        tx.commit().await?;
        self.committed();
        Ok(())
    }

    async fn sanction(&self, player: i64) -> Result<Option<Sanction>, DbError> {
        let rows = self
            .query(
                "SELECT banned_until_ms, muted_until_ms FROM sanctions WHERE player_id = $1",
                &[&player],
            )
            .await?;
        Ok(rows.first().map(|row| Sanction {
            player,
            banned_until_ms: row.get(0),
            muted_until_ms: row.get(1),
        }))
    }

    async fn sanctions_since(&self, after: i64) -> Result<Vec<(Sanction, i64)>, DbError> {
        let rows = self
            .query(
                "SELECT sanctions.player_id, banned_until_ms, muted_until_ms, moderation_log.id
                 FROM moderation_log JOIN sanctions USING (player_id)
                 WHERE moderation_log.id > $1 ORDER BY moderation_log.id",
                &[&after],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| {
                (
                    Sanction {
                        player: row.get(0),
                        banned_until_ms: row.get(1),
                        muted_until_ms: row.get(2),
                    },
                    row.get(3),
                )
            })
            .collect())
    }

    async fn moderation_log(&self, limit: usize) -> Result<Vec<LogLine>, DbError> {
        let rows = self
            .query(
                "SELECT player_id, action, until_ms, reason, at_ms, id FROM moderation_log
                 ORDER BY id DESC LIMIT $1",
                &[&(limit as i64)],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| LogLine {
                player: row.get(0),
                action: row.get(1),
                until_ms: row.get(2),
                reason: row.get(3),
                at_ms: row.get(4),
                id: row.get(5),
            })
            .collect())
    }
}
