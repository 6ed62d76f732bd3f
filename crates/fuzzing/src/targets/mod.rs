//! One function per fuzz target; each says in its documentation what it checks.

mod engine_commands;
mod engine_setup;
mod referee;
mod save_load;
mod server_frames;

pub use engine_commands::engine_commands;
pub use engine_setup::engine_setup;
pub use referee::referee;
pub use save_load::save_load;
pub use server_frames::server_frames;
