//! `broadside-lab plot`: shot latency against load as an SVG chart, drawn from the
//! JSON lines that `broadside-lab load --json` prints (one run a line).
//!
//! x is the load the server actually served (`shots_per_second`), y the
//! latency in milliseconds on a log scale, with one line for p50 and one for
//! p99; every point is labelled with its number of games, and a dashed line
//! marks the 50 ms target. Drawn with plotters' SVG backend alone (text is
//! left to the SVG viewer's fonts, so no font library is built). The bots'
//! charts (`--kind shots`, `--kind versus`) are drawn by [`ai`].

pub mod ai;

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

/// The latency the server is meant to stay under, in milliseconds.
const TARGET_MS: f64 = 50.0;
/// The size of the chart in pixels.
const SIZE: (u32, u32) = (1000, 620);
const P50_COLOR: RGBColor = RGBColor(31, 119, 180);
const P99_COLOR: RGBColor = RGBColor(214, 39, 40);
const TARGET_COLOR: RGBColor = RGBColor(90, 90, 90);

#[derive(clap::Args, Debug)]
pub struct PlotArgs {
    /// JSON lines as printed by `broadside-lab load --json`, one run a line
    /// (blank lines are skipped; runs without shots are left out).
    #[arg(long)]
    pub input: PathBuf,
    /// The SVG file to write.
    #[arg(long)]
    pub output: PathBuf,
    /// The chart's title (each kind has its own default).
    #[arg(long)]
    pub title: Option<String>,
    /// What to draw: `latency` (from `broadside-lab load --json`), `shots` (shots
    /// to sink per strategy, from `broadside-lab bench --json` reports) or
    /// `versus` (the tournament matrix, from `broadside-lab bench --versus --json`).
    #[arg(long, value_enum, default_value = "latency")]
    pub kind: Kind,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Latency,
    Shots,
    Versus,
}

impl Kind {
    /// The chart's title when none is given.
    fn title(self) -> &'static str {
        match self {
            Kind::Latency => "Broadside: shot latency against load",
            Kind::Shots => "Shots to sink a fleet, by strategy",
            Kind::Versus => "Levels against the level below",
        }
    }
}

/// One run of `broadside-lab load`, as far as the chart needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Games running at the end of the window.
    pub games: u64,
    /// Games asked for.
    pub requested: u64,
    pub shots_per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
}

impl Run {
    /// The label of its points: the games, and how many were asked for when
    /// not all of them ran.
    fn label(&self) -> String {
        if self.games < self.requested {
            format!("{}/{} games", self.games, self.requested)
        } else {
            format!("{} games", self.games)
        }
    }
}

/// The runs of a JSON-lines text, sorted by load; runs without latency
/// samples (no shots, such as `--games 0`) are left out.
pub fn read_runs(text: &str) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let at = || format!("line {}", i + 1);
        let value: Value = serde_json::from_str(line).with_context(at)?;
        let number = |key: &str| value.get(key).and_then(Value::as_f64);
        let (Some(p50_ms), Some(p99_ms)) = (number("p50_ms"), number("p99_ms")) else {
            continue;
        };
        let shots_per_second =
            number("shots_per_second").ok_or_else(|| anyhow!("{}: no shots_per_second", at()))?;
        let games = value
            .get("games")
            .and_then(Value::as_u64)
            .ok_or_else(|| anyhow!("{}: no games", at()))?;
        let requested = value
            .get("games_requested")
            .and_then(Value::as_u64)
            .unwrap_or(games);
        runs.push(Run {
            games,
            requested,
            shots_per_second,
            p50_ms,
            p99_ms,
        });
    }
    runs.sort_by(|a, b| a.shots_per_second.total_cmp(&b.shots_per_second));
    Ok(runs)
}

/// The chart of `runs` as an SVG document.
pub fn render(runs: &[Run], title: &str) -> Result<String> {
    if runs.is_empty() {
        bail!("no run with latency samples to plot");
    }
    svg_document(SIZE, |root| draw(root, runs, title))
}

/// The drawing area every chart is drawn on.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// An SVG document of `size` pixels, drawn by `paint`.
pub fn svg_document(
    size: (u32, u32),
    paint: impl FnOnce(&Area<'_>) -> Result<(), DrawingAreaErrorKind<std::io::Error>>,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        paint(&root).map_err(|e| anyhow!("drawing the chart: {e}"))?;
        root.present()
            .map_err(|e| anyhow!("drawing the chart: {e}"))?;
    }
    Ok(svg)
}

