//! SQLite: the public pages' reads (open rooms, leaderboards, ratings,
//! histories).

use std::collections::BTreeMap;

use rusqlite::params;

use super::{first, rating_at, rows, seats_of, Sqlite};
use crate::db::decisions::{small, sql_limit};
use crate::db::store::PublicStore;
use crate::db::{DbError, OpenRoom, PastGame, Ranked};
use crate::ratings::{Rating, MIN_OPPONENTS, PROVISIONAL_DEVIATION};

impl PublicStore for Sqlite {
    async fn open_rooms(&self, limit: usize) -> Result<Vec<OpenRoom>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT code, setup, updated_ms FROM rooms WHERE public = 1 AND phase = 'lobby'
                 ORDER BY updated_ms DESC LIMIT ?1",
            )?;
            let mut rooms = rows(&mut statement, [sql_limit(limit)], |row| {
                Ok(OpenRoom {
                    code: row.get(0)?,
                    setup: row.get(1)?,
                    updated_ms: row.get(2)?,
                    seats: Vec::new(),
                })
            })?;
            for room in &mut rooms {
                room.seats = seats_of(conn, &room.code)?;
            }
            Ok(rooms)
        })
        .await
    }

    async fn leaderboard(&self, preset: String, limit: usize) -> Result<Vec<Ranked>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
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
                     WHERE ratings.preset = ?1) AS board
                 WHERE deviation <= ?3 AND opponents >= ?4
                 ORDER BY rating DESC, games DESC, player LIMIT ?2",
            )?;
            let bar = params![
                preset,
                sql_limit(limit),
                PROVISIONAL_DEVIATION,
                MIN_OPPONENTS
            ];
            rows(&mut statement, bar, |row| {
                let mut rating = rating_at(row, 1)?;
                rating.opponents = small(row.get(6)?, "opponents")?;
                Ok(Ranked {
                    nickname: row.get(0)?,
                    rating,
                })
            })
        })
        .await
    }

    async fn ratings(
        &self,
        players: Vec<i64>,
        preset: String,
    ) -> Result<BTreeMap<i64, Rating>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT rating, deviation, volatility, games, wins, (SELECT count(DISTINCT CASE WHEN met.player_a = ratings.player_id
                                             THEN met.player_b ELSE met.player_a END)
                   FROM rated_pairs AS met
                   WHERE (met.player_a = ratings.player_id OR met.player_b = ratings.player_id)
                     AND met.preset = ratings.preset)
                 FROM ratings WHERE player_id = ?1 AND preset = ?2",
            )?;
            let mut found = BTreeMap::new();
            for player in players {
                if let Some(rating) = first(&mut statement, params![player, preset], |row| {
                    let mut rating = rating_at(row, 0)?;
                    rating.opponents = small(row.get(5)?, "opponents")?;
                    Ok(rating)
                })? {
                    found.insert(player, rating);
                }
            }
            Ok(found)
        })
        .await
    }

    async fn history(&self, player_id: i64, limit: usize) -> Result<Vec<PastGame>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT games.id, games.room_code, rooms.setup, games.updated_ms, mine.placing,
                        mine.rating_before, mine.rating_after,
                        (SELECT count(*) FROM game_results AS all_seats WHERE all_seats.game_id = games.id),
                        (SELECT count(*) FROM game_results AS first WHERE first.game_id = games.id AND first.placing = 1)
                 FROM game_results AS mine
                 JOIN games ON games.id = mine.game_id
                 JOIN rooms ON rooms.code = games.room_code
                 WHERE mine.player_id = ?1
                 ORDER BY games.updated_ms DESC, games.id DESC LIMIT ?2",
            )?;
            rows(&mut statement, params![player_id, sql_limit(limit)], |row| {
                Ok(PastGame {
                    game_id: row.get(0)?,
                    code: row.get(1)?,
                    setup: row.get(2)?,
                    finished_ms: row.get(3)?,
                    placing: small(row.get(4)?, "placing")?,
                    rating_before: row.get(5)?,
                    rating_after: row.get(6)?,
                    seats: small(row.get(7)?, "seat count")?,
                    firsts: small(row.get(8)?, "first count")?,
                })
            })
        })
        .await
    }
}
