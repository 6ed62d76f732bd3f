//! SQLite: blocks, reports, sanctions and the operators' log.

use rusqlite::params;

use super::{exec, first, rows, Sqlite};
use crate::db::store::{LogLine, ModerationStore, ReportRow, Sanction};
use crate::db::DbError;

/// The name to show of a player: the account's username, else the nickname.
const SHOWN_NAME: &str = "COALESCE((SELECT username FROM accounts WHERE accounts.player_id = {id}),
                  (SELECT nickname FROM players WHERE players.id = {id}))";

fn shown(id: &str) -> String {
    SHOWN_NAME.replace("{id}", id)
}

impl ModerationStore for Sqlite {
    async fn add_block(&self, player: i64, blocked: i64, now_ms: i64) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO blocks (player_id, blocked_id, created_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
                params![player, blocked, now_ms],
            )?;
            Ok(())
        })
        .await
    }

    async fn remove_block(&self, player: i64, blocked: i64) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "DELETE FROM blocks WHERE player_id = ?1 AND blocked_id = ?2",
                params![player, blocked],
            )?;
            Ok(())
        })
        .await
    }

    async fn blocks_of(&self, player: i64) -> Result<Vec<(i64, String)>, DbError> {
        self.call(move |conn| {
            let sql = format!(
                "SELECT blocked_id, {} FROM blocks WHERE player_id = ?1
                 ORDER BY created_ms DESC, blocked_id",
                shown("blocks.blocked_id")
            );
            let mut statement = conn.prepare_cached(&sql)?;
            rows(&mut statement, [player], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
        })
        .await
    }

    async fn blocked_either_way(&self, player: i64, others: Vec<i64>) -> Result<Vec<i64>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT 1 FROM blocks WHERE (player_id = ?1 AND blocked_id = ?2)
                    OR (player_id = ?2 AND blocked_id = ?1) LIMIT 1",
            )?;
            let mut found = Vec::new();
            for other in others {
                if first(&mut statement, params![player, other], |_| Ok(()))?.is_some() {
                    found.push(other);
                }
            }
            Ok(found)
        })
        .await
    }

    async fn add_report(&self, report: ReportRow) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO reports (reporter_id, reported_id, room_code, game_id, reason, note,
                                      created_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    report.reporter,
                    report.reported,
                    report.room_code,
                    report.game_id,
                    report.reason,
                    report.note,
                    report.created_ms
                ],
            )?;
            Ok(())
        })
        .await
    }

    async fn reports(&self, limit: usize) -> Result<Vec<(ReportRow, String, String)>, DbError> {
        self.call(move |conn| {
            let sql = format!(
                "SELECT id, reporter_id, reported_id, room_code, game_id, reason, note, created_ms,
                        {}, {}
                 FROM reports ORDER BY id DESC LIMIT ?1",
                shown("reports.reporter_id"),
                shown("reports.reported_id")
            );
            let mut statement = conn.prepare_cached(&sql)?;
            rows(&mut statement, [limit as i64], |row| {
                Ok((
                    ReportRow {
                        id: row.get(0)?,
                        reporter: row.get(1)?,
                        reported: row.get(2)?,
                        room_code: row.get(3)?,
                        game_id: row.get(4)?,
                        reason: row.get(5)?,
                        note: row.get(6)?,
                        created_ms: row.get(7)?,
                    },
                    row.get(8)?,
                    row.get(9)?,
                ))
            })
        })
        .await
    }

    async fn set_sanction(
        &self,
        sanction: Sanction,
        action: String,
        reason: String,
        now_ms: i64,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO sanctions (player_id, banned_until_ms, muted_until_ms, changed_ms)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (player_id) DO UPDATE SET banned_until_ms = ?2,
                     muted_until_ms = ?3, changed_ms = ?4",
                params![
                    sanction.player,
                    sanction.banned_until_ms,
                    sanction.muted_until_ms,
                    now_ms
                ],
            )?;
            let until = match action.as_str() {
                "mute" => sanction.muted_until_ms,
                _ => sanction.banned_until_ms,
            };
            exec(
                conn,
                "INSERT INTO moderation_log (player_id, action, until_ms, reason, at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![sanction.player, action, until, reason, now_ms],
            )?;
            Ok(())
        })
        .await
    }

    async fn sanction(&self, player: i64) -> Result<Option<Sanction>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT banned_until_ms, muted_until_ms FROM sanctions WHERE player_id = ?1",
            )?;
            first(&mut statement, [player], |row| {
                Ok(Sanction {
                    player,
                    banned_until_ms: row.get(0)?,
                    muted_until_ms: row.get(1)?,
                })
            })
        })
        .await
    }

    async fn sanctions_since(&self, after: i64) -> Result<Vec<(Sanction, i64)>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT sanctions.player_id, banned_until_ms, muted_until_ms, moderation_log.id
                 FROM moderation_log JOIN sanctions USING (player_id)
                 WHERE moderation_log.id > ?1 ORDER BY moderation_log.id",
            )?;
            rows(&mut statement, [after], |row| {
                Ok((
                    Sanction {
                        player: row.get(0)?,
                        banned_until_ms: row.get(1)?,
                        muted_until_ms: row.get(2)?,
                    },
                    row.get(3)?,
                ))
            })
        })
        .await
    }

    async fn moderation_log(&self, limit: usize) -> Result<Vec<LogLine>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT player_id, action, until_ms, reason, at_ms, id FROM moderation_log
                 ORDER BY id DESC LIMIT ?1",
            )?;
            rows(&mut statement, [limit as i64], |row| {
                Ok(LogLine {
                    player: row.get(0)?,
                    action: row.get(1)?,
                    until_ms: row.get(2)?,
                    reason: row.get(3)?,
                    at_ms: row.get(4)?,
                    id: row.get(5)?,
                })
            })
        })
        .await
    }
}
