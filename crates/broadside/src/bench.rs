//! `broadside bench`: measures a bot strategy on practice games (the measuring
//! itself lives in `broadside_ai::bench`).

use anyhow::{anyhow, bail, Context, Result};
use broadside_ai::bench::{self, BenchConfig};
use broadside_ai::Strategy;
use broadside_engine::{Options, Preset};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The preset to play (classic, shared, space, brasil, italia, hasbro).
    #[arg(long, default_value = "classic")]
    pub preset: String,
    /// The strategy to measure (random, hunt, density, bayes).
    #[arg(long, default_value = "bayes")]
    pub strategy: String,
    /// How many games to play.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// The seed the layouts are drawn from (the same for every strategy).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A room option as KEY=VALUE (VALUE read as JSON, else as a string), e.g.
    /// `report=per_volley`. May be repeated.
    #[arg(long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// Print one JSON line instead of a table.
    #[arg(long)]
    pub json: bool,
}

impl Default for BenchArgs {
    fn default() -> Self {
        BenchArgs {
            preset: "classic".to_string(),
            strategy: "bayes".to_string(),
            games: 1000,
            seed: 1,
            options: Vec::new(),
            json: false,
        }
    }
}

/// Room options from `KEY=VALUE` pairs, checked by the engine's own parser.
fn parse_options(pairs: &[String]) -> Result<Options> {
    let mut map = serde_json::Map::new();
    for pair in pairs {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| anyhow!("--option wants KEY=VALUE, got '{pair}'"))?;
        let value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_string()));
        map.insert(key.trim().to_string(), value);
    }
    serde_json::from_value(serde_json::Value::Object(map)).context("bad --option")
}

pub fn run(args: BenchArgs) -> Result<()> {
    let preset =
        Preset::from_id(&args.preset).ok_or_else(|| anyhow!("unknown preset '{}'", args.preset))?;
    let strategy = Strategy::from_id(&args.strategy).ok_or_else(|| {
        let ids: Vec<&str> = Strategy::ALL.iter().map(|s| s.id()).collect();
        anyhow!(
            "unknown strategy '{}' (one of {})",
            args.strategy,
            ids.join(", ")
        )
    })?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let config = BenchConfig {
        preset,
        strategy,
        games: args.games,
        seed: args.seed,
        options: parse_options(&args.options)?,
    };
    let report = bench::run(&config, |_| {})?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "preset {}  strategy {}  games {}  seed {}",
            report.preset, report.strategy, report.games, args.seed
        );
        println!(
            "shots to sink the fleet: mean {:.2}  median {:.1}  p95 {:.0}  max {:.0}",
            report.mean, report.median, report.p95, report.max
        );
        println!("turns to win: mean {:.2}", report.mean_turns);
        println!(
            "time per move: mean {:.3} ms  p99 {:.3} ms (CPU: mean {:.3} ms  p99 {:.3} ms)",
            report.mean_ms, report.p99_ms, report.mean_cpu_ms, report.p99_cpu_ms
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_json_then_strings() {
        let options = parse_options(&[
            "report=per_volley".to_string(),
            "water_ring=false".to_string(),
        ])
        .expect("valid options");
        assert_eq!(options.report, Some(broadside_engine::Report::PerVolley));
        assert_eq!(options.water_ring, Some(false));
        assert!(parse_options(&["nonsense=1".to_string()]).is_err());
        assert!(parse_options(&["novalue".to_string()]).is_err());
    }
}
