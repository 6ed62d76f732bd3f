//! PostgreSQL: the command log (appends behind the lease's fence), and the
//! results and ratings stored with a game's last command.

use std::collections::BTreeMap;

use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::{passed_fence, rating_at, snapshot, Postgres};
use crate::db::decisions::{small, store_results};
use crate::db::store::{GameRows, LogStore, Logged, ResultRow, ResultsTx};
use crate::db::{CommandRecord, DbError, Lease};
use crate::ratings::Rating;

/// One accepted command: $1 room, $2 token, $3 game, $4 seq, $5 command,
/// $6 at_ms, $7 deadline, $8 finished, $9 phase, $10 to_move, $11 summary
/// changed. Answers 1 if it passed the fence.
const RECORD_COMMAND: &str = fenced!(
    ", command AS (
    INSERT INTO commands (game_id, seq, command, at_ms, deadline_ms)
    SELECT $3, $4, $5, $6, $7 FROM lease
), game AS (
    UPDATE games SET deadline_ms = NULL, finished = TRUE, updated_ms = $6
    WHERE id = $3 AND $8 AND EXISTS (SELECT 1 FROM lease)
), room AS (
    UPDATE rooms SET phase = $9, to_move = $10, updated_ms = $6
    WHERE code = $1 AND ($8 OR $11) AND EXISTS (SELECT 1 FROM lease)
)
SELECT count(*) FROM lease"
);

impl LogStore for Postgres {
    /// One statement (one round trip, one transaction) behind the fence. The
    /// command that ends a game comes with its results: then the same
    /// statement runs in an explicit transaction that also stores them
    /// (`store_results`), and the fence's share lock on the lease row holds
    /// until all of it commits.
    async fn record_command(&self, record: CommandRecord, lease: &Lease) -> Result<(), DbError> {
        let mut client = self.client().await?;
        // Db checked that it fits.
        let seq = record.seq as i64;
        let phase: &str = record.phase;
        let params: [&(dyn ToSql + Sync); 11] = [
            &record.room_code,
            &lease.token,
            &record.game_id,
            &seq,
            &record.command,
            &record.at_ms,
            &record.deadline_ms,
            &record.finished,
            &phase,
            &record.to_move,
            &record.summary_changed,
        ];
        match &record.results {
            None => {
                let statement = client.prepare_cached(RECORD_COMMAND).await?;
                let row = client.query_one(&statement, &params).await?;
                passed_fence(&row, &record.room_code)?;
            }
            Some(results) => {
                let tx = client.transaction().await?;
                let statement = tx.prepare_cached(RECORD_COMMAND).await?;
                let row = tx.query_one(&statement, &params).await?;
                // Fenced: dropping the transaction rolls it back (it wrote
                // nothing anyway).
                passed_fence(&row, &record.room_code)?;
                store_results(&mut Tx(&tx), record.game_id, record.at_ms, results).await?;
                tx.commit().await?;
            }
        }
        self.committed();
        Ok(())
    }

    /// Read in one snapshot.
    async fn load_game(&self, id: i64) -> Result<Option<GameRows>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let game = read_game(&tx, id).await?;
        tx.commit().await?;
        Ok(game)
    }
}

/// The transaction of a game's last command, after its fence, for
/// `store_results`.
struct Tx<'a, 't>(&'a Transaction<'t>);

impl ResultsTx for Tx<'_, '_> {
    /// Those missing are first stored at the starting rating (no games), so
    /// that a first rated game is locked like any other. A concurrent
    /// transaction locking the same ratings waits for this one and then reads
    /// what it wrote. Rows are created and locked in the order of the ids, so
    /// two transactions cannot wait for each other.
    async fn lock_ratings(
        &mut self,
        players: &[i64],
        preset: &str,
        at_ms: i64,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        let tx = self.0;
        let start = Rating::default();
        let create = tx
            .prepare_cached(
                "INSERT INTO ratings (player_id, preset, rating, deviation, volatility, games, wins, updated_ms)
                 SELECT p, $2, $3, $4, $5, 0, 0, $6 FROM unnest($1::bigint[]) AS p ORDER BY p
                 ON CONFLICT (player_id, preset) DO NOTHING",
            )
            .await?;
        tx.execute(
            &create,
            &[
                &players,
                &preset,
                &start.rating,
                &start.deviation,
                &start.volatility,
                &at_ms,
            ],
        )
        .await?;
        let lock = tx
            .prepare_cached(
                "SELECT player_id, rating, deviation, volatility, games, wins FROM ratings
                 WHERE player_id = ANY($1) AND preset = $2 ORDER BY player_id FOR UPDATE",
            )
            .await?;
        tx.query(&lock, &[&players, &preset])
            .await?
            .iter()
            .map(|row| Ok((row.get(0), rating_at(row, 1)?)))
            .collect()
    }

