//! Broadside's lab: the tools that measure the product, kept apart from it so
//! that the game's crates and the `broadside` binary build without them.
//!
//! - [`bench`]: the bots' benchmark (practice games, shots to sink a fleet,
//!   time per move) and, in [`bench::versus`], the tournament between levels;
//! - [`load`]: a load generator that plays many games over WebSockets against
//!   a running server and measures the latency of every shot;
//! - [`flood`]: the replay flood — a long game's replay read by many
//!   clients at once while a bystander's bot replies are timed;
//! - [`plot`]: SVG charts of their JSON lines (latency against load; in
//!   [`plot::ai`], the bots' shots to sink and the tournament's matrix).
//!
//! The `broadside-lab` binary wires them to the subcommands `bench`, `load`,
//! `replay-flood` and `plot`.

pub mod bench;
pub mod flood;
pub mod load;
pub mod plot;
