//! `broadside-lab bench`: its flags, and the table or JSON lines it prints
//! (the measuring itself is the parent module and [`super::versus`]).

use anyhow::{anyhow, bail, Context, Result};
use broadside_ai::{Level, Strategy};
use broadside_engine::{Options, Preset};

use super::{versus, BenchConfig, Layouts};
use crate::bench;

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
    /// Where the hunted fleet comes from: `engine` (the engine's random
    /// placement, largest ship first), `uniform` (uniform among all legal
    /// layouts, by rejection, as published benchmarks assume) or a level
    /// (`easy` … `admiral`: as a bot of that level hides its own fleet).
    #[arg(long, default_value = "engine")]
    pub layouts: String,
    /// A second strategy played on the same games: the report adds the paired
    /// difference of the means with its 95 % confidence interval.
    #[arg(long, value_name = "STRATEGY")]
    pub against: Option<String>,
    /// Threads playing games at once (per-move times are each thread's CPU
    /// time as well as wall time).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Play a tournament instead: each level against the level below, in real
    /// games of every mode (or of the `--arena`s given), `--games` games per
    /// pairing and arena. One line per pairing; with `--json`, JSON lines.
    #[arg(long)]
    pub versus: bool,
    /// With `--versus`: an arena to play (duel, hasbro, brasil-easy,
    /// brasil-hard, italia-specials, salvo-spread-4, salvo-focus-6, teams-2v2,
    /// shared-sea-4, space-duel, space-4). May be repeated; default all.
    #[arg(long = "arena", value_name = "ID")]
    pub arenas: Vec<String>,
    /// With `--versus`: the levels, weakest first, each played against the
    /// next (default: every level).
    #[arg(long, value_delimiter = ',')]
    pub levels: Vec<String>,
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
            layouts: "engine".to_string(),
            against: None,
            threads: 1,
            versus: false,
            arenas: Vec::new(),
            levels: Vec::new(),
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

fn strategy(id: &str) -> Result<Strategy> {
    Strategy::from_id(id).ok_or_else(|| {
        let ids: Vec<&str> = Strategy::ALL.iter().map(|s| s.id()).collect();
        anyhow!("unknown strategy '{id}' (one of {})", ids.join(", "))
    })
}

pub fn run(args: BenchArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.versus {
        return tournament(&args);
    }
    let preset =
        Preset::from_id(&args.preset).ok_or_else(|| anyhow!("unknown preset '{}'", args.preset))?;
    let layouts = Layouts::from_id(&args.layouts).ok_or_else(|| {
        anyhow!(
            "unknown --layouts '{}' (engine, uniform, or a level: easy … admiral)",
            args.layouts
        )
    })?;
    let config = BenchConfig {
        preset,
        strategy: strategy(&args.strategy)?,
        games: args.games,
        seed: args.seed,
        options: parse_options(&args.options)?,
        layouts,
    };
    let results = bench::games(&config, args.threads, &|_| {})?;
    let report = bench::summarize(&config, &results);
    let paired = match &args.against {
        Some(id) => {
            let other = BenchConfig {
                strategy: strategy(id)?,
                ..config.clone()
            };
            let theirs = bench::games(&other, args.threads, &|_| {})?;
            Some(bench::paired(id, &results, &theirs))
        }
        None => None,
    };
    if args.json {
        let mut line = serde_json::to_value(&report)?;
        if let Some(paired) = &paired {
            line["paired"] = serde_json::to_value(paired)?;
        }
        println!("{line}");
        return Ok(());
    }
    println!(
        "preset {}  strategy {}  layouts {}  games {}  seed {}",
        report.preset, report.strategy, report.layouts, report.games, args.seed
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
    if let Some(p) = paired {
        println!(
            "against {} (mean {:.2}): difference {:+.3} shots, 95 % interval [{:+.3}, {:+.3}]; fewer in {}, equal in {}, more in {} games",
            p.against, p.against_mean, p.mean_difference, p.ci_low, p.ci_high, p.fewer, p.equal, p.more
        );
    }
    Ok(())
}

/// `--versus`: each level against the next one up, in every arena asked for.
fn tournament(args: &BenchArgs) -> Result<()> {
    let levels: Vec<Level> = if args.levels.is_empty() {
        Level::ALL.to_vec()
    } else {
        args.levels
            .iter()
            .map(|id| Level::from_id(id.trim()).ok_or_else(|| anyhow!("unknown level '{id}'")))
            .collect::<Result<_>>()?
    };
    if levels.len() < 2 {
        bail!("--levels needs at least two levels");
    }
    let arenas: Vec<versus::Arena> = if args.arenas.is_empty() {
        versus::arenas()
    } else {
        args.arenas
            .iter()
            .map(|id| {
                versus::arena(id).ok_or_else(|| {
                    let ids: Vec<&str> = versus::arenas().iter().map(|a| a.id).collect();
                    anyhow!("unknown arena '{id}' (one of {})", ids.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    for arena in &arenas {
        for pair in levels.windows(2) {
            let (weaker, stronger) = (pair[0], pair[1]);
            let result = versus::pairing(
                arena,
                stronger,
                weaker,
                args.games,
                args.seed,
                args.threads,
                &|_| {},
            )?;
            if args.json {
                println!("{}", serde_json::to_string(&result)?);
            } else {
                println!(
                    "{:<16} {:>7} vs {:<7} {:>5} games  {:>5.1} %  [{:.1}, {:.1}]",
                    result.arena,
                    result.a,
                    result.b,
                    result.games,
                    result.rate_a * 100.0,
                    result.low * 100.0,
                    result.high * 100.0
                );
            }
        }
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