/// The legend box of every chart, at `position`.
pub fn draw_legend<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
    position: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 17))
        .draw()
}

fn draw(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    runs: &[Run],
    title: &str,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    root.fill(&WHITE)?;
    let x_max = runs
        .iter()
        .map(|r| r.shots_per_second)
        .fold(0.0, f64::max)
        .max(1.0)
        * 1.12;
    let lows = runs.iter().map(|r| r.p50_ms.min(r.p99_ms));
    let highs = runs.iter().map(|r| r.p50_ms.max(r.p99_ms));
    // Log scale: from a bit below the lowest sample (at most 1 ms) to well
    // above the highest one and the target, so labels and the target fit.
    let y_min = lows.fold(1.0, f64::min).max(0.01) / 2.0;
    let y_max = highs.fold(TARGET_MS, f64::max) * 3.0;

    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(60)
        .y_label_area_size(80)
        .build_cartesian_2d(
            0.0..x_max,
            (y_min..y_max)
                .log_scale()
                .with_key_points(log_ticks(y_min, y_max, &[1.0, 2.0, 5.0]))
                .with_light_points(log_ticks(
                    y_min,
                    y_max,
                    &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
                )),
        )?;
    chart
        .configure_mesh()
        .x_desc("shots per second served")
        .y_desc("latency in ms (log scale)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| log_label(*y))
        .axis_desc_style(("sans-serif", 20))
        .label_style(("sans-serif", 17))
        .light_line_style(BLACK.mix(0.04))
        .bold_line_style(BLACK.mix(0.1))
        .draw()?;

    chart
        .draw_series(DashedLineSeries::new(
            [(0.0, TARGET_MS), (x_max, TARGET_MS)],
            8,
            6,
            TARGET_COLOR.stroke_width(2),
        ))?
        .label(format!("target {TARGET_MS:.0} ms"))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], TARGET_COLOR.stroke_width(2)));
    chart.draw_series(std::iter::once(Text::new(
        format!("target {TARGET_MS:.0} ms"),
        (x_max * 0.985, TARGET_MS * 1.08),
        ("sans-serif", 17)
            .into_font()
            .color(&TARGET_COLOR)
            .pos(Pos::new(HPos::Right, VPos::Bottom)),
    )))?;

    // p99 above p50: its labels go above its points, p50's below.
    for (name, color, value, dy) in [
        (
            "p99",
            P99_COLOR,
            (|r: &Run| r.p99_ms) as fn(&Run) -> f64,
            -26,
        ),
        ("p50", P50_COLOR, |r: &Run| r.p50_ms, 10),
    ] {
        let points: Vec<(f64, f64, String)> = runs
            .iter()
            .map(|r| (r.shots_per_second, value(r).max(y_min), r.label()))
            .collect();
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|(x, y, _)| (*x, *y)),
                color.stroke_width(2),
            ))?
            .label(format!("{name} latency"))
            .legend(move |(x, y)| {
                EmptyElement::at((x + 10, y))
                    + PathElement::new([(-10, 0), (10, 0)], color.stroke_width(2))
                    + Circle::new((0, 0), 4, color.filled())
            });
        chart.draw_series(PointSeries::of_element(
            points,
            5,
            color.filled(),
            &move |(x, y, label): (f64, f64, String), size, style| {
                EmptyElement::at((x, y))
                    + Circle::new((0, 0), size, style)
                    + Text::new(
                        label,
                        (0, dy),
                        ("sans-serif", 16)
                            .into_font()
                            .color(&color)
                            .pos(Pos::new(HPos::Center, VPos::Top)),
                    )
            },
        ))?;
    }

    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

/// The values `lead × 10^k` between `low` and `high`, for each of `leads`.
fn log_ticks(low: f64, high: f64, leads: &[f64]) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10f64.powf(low.log10().floor());
    while decade <= high {
        ticks.extend(
            leads
                .iter()
                .map(|lead| lead * decade)
                .filter(|y| (low..=high).contains(y)),
        );
        decade *= 10.0;
    }
    ticks
}

/// The label of a log-scale tick: whole milliseconds from 1 on, as many
/// decimals as its decade needs below.
fn log_label(y: f64) -> String {
    if y >= 1.0 || y.is_nan() || y <= 0.0 {
        format!("{y:.0}")
    } else {
        let digits = (-y.log10().floor()) as usize;
        format!("{y:.digits$}")
    }
}

