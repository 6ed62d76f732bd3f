//! The PostgreSQL backend: shared by the nodes of a cluster. (Being written.)

use std::time::Duration;

use super::{ChatRecord, CommandRecord, DbError, GameRecord, Lease, MyGame, Owner, RoomRecord};

pub struct Postgres {}

#[allow(unused_variables, clippy::unused_async)]
impl Postgres {
    pub async fn connect(url: &str) -> Result<Postgres, DbError> {
        Err(DbError::Postgres("not built yet".into()))
    }
    pub fn stats(&self) -> (u64, u64) {
        (0, 0)
    }
    pub async fn player_by_token_hash(
        &self,
        hash: Vec<u8>,
    ) -> Result<Option<(i64, String)>, DbError> {
        unimplemented!()
    }
    pub async fn create_player(
        &self,
        hash: Vec<u8>,
        nickname: String,
        now_ms: i64,
    ) -> Result<i64, DbError> {
        unimplemented!()
    }
    pub async fn set_nickname(&self, player_id: i64, nickname: String) -> Result<(), DbError> {
        unimplemented!()
    }
    pub async fn create_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        node: &str,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        unimplemented!()
    }
    pub async fn save_room(
        &self,
        room: RoomRecord,
        now_ms: i64,
        lease: Lease,
    ) -> Result<(), DbError> {
        unimplemented!()
    }
    pub async fn start_game(
        &self,
        room: RoomRecord,
        setup: String,
        deadline_ms: Option<i64>,
        now_ms: i64,
        lease: Lease,
    ) -> Result<i64, DbError> {
        unimplemented!()
    }
    pub async fn record_command(&self, record: CommandRecord, lease: Lease) -> Result<(), DbError> {
        unimplemented!()
    }
    pub async fn add_chat(
        &self,
        code: String,
        line: ChatRecord,
        lease: Lease,
    ) -> Result<(), DbError> {
        unimplemented!()
    }
    pub async fn running_rooms(&self) -> Result<Vec<String>, DbError> {
        unimplemented!()
    }
    pub async fn load_room(
        &self,
        code: String,
    ) -> Result<Option<(RoomRecord, Option<GameRecord>)>, DbError> {
        unimplemented!()
    }
    pub async fn my_games(&self, player_id: i64) -> Result<Vec<MyGame>, DbError> {
        unimplemented!()
    }
    pub async fn recent_chat(
        &self,
        code: String,
        limit: usize,
    ) -> Result<Vec<ChatRecord>, DbError> {
        unimplemented!()
    }
    pub async fn acquire(
        &self,
        code: String,
        node: String,
        ttl: Duration,
    ) -> Result<Option<Lease>, DbError> {
        unimplemented!()
    }
    pub async fn renew(&self, lease: Lease, ttl: Duration) -> Result<bool, DbError> {
        unimplemented!()
    }
    pub async fn release(&self, lease: Lease, hand_over: bool) -> Result<(), DbError> {
        unimplemented!()
    }
    pub async fn expired_leases(&self, limit: usize) -> Result<Vec<String>, DbError> {
        unimplemented!()
    }
    pub async fn owner(&self, code: String) -> Result<Option<Owner>, DbError> {
        unimplemented!()
    }
}
