//! The server's integration suites, in one test binary: each suite is a
//! module here (run one with `cargo test --test server -- secrecy::`). One
//! binary instead of one per file: in a release build every binary compiled
//! the server's whole network stack again (about 90 s of processor each).

mod common;

mod accounts;
mod fair_limits;
mod fairplay;
mod game;
mod hardening;
mod moderation;
mod operations;
mod protocol;
mod public;
mod replay;
mod restart;
mod secrecy;