pub fn run(args: PlotArgs) -> Result<()> {
    let reading = || format!("reading {}", args.input.display());
    let text = std::fs::read_to_string(&args.input).with_context(reading)?;
    let title = args.title.as_deref().unwrap_or(args.kind.title());
    let (svg, count) = match args.kind {
        Kind::Latency => {
            let runs = read_runs(&text).with_context(reading)?;
            (render(&runs, title)?, runs.len())
        }
        Kind::Shots => {
            let data = ai::read_distributions(&text).with_context(reading)?;
            (ai::render_shots(&data, title)?, data.len())
        }
        Kind::Versus => {
            let cells = ai::read_versus(&text).with_context(reading)?;
            (ai::render_versus(&cells, title)?, cells.len())
        }
    };
    std::fs::write(&args.output, svg)
        .with_context(|| format!("writing {}", args.output.display()))?;
    eprintln!("plotted {count} lines into {}", args.output.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_RUNS: &str = concat!(
        r#"{"games":2500,"games_requested":2500,"shots":50000,"p50_ms":3.1,"p99_ms":28.4,"max_ms":90.0,"shots_per_second":1250.0}"#,
        "\n\n",
        r#"{"games":1000,"games_requested":1000,"shots":20000,"p50_ms":1.2,"p99_ms":6.5,"max_ms":20.0,"shots_per_second":500.5}"#,
        "\n",
        r#"{"games":0,"games_requested":0,"shots":0,"p50_ms":null,"p99_ms":null,"shots_per_second":0.0}"#,
        "\n",
    );

    #[test]
    fn runs_are_read_sorted_by_load_and_runs_without_shots_left_out() {
        let runs = read_runs(TWO_RUNS).expect("two runs");
        assert_eq!(
            runs,
            vec![
                Run {
                    games: 1000,
                    requested: 1000,
                    shots_per_second: 500.5,
                    p50_ms: 1.2,
                    p99_ms: 6.5,
                },
                Run {
                    games: 2500,
                    requested: 2500,
                    shots_per_second: 1250.0,
                    p50_ms: 3.1,
                    p99_ms: 28.4,
                },
            ]
        );
        assert!(read_runs("{\"p50_ms\":1,\"p99_ms\":2,\"games\":1}\n")
            .unwrap_err()
            .to_string()
            .contains("line 1"));
        assert!(read_runs("not json").is_err());
    }

    #[test]
    fn two_runs_make_an_svg_with_both_series_and_the_target_line() {
        let runs = read_runs(TWO_RUNS).expect("two runs");
        let svg = render(&runs, "two fake runs").expect("a chart");
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("two fake runs"));
        // Both series in the legend, each with its line in its colour.
        assert!(svg.contains("p50 latency") && svg.contains("p99 latency"));
        for color in ["#1F77B4", "#D62728"] {
            assert!(
                svg.contains(&format!(
                    "<polyline fill=\"none\" opacity=\"1\" stroke=\"{color}\""
                )),
                "a line in {color}: {svg}"
            );
        }
        // Every point is labelled with its games.
        assert_eq!(svg.matches("1000 games").count(), 2);
        assert_eq!(svg.matches("2500 games").count(), 2);
        // The 50 ms target: labelled, and drawn as dashes (many short
        // segments in its grey).
        assert!(svg.contains("target 50 ms"));
        assert!(svg.matches("stroke=\"#5A5A5A\"").count() > 10, "{svg}");
        // Axis descriptions.
        assert!(svg.contains("shots per second served"));
        assert!(svg.contains("latency in ms (log scale)"));
    }

    #[test]
    fn a_run_short_of_its_games_says_so() {
        let run = Run {
            games: 4800,
            requested: 5000,
            shots_per_second: 1.0,
            p50_ms: 1.0,
            p99_ms: 2.0,
        };
        assert_eq!(run.label(), "4800/5000 games");
        let labels: Vec<String> = [0.02, 0.5, 1.0, 20.0, 500.0]
            .into_iter()
            .map(log_label)
            .collect();
        assert_eq!(labels, ["0.02", "0.5", "1", "20", "500"]);
        let ticks = log_ticks(0.3, 60.0, &[1.0, 2.0, 5.0]);
        let expected = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0];
        assert_eq!(ticks.len(), expected.len(), "{ticks:?}");
        assert!(ticks
            .iter()
            .zip(expected)
            .all(|(t, e)| (t - e).abs() < 1e-9));
        assert!(render(&[], "nothing").is_err());
    }
}
