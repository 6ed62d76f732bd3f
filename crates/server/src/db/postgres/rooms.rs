//! PostgreSQL: rooms, their seats, games and chat (writes behind the lease's
//! fence), and the reads of them (`load_room`, `my_games`, `running_rooms`,
//! `recent_chat`).

use std::time::Duration;

use deadpool_postgres::Transaction;

use super::log::read_game;
use super::{check_lease, millis, passed_fence, seats_of, snapshot, Postgres};
use crate::db::decisions::{index, small, sql_limit};
use crate::db::store::{RoomStore, StoredRoom};
use crate::db::{ChatRecord, DbError, Lease, MyGame, RoomRecord};

/// One chat line: $1 room, $2 token, $3 seat, $4 nickname, $5 text, $6 at_ms,
/// $7 watchers. Answers 1 if it passed the fence.
pub(super) const ADD_CHAT: &str = fenced!(
    ", line AS (
    INSERT INTO chat (room_code, seat, nickname, text, at_ms, watchers)
    SELECT $1, $3, $4, $5, $6, $7 FROM lease
)
SELECT count(*) FROM lease"
);

impl RoomStore for Postgres {
    /// One transaction: the room, its seats and `node`'s lease.
    async fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) ON CONFLICT (code) DO NOTHING",
            )
            .await?;
        let inserted = tx
            .execute(
                &insert,
                &[
                    &room.code,
                    &room.setup,
                    &(room.host as i64),
                    &i64::from(room.game_number),
                    &room.phase,
                    &room.to_move,
                    &now_ms,
                    &room.public,
                ],
            )
            .await?;
        if inserted == 0 {
            // Dropping the transaction rolls it back (it wrote nothing anyway).
            return Ok(None);
        }
        write_seats(&tx, &room).await?;
        let lease = tx
            .prepare_cached(
                "INSERT INTO leases (room_code, node, token, expires_at)
                 VALUES ($1, $2, nextval('lease_tokens'), now() + $3::bigint * interval '1 millisecond')
                 RETURNING token",
            )
            .await?;
        let token: i64 = tx
            .query_one(&lease, &[&room.code, &node, &millis(ttl)])
            .await?
            .get(0);
        tx.commit().await?;
        self.committed();
        Ok(Some(Lease {
            code: room.code,
            node: node.to_string(),
            token,
        }))
    }

    async fn save_room(&self, room: RoomRecord, now_ms: i64, lease: &Lease) -> Result<(), DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        check_lease(&tx, &room.code, lease).await?;
        let upsert = tx
            .prepare_cached(
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
                 ON CONFLICT (code) DO UPDATE SET setup = $2, host = $3, game_number = $4, phase = $5,
                     to_move = $6, updated_ms = $7, public = $8",
            )
            .await?;
        tx.execute(
            &upsert,
            &[
                &room.code,
                &room.setup,
                &(room.host as i64),
                &i64::from(room.game_number),
                &room.phase,
                &room.to_move,
                &now_ms,
                &room.public,
            ],
        )
        .await?;
        write_seats(&tx, &room).await?;
        tx.commit().await?;
        self.committed();
        Ok(())
    }

    async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        lease: &Lease,
    ) -> Result<i64, DbError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        check_lease(&tx, &room.code, lease).await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO games (room_code, number, setup, deadline_ms, created_ms, updated_ms)
                 VALUES ($1, $2, $3, $4, $5, $5) RETURNING id",
            )
            .await?;
        let game_id: i64 = tx
            .query_one(
                &insert,
                &[
                    &room.code,
                    &i64::from(room.game_number),
                    &setup,
                    &deadline_ms,
                    &now_ms,
                ],
            )
            .await?
            .get(0);
        let update = tx
            .prepare_cached(
                "UPDATE rooms SET game_id = $2, game_number = $3, phase = $4, to_move = $5, host = $6,
                     updated_ms = $7
                 WHERE code = $1",
            )
            .await?;
        tx.execute(
            &update,
            &[
                &room.code,
                &game_id,
                &i64::from(room.game_number),
                &room.phase,
                &room.to_move,
                &(room.host as i64),
                &now_ms,
            ],
        )
        .await?;
        tx.commit().await?;
        self.committed();
        Ok(game_id)
    }

    /// One statement behind the fence.
    async fn add_chat(&self, code: String, line: ChatRecord, lease: &Lease) -> Result<(), DbError> {
        let client = self.client().await?;
        let statement = client.prepare_cached(ADD_CHAT).await?;
        let seat = line.seat.map(|seat| seat as i64);
        let row = client
            .query_one(
                &statement,
                &[
                    &code,
                    &lease.token,
                    &seat,
                    &line.nickname,
                    &line.text,
                    &line.at_ms,
                    &line.watchers,
                ],
            )
            .await?;
        passed_fence(&row, &code)?;
        self.committed();
        Ok(())
    }

    async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        let rows = self
            .query(
                "SELECT code FROM rooms WHERE phase NOT IN ('lobby', 'finished') ORDER BY updated_ms",
                &[],
            )
            .await?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// Read in one snapshot.
    async fn load_room(&self, code: String) -> Result<Option<StoredRoom>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached(
                "SELECT setup, host, game_id, game_number, phase, to_move, public FROM rooms
                 WHERE code = $1",
            )
            .await?;
        let Some(row) = tx.query_opt(&statement, &[&code]).await? else {
            return Ok(None);
        };
        let game_id: Option<i64> = row.get(2);
        let room = RoomRecord {
            code: code.clone(),
            setup: row.get(0),
            host: index(row.get(1)),
            seats: seats_of(&tx, std::slice::from_ref(&code))
                .await?
                .into_iter()
                .map(|(_, seat)| seat)
                .collect(),
            game_number: small(row.get(3), "game number")?,
            phase: row.get(4),
            to_move: row.get(5),
            public: row.get(6),
        };
        let game = match game_id {
            None => None,
            Some(id) => read_game(&tx, id).await?,
        };
        tx.commit().await?;
        Ok(Some(StoredRoom {
            room,
            game_id,
            game,
        }))
    }

    /// Read in one snapshot.
    async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        let mut client = self.client().await?;
        let tx = snapshot(&mut client).await?;
        let statement = tx
            .prepare_cached(
                "SELECT rooms.code, rooms.setup, rooms.phase, rooms.to_move, seats.seat, rooms.updated_ms
                 FROM seats JOIN rooms ON rooms.code = seats.room_code
                 WHERE seats.player_id = $1 AND seats.kind = 'person' AND rooms.phase != 'finished'
                 ORDER BY rooms.updated_ms DESC LIMIT 50",
            )
            .await?;
        let mut games: Vec<MyGame> = tx
            .query(&statement, &[&player_id])
            .await?
            .iter()
            .map(|row| MyGame {
                code: row.get(0),
                setup: row.get(1),
                phase: row.get(2),
                to_move: row.get(3),
                seat: index(row.get(4)),
                updated_ms: row.get(5),
                seats: Vec::new(),
            })
            .collect();
        if !games.is_empty() {
            let codes: Vec<String> = games.iter().map(|game| game.code.clone()).collect();
            for (code, seat) in seats_of(&tx, &codes).await? {
                // A player holds at most a few seats: a scan finds the room.
                for game in games.iter_mut().filter(|game| game.code == code) {
                    game.seats.push(seat.clone());
                }
            }
        }
        tx.commit().await?;
        Ok(games)
    }

    async fn recent_chat(&self, code: String, limit: usize) -> Result<Vec<ChatRecord>, DbError> {
        let mut lines: Vec<ChatRecord> = self
            .query(
                "SELECT seat, nickname, text, at_ms, watchers FROM chat WHERE room_code = $1
                 ORDER BY id DESC LIMIT $2",
                &[&code, &sql_limit(limit)],
            )
            .await?
            .iter()
            .map(|row| ChatRecord {
                seat: row.get::<_, Option<i64>>(0).map(index),
                nickname: row.get(1),
                text: row.get(2),
                at_ms: row.get(3),
                watchers: row.get(4),
            })
            .collect();
        lines.reverse();
        Ok(lines)
    }
}

/// Replaces a room's seats (the room's row exists).
async fn write_seats(tx: &Transaction<'_>, room: &RoomRecord) -> Result<(), DbError> {
    let delete = tx
        .prepare_cached("DELETE FROM seats WHERE room_code = $1")
        .await?;
    tx.execute(&delete, &[&room.code]).await?;
    if room.seats.is_empty() {
        return Ok(());
    }
    // All seats in one statement: the arrays are zipped, a seat's number is
    // its position.
    let insert = tx
        .prepare_cached(
            "INSERT INTO seats (room_code, seat, kind, player_id, level)
             SELECT $1, s.number - 1, s.kind, s.player_id, s.level
             FROM unnest($2::text[], $3::bigint[], $4::text[])
                 WITH ORDINALITY AS s(kind, player_id, level, number)",
        )
        .await?;
    let kinds: Vec<&str> = room.seats.iter().map(|s| s.kind.as_str()).collect();
    let players: Vec<Option<i64>> = room.seats.iter().map(|s| s.player_id).collect();
    let levels: Vec<Option<&str>> = room.seats.iter().map(|s| s.level.as_deref()).collect();
    tx.execute(&insert, &[&room.code, &kinds, &players, &levels])
        .await?;
    Ok(())
}
