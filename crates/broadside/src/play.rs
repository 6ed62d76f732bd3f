//! `broadside play`.

use anyhow::{bail, Result};

#[derive(clap::Args, Debug, Default)]
pub struct PlayArgs {}

pub fn run(_args: PlayArgs) -> Result<()> {
    bail!("broadside play is being built")
}
