//! `broadside serve`.

use anyhow::{bail, Result};

#[derive(clap::Args, Debug, Default)]
pub struct ServeArgs {}

pub fn run(_args: ServeArgs) -> Result<()> {
    bail!("broadside serve is being built")
}
