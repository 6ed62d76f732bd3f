//! PostgreSQL: the public pages' reads (open rooms, leaderboards, ratings,
//! histories).

use std::collections::BTreeMap;

use super::{rating_at, seats_of, snapshot, Postgres};
use crate::db::decisions::{small, sql_limit};
use crate::db::store::PublicStore;
use crate::db::{DbError, OpenRoom, PastGame, Ranked};
use crate::ratings::{Rating, MIN_OPPONENTS, PROVISIONAL_DEVIATION};

impl PublicStore for Postgres {
    /// Read in one snapshot.
    async fn open_rooms(&self, limit: usize) -> Result<Vec<OpenRoom>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached(
                "SELECT code, setup, updated_ms FROM rooms WHERE public AND phase = 'lobby'
                 ORDER BY updated_ms DESC LIMIT $1",
            )
            .await?;
        let mut rooms: Vec<OpenRoom> = tx
            .query(&statement, &[&sql_limit(limit)])
            .await?
            .iter()
            .map(|row| OpenRoom {
                code: row.get(0),
                setup: row.get(1),
                updated_ms: row.get(2),
                seats: Vec::new(),
            })
            .collect();
        if !rooms.is_empty() {
            let codes: Vec<String> = rooms.iter().map(|room| room.code.clone()).collect();
            for (code, seat) in seats_of(&tx, &codes).await? {
                if let Some(room) = rooms.iter_mut().find(|room| room.code == code) {
                    room.seats.push(seat);
                }
            }
        }
        tx.commit().await?;
        Ok(rooms)
    }

    async fn leaderboard(&self, preset: String, limit: usize) -> Result<Vec<Ranked>, DbError> {
        self.query(
            "SELECT nickname, rating, deviation, volatility, games, wins, opponents FROM (
                 SELECT COALESCE(accounts.username, players.nickname) AS nickname,
                            players.id AS player, rating, deviation,
                        volatility, games, wins, (SELECT count(DISTINCT CASE WHEN met.player_a = ratings.player_id
                                             THEN met.player_b ELSE met.player_a END)
                   FROM rated_pairs AS met
                   WHERE (met.player_a = ratings.player_id OR met.player_b = ratings.player_id)
                     AND met.preset = ratings.preset) AS opponents
                 FROM ratings JOIN players ON players.id = ratings.player_id
                     LEFT JOIN accounts ON accounts.player_id = ratings.player_id
                 WHERE ratings.preset = $1) AS board
             WHERE deviation <= $3 AND opponents >= $4
             ORDER BY rating DESC, games DESC, player LIMIT $2",
            &[
                &preset,
                &sql_limit(limit),
                &PROVISIONAL_DEVIATION,
                &i64::from(MIN_OPPONENTS),
            ],
        )
        .await?
        .iter()
        .map(|row| {
            let mut rating = rating_at(row, 1)?;
            rating.opponents = small(row.get(6), "opponents")?;
            Ok(Ranked {
                nickname: row.get(0),
                rating,
            })
        })
        .collect()
    }

    async fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        self.query(
            "SELECT player_id, rating, deviation, volatility, games, wins, (SELECT count(DISTINCT CASE WHEN met.player_a = ratings.player_id
                                             THEN met.player_b ELSE met.player_a END)
                   FROM rated_pairs AS met
                   WHERE (met.player_a = ratings.player_id OR met.player_b = ratings.player_id)
                     AND met.preset = ratings.preset)
             FROM ratings WHERE player_id = ANY($1) AND preset = $2",
            &[&players, &preset],
        )
        .await?
        .iter()
        .map(|row| {
            let mut rating = rating_at(row, 1)?;
            rating.opponents = small(row.get(6), "opponents")?;
            Ok((row.get(0), rating))
        })
        .collect()
    }

    async fn history(&self, player_id: i64, limit: usize) -> Result<Vec<PastGame>, DbError> {
        self.query(
                "SELECT games.id, games.room_code, rooms.setup, games.updated_ms, mine.\"placing\",
                        mine.rating_before, mine.rating_after,
                        (SELECT count(*) FROM game_results AS all_seats WHERE all_seats.game_id = games.id),
                        (SELECT count(*) FROM game_results AS first WHERE first.game_id = games.id AND first.\"placing\" = 1)
                 FROM game_results AS mine
                 JOIN games ON games.id = mine.game_id
                 JOIN rooms ON rooms.code = games.room_code
                 WHERE mine.player_id = $1
                 ORDER BY games.updated_ms DESC, games.id DESC LIMIT $2",
                &[&player_id, &sql_limit(limit)],
            )
            .await?
            .iter()
            .map(|row| {
                Ok(PastGame {
                    game_id: row.get(0),
                    code: row.get(1),
                    setup: row.get(2),
                    finished_ms: row.get(3),
                    placing: small(row.get(4), "placing")?,
                    rating_before: row.get(5),
                    rating_after: row.get(6),
                    seats: small(row.get(7), "seat count")?,
                    firsts: small(row.get(8), "first count")?,
                })
            })
            .collect()
    }
}