    /// One statement (the rows exist: `lock_ratings` made them).
    async fn write_ratings(
        &mut self,
        preset: &str,
        at_ms: i64,
        ratings: &BTreeMap<i64, Rating>,
    ) -> Result<(), DbError> {
        let tx = self.0;
        let update = tx
            .prepare_cached(
                "UPDATE ratings SET rating = r.rating, deviation = r.deviation,
                     volatility = r.volatility, games = r.games, wins = r.wins, updated_ms = $2
                 FROM unnest($3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::bigint[],
                             $8::bigint[]) AS r(player_id, rating, deviation, volatility, games, wins)
                 WHERE ratings.preset = $1 AND ratings.player_id = r.player_id",
            )
            .await?;
        let players: Vec<i64> = ratings.keys().copied().collect();
        let column = |f: fn(&Rating) -> f64| ratings.values().map(f).collect::<Vec<f64>>();
        let count = |f: fn(&Rating) -> u32| {
            ratings
                .values()
                .map(|r| i64::from(f(r)))
                .collect::<Vec<i64>>()
        };
        tx.execute(
            &update,
            &[
                &preset,
                &at_ms,
                &players,
                &column(|r| r.rating),
                &column(|r| r.deviation),
                &column(|r| r.volatility),
                &count(|r| r.games),
                &count(|r| r.wins),
            ],
        )
        .await?;
        Ok(())
    }

    /// One statement.
    async fn rated_games_of_pairs(
        &mut self,
        pairs: &[(i64, i64)],
        since_ms: i64,
    ) -> Result<Vec<u32>, DbError> {
        let tx = self.0;
        let count = tx
            .prepare_cached(
                "SELECT p.n, (SELECT count(*) FROM rated_pairs
                              WHERE player_a = p.a AND player_b = p.b AND at_ms > $3)
                 FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS p(a, b, n)
                 ORDER BY p.n",
            )
            .await?;
        let a: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<i64> = pairs.iter().map(|p| p.1).collect();
        tx.query(&count, &[&a, &b, &since_ms])
            .await?
            .iter()
            .map(|row| small(row.get(1), "rated games of a pair"))
            .collect()
    }

    /// One statement.
    async fn write_rated_pairs(
        &mut self,
        game_id: i64,
        preset: &str,
        at_ms: i64,
        pairs: &[(i64, i64)],
    ) -> Result<(), DbError> {
        let tx = self.0;
        let insert = tx
            .prepare_cached(
                "INSERT INTO rated_pairs (player_a, player_b, preset, game_id, at_ms)
                 SELECT p.a, p.b, $3, $4, $5 FROM unnest($1::bigint[], $2::bigint[]) AS p(a, b)",
            )
            .await?;
        let a: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<i64> = pairs.iter().map(|p| p.1).collect();
        tx.execute(&insert, &[&a, &b, &preset, &game_id, &at_ms])
            .await?;
        Ok(())
    }

    /// One statement.
    async fn write_results(&mut self, game_id: i64, rows: &[ResultRow]) -> Result<(), DbError> {
        let tx = self.0;
        let insert = tx
            .prepare_cached(
                "INSERT INTO game_results (game_id, seat, player_id, \"placing\", rating_before, rating_after)
                 SELECT $1, r.seat, r.player_id, r.\"placing\", r.rating_before, r.rating_after
                 FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[])
                     AS r(seat, player_id, \"placing\", rating_before, rating_after)",
            )
            .await?;
        let seats: Vec<i64> = rows.iter().map(|r| r.seat as i64).collect();
        let players: Vec<Option<i64>> = rows.iter().map(|r| r.player_id).collect();
        let placings: Vec<i64> = rows.iter().map(|r| i64::from(r.placing)).collect();
        let befores: Vec<Option<f64>> = rows.iter().map(|r| r.rating_before).collect();
        let afters: Vec<Option<f64>> = rows.iter().map(|r| r.rating_after).collect();
        tx.execute(
            &insert,
            &[&game_id, &seats, &players, &placings, &befores, &afters],
        )
        .await?;
        Ok(())
    }
}

/// A game's row and its whole log; `None` if no game has this id.
pub(super) async fn read_game(tx: &Transaction<'_>, id: i64) -> Result<Option<GameRows>, DbError> {
    let statement = tx
        .prepare_cached(
            "SELECT room_code, number, setup, deadline_ms, finished, updated_ms FROM games
             WHERE id = $1",
        )
        .await?;
    let Some(row) = tx.query_opt(&statement, &[&id]).await? else {
        return Ok(None);
    };
    let mut game = GameRows {
        id,
        room_code: row.get(0),
        number: small(row.get(1), "game number")?,
        setup: row.get(2),
        deadline_ms: row.get(3),
        finished: row.get(4),
        updated_ms: row.get(5),
        log: Vec::new(),
    };
    let statement = tx
        .prepare_cached(
            "SELECT seq, command, deadline_ms FROM commands WHERE game_id = $1 ORDER BY seq",
        )
        .await?;
    game.log = tx
        .query(&statement, &[&id])
        .await?
        .iter()
        .map(|row| Logged {
            seq: row.get(0),
            command: row.get(1),
            deadline_ms: row.get(2),
        })
        .collect();
    Ok(Some(game))
}
