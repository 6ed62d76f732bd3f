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
//! The modules are layers, listed below bottom up: each uses only those
//! before it. A room sees only its `context::RoomContext` and its members'
//! outboxes; the registry of rooms, the lobby service (public play) and the
//! connections sit above it (docs/ARCHITECTURE.md, "crates/server").
//!
//! Architecture invariant: the server never decides a rule. It hands commands to
//! the engine and sends each connection only `Game::view` for its seat (or the
//! spectator view) and `Game::events_for` — never the game itself, its seed or
//! its generator.

// The layers, bottom up; each uses only those above it in this list (and
// the leaves: address, assets, cpu, db, limits, protocol, ratings,
// replay_cache, secret). Checked by
// crates/broadside/tests/shape.rs; docs/ARCHITECTURE.md, "crates/server".
mod accounts;
mod address;
pub mod admin;
mod assets;
mod config;
mod cpu;
pub mod db;
mod lifecycle;
mod limits;
mod metrics;
mod protocol;
mod ratings;
mod replay_cache;
mod secret;
pub mod stored;

mod cluster;
mod connection;
mod conns;
mod context;
mod lobby;
mod moderation;
mod outbox;
mod registry;
mod replay;
mod room;
mod server;
mod shared;

pub use cluster::valid_node_name;
pub use config::Config;
pub use db::{Db, DbError};
pub use limits::raise_file_limit;
pub use protocol::MAX_FRAME_BYTES;
pub use server::{run, serve_until_ctrl_c, ServerError};
pub use stored::{replay, ReplayError, Replayed, Step};
