//! SQLite: the command log, and the results (and ratings) stored with a
//! game's last command.

use std::collections::BTreeMap;

use futures_util::FutureExt;
use rusqlite::{params, Connection};

use super::{exec, first, rating_at, rows, Sqlite};
use crate::db::decisions::{small, store_results};
use crate::db::store::{GameRows, LogStore, Logged, ResultRow, ResultsTx};
use crate::db::{CommandRecord, DbError, Lease};
use crate::ratings::Rating;

impl LogStore for Sqlite {
    async fn record_command(&self, record: CommandRecord, _lease: &Lease) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO commands (game_id, seq, command, at_ms, deadline_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    record.game_id,
                    // Db checked that it fits.
                    record.seq as i64,
                    record.command,
                    record.at_ms,
                    record.deadline_ms
                ],
            )?;
            if record.finished {
                exec(
                    conn,
                    "UPDATE games SET deadline_ms = NULL, finished = 1, updated_ms = ?2 WHERE id = ?1",
                    params![record.game_id, record.at_ms],
                )?;
            }
            if record.summary_changed || record.finished {
                exec(
                    conn,
                    "UPDATE rooms SET phase = ?2, to_move = ?3, updated_ms = ?4 WHERE code = ?1",
                    params![record.room_code, record.phase, record.to_move, record.at_ms],
                )?;
            }
            if let Some(results) = &record.results {
                // The shared decision, on this job's savepoint: every step of
                // a SQLite transaction is ready at once.
                store_results(&mut Tx(conn), record.game_id, record.at_ms, results)
                    .now_or_never()
                    .expect("SQLite's transaction never waits")?;
            }
            Ok(())
        })
        .await
    }

    async fn load_game(&self, id: i64) -> Result<Option<GameRows>, DbError> {
        self.call(move |conn| read_game(conn, id)).await
    }
}

/// The job's transaction, for `store_results`. Nothing is locked: the writer
/// runs one job at a time.
struct Tx<'c>(&'c Connection);

impl ResultsTx for Tx<'_> {
    async fn lock_ratings(
        &mut self,
        players: &[i64],
        preset: &str,
        _at_ms: i64,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        let mut statement = self.0.prepare_cached(
            "SELECT rating, deviation, volatility, games, wins FROM ratings
             WHERE player_id = ?1 AND preset = ?2",
        )?;
        let mut found = BTreeMap::new();
        for &player in players {
            let stored = first(&mut statement, params![player, preset], |row| {
                rating_at(row, 0)
            })?;
            found.insert(player, stored.unwrap_or_default());
        }
        Ok(found)
    }

    async fn write_ratings(
        &mut self,
        preset: &str,
        at_ms: i64,
        ratings: &BTreeMap<i64, Rating>,
    ) -> Result<(), DbError> {
        for (player, rating) in ratings {
            exec(
                self.0,
                "INSERT INTO ratings (player_id, preset, rating, deviation, volatility, games, wins, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(player_id, preset) DO UPDATE SET rating = ?3, deviation = ?4,
                     volatility = ?5, games = ?6, wins = ?7, updated_ms = ?8",
                params![
                    player,
                    preset,
                    rating.rating,
                    rating.deviation,
                    rating.volatility,
                    rating.games,
                    rating.wins,
                    at_ms
                ],
            )?;
        }
        Ok(())
    }

    async fn rated_games_of_pairs(
        &mut self,
        pairs: &[(i64, i64)],
        since_ms: i64,
    ) -> Result<Vec<u32>, DbError> {
        let mut statement = self.0.prepare_cached(
            "SELECT count(*) FROM rated_pairs WHERE player_a = ?1 AND player_b = ?2 AND at_ms > ?3",
        )?;
        let mut counts = Vec::with_capacity(pairs.len());
        for &(a, b) in pairs {
            let count = first(&mut statement, params![a, b, since_ms], |row| {
                small(row.get(0)?, "rated games of a pair")
            })?;
            counts.push(count.unwrap_or(0));
        }
        Ok(counts)
    }

    async fn write_rated_pairs(
        &mut self,
        game_id: i64,
        preset: &str,
        at_ms: i64,
        pairs: &[(i64, i64)],
    ) -> Result<(), DbError> {
        for &(a, b) in pairs {
            exec(
                self.0,
                "INSERT INTO rated_pairs (player_a, player_b, preset, game_id, at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![a, b, preset, game_id, at_ms],
            )?;
        }
        Ok(())
    }

    async fn write_results(&mut self, game_id: i64, rows: &[ResultRow]) -> Result<(), DbError> {
        for row in rows {
            exec(
                self.0,
                "INSERT INTO game_results (game_id, seat, player_id, placing, rating_before, rating_after)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    game_id,
                    row.seat as i64,
                    row.player_id,
                    row.placing,
                    row.rating_before,
                    row.rating_after
                ],
            )?;
        }
        Ok(())
    }
}

/// A game's row and its whole log; `None` if no game has this id.
pub(super) fn read_game(conn: &Connection, id: i64) -> Result<Option<GameRows>, DbError> {
    let mut statement = conn.prepare_cached(
        "SELECT room_code, number, setup, deadline_ms, finished, updated_ms FROM games WHERE id = ?1",
    )?;
    let game = first(&mut statement, [id], |row| {
        Ok(GameRows {
            id,
            room_code: row.get(0)?,
            number: small(row.get(1)?, "game number")?,
            setup: row.get(2)?,
            deadline_ms: row.get(3)?,
            finished: row.get(4)?,
            updated_ms: row.get(5)?,
            log: Vec::new(),
        })
    })?;
    let Some(mut game) = game else {
        return Ok(None);
    };
    let mut statement = conn.prepare_cached(
        "SELECT seq, command, deadline_ms FROM commands WHERE game_id = ?1 ORDER BY seq",
    )?;
    game.log = rows(&mut statement, [id], |row| {
        Ok(Logged {
            seq: row.get(0)?,
            command: row.get(1)?,
            deadline_ms: row.get(2)?,
        })
    })?;
    Ok(Some(game))
}
