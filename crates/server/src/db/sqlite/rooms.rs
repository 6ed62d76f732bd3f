//! SQLite: rooms, their seats, games and chat, and the reads of them
//! (`load_room`, `my_games`, `running_rooms`, `recent_chat`).

use std::time::Duration;

use rusqlite::{params, Connection};

use super::leases::own_lease;
use super::log::read_game;
use super::{exec, first, rows, seats_of, Sqlite};
use crate::db::decisions::{index, small, sql_limit};
use crate::db::store::{RoomStore, StoredRoom};
use crate::db::{ChatRecord, DbError, Lease, MyGame, RoomRecord};

impl RoomStore for Sqlite {
    async fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        _ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        let lease = own_lease(room.code.clone(), node);
        let inserted = self.call(move |conn| {
            let inserted = exec(
                conn,
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8) ON CONFLICT(code) DO NOTHING",
                params![room.code, room.setup, room.host as i64, room.game_number, room.phase, room.to_move, now_ms, room.public],
            )?;
            if inserted == 0 {
                return Ok(false);
            }
            write_seats(conn, &room)?;
            Ok(true)
        })
        .await?;
        Ok(inserted.then_some(lease))
    }

    async fn save_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        _lease: &Lease,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO rooms (code, setup, host, game_number, phase, to_move, created_ms, updated_ms, public)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)
                 ON CONFLICT(code) DO UPDATE SET setup = ?2, host = ?3, game_number = ?4, phase = ?5,
                     to_move = ?6, updated_ms = ?7, public = ?8",
                params![room.code, room.setup, room.host as i64, room.game_number, room.phase, room.to_move, now_ms, room.public],
            )?;
            write_seats(conn, &room)
        })
        .await
    }

    async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        _lease: &Lease,
    ) -> Result<i64, DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO games (room_code, number, setup, deadline_ms, created_ms, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![room.code, room.game_number, setup, deadline_ms, now_ms],
            )?;
            let game_id = conn.last_insert_rowid();
            exec(
                conn,
                "UPDATE rooms SET game_id = ?2, game_number = ?3, phase = ?4, to_move = ?5, host = ?6, updated_ms = ?7
                 WHERE code = ?1",
                params![room.code, game_id, room.game_number, room.phase, room.to_move, room.host as i64, now_ms],
            )?;
            Ok(game_id)
        })
        .await
    }

    async fn add_chat(
        &self,
        code: String,
        line: ChatRecord,
        _lease: &Lease,
    ) -> Result<(), DbError> {
        self.call(move |conn| {
            exec(
                conn,
                "INSERT INTO chat (room_code, seat, nickname, text, at_ms, watchers)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    code,
                    line.seat.map(|s| s as i64),
                    line.nickname,
                    line.text,
                    line.at_ms,
                    line.watchers
                ],
            )?;
            Ok(())
        })
        .await
    }

    async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        self.call(|conn| {
            let mut statement = conn.prepare_cached(
                "SELECT code FROM rooms WHERE phase NOT IN ('lobby', 'finished') ORDER BY updated_ms",
            )?;
            rows(&mut statement, [], |row| Ok(row.get(0)?))
        })
        .await
    }

    async fn load_room(&self, code: String) -> Result<Option<StoredRoom>, DbError> {
        self.call(move |conn| load_room(conn, &code)).await
    }

    async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        self.call(move |conn| my_games(conn, player_id)).await
    }

    async fn recent_chat(&self, code: String, limit: usize) -> Result<Vec<ChatRecord>, DbError> {
        self.call(move |conn| {
            let mut statement = conn.prepare_cached(
                "SELECT seat, nickname, text, at_ms, watchers FROM chat WHERE room_code = ?1
                 ORDER BY id DESC LIMIT ?2",
            )?;
            let mut lines = rows(&mut statement, params![code, sql_limit(limit)], |row| {
                Ok(ChatRecord {
                    seat: row.get::<_, Option<i64>>(0)?.map(index),
                    nickname: row.get(1)?,
                    text: row.get(2)?,
                    at_ms: row.get(3)?,
                    watchers: row.get(4)?,
                })
            })?;
            lines.reverse();
            Ok(lines)
        })
        .await
    }
}

/// Replaces a room's seats (the room's row exists).
fn write_seats(conn: &Connection, room: &RoomRecord) -> Result<(), DbError> {
    exec(conn, "DELETE FROM seats WHERE room_code = ?1", [&room.code])?;
    for (seat, record) in room.seats.iter().enumerate() {
        exec(
            conn,
            "INSERT INTO seats (room_code, seat, kind, player_id, level) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![room.code, seat as i64, record.kind.as_str(), record.player_id, record.level],
        )?;
    }
    Ok(())
}

fn load_room(conn: &Connection, code: &str) -> Result<Option<StoredRoom>, DbError> {
    let mut statement = conn.prepare_cached(
        "SELECT setup, host, game_id, game_number, phase, to_move, public FROM rooms WHERE code = ?1",
    )?;
    let row = first(&mut statement, [code], |row| {
        Ok((
            row.get::<_, String>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, Option<i64>>(2)?,
            row.get::<_, i64>(3)?,
            row.get::<_, String>(4)?,
            row.get::<_, String>(5)?,
            row.get::<_, bool>(6)?,
        ))
    })?;
    let Some((setup, host, game_id, game_number, phase, to_move, public)) = row else {
        return Ok(None);
    };
    let room = RoomRecord {
        code: code.to_string(),
        setup,
        host: index(host),
        seats: seats_of(conn, code)?,
        game_number: small(game_number, "game number")?,
        phase,
        to_move,
        public,
    };
    let game = match game_id {
        None => None,
        Some(id) => read_game(conn, id)?,
    };
    Ok(Some(StoredRoom {
        room,
        game_id,
        game,
    }))
}

fn my_games(conn: &Connection, player_id: i64) -> Result<Vec<MyGame>, DbError> {
    let mut statement = conn.prepare_cached(
        "SELECT rooms.code, rooms.setup, rooms.phase, rooms.to_move, seats.seat, rooms.updated_ms
         FROM seats JOIN rooms ON rooms.code = seats.room_code
         WHERE seats.player_id = ?1 AND seats.kind = 'person' AND rooms.phase != 'finished'
         ORDER BY rooms.updated_ms DESC LIMIT 50",
    )?;
    let mut games = rows(&mut statement, [player_id], |row| {
        Ok(MyGame {
            code: row.get(0)?,
            setup: row.get(1)?,
            phase: row.get(2)?,
            to_move: row.get(3)?,
            seat: index(row.get(4)?),
            updated_ms: row.get(5)?,
            seats: Vec::new(),
        })
    })?;
    for game in &mut games {
        game.seats = seats_of(conn, &game.code)?;
    }
    Ok(games)
}
