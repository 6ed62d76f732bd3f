//! The Broadside server: rooms, the WebSocket protocol of `docs/protocol.md`,
//! persistence in SQLite and the embedded web client.
//!
//! Shape (after mini-redis): [`run`] takes its listener, its database and a
//! shutdown future, so tests bind port 0 and stop it at will. Each WebSocket
//! connection is one task (`connection`); each room is one task (`room`, an
//! actor) that owns the room's [`broadside_engine::Game`], so the commands of a
//! room are applied one at a time. Every accepted command is written to the
//! database before any frame about it leaves the server (`db`).
//!
//! Architecture invariant: the server never decides a rule. It hands commands to
//! the engine and sends each connection only `Game::view` for its seat (or the
//! spectator view) and `Game::events_for` — never the game itself, its seed or
//! its generator.

mod assets;
mod cluster;
mod connection;
mod cpu;
pub mod db;
mod limits;
mod protocol;
mod ratings;
mod replay;
mod room;
mod secret;
mod server;

pub use cluster::valid_node_name;
pub use db::{Db, DbError};
pub use protocol::MAX_FRAME_BYTES;
pub use server::{run, serve_until_ctrl_c, Config, ServerError};
