//! `broadside bench`.

use anyhow::{bail, Result};

#[derive(clap::Args, Debug, Default)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> Result<()> {
    bail!("broadside bench is being built")
}
