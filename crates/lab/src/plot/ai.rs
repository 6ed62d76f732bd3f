//! The bots' charts for docs/ai.md, drawn by `broadside-lab plot --kind shots` and
//! `--kind versus` from the JSON lines `broadside-lab bench --json` prints:
//!
//! - `shots`: one line per strategy, the share of games that took each number
//!   of shots to sink the fleet (the reports' `histogram`);
//! - `versus`: the tournament as a matrix, arenas down and pairings across,
//!   each cell the stronger level's share of wins, coloured from red (the
//!   weaker level won) through grey (even) to green.

use anyhow::{anyhow, bail, Context, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

use super::{draw_legend, svg_document, Area};

const PALETTE: [RGBColor; 5] = [
    RGBColor(150, 150, 150),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
];

fn lines(text: &str) -> Result<Vec<Value>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).with_context(|| format!("line {}", i + 1)))
        .collect()
}

/// One strategy's distribution: its name and `(shots, share of games)`.
pub type Distribution = (String, Vec<(f64, f64)>);

/// The distributions of `broadside-lab bench --json` reports, in input order.
pub fn read_distributions(text: &str) -> Result<Vec<Distribution>> {
    let mut out = Vec::new();
    for value in lines(text)? {
        let Some(histogram) = value.get("histogram").and_then(Value::as_array) else {
            continue;
        };
        let name = value
            .get("strategy")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("a report without a strategy"))?;
        let pairs: Vec<(f64, f64)> = histogram
            .iter()
            .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
            .collect();
        let games: f64 = pairs.iter().map(|(_, n)| n).sum();
        if games > 0.0 {
            out.push((
                name.to_string(),
                pairs.into_iter().map(|(s, n)| (s, n / games)).collect(),
            ));
        }
    }
    if out.is_empty() {
        bail!("no report with a histogram (broadside-lab bench --json)");
    }
    Ok(out)
}

/// The shots-to-sink chart as an SVG document.
pub fn render_shots(data: &[Distribution], title: &str) -> Result<String> {
    svg_document((1000, 560), |root| draw_shots(root, data, title))
}

fn draw_shots(
    root: &Area<'_>,
    data: &[Distribution],
    title: &str,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    root.fill(&WHITE)?;
    let points = data.iter().flat_map(|(_, p)| p.iter());
    let (x_max, y_max) = points.fold((1.0f64, 0.01f64), |(x, y), p| (x.max(p.0), y.max(p.1)));
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(55)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max + 1.0, 0.0..y_max * 1.1)?;
    chart
        .configure_mesh()
        .x_desc("shots to sink the fleet")
        .y_desc("share of games")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{:.0} %", y * 100.0))
        .axis_desc_style(("sans-serif", 20))
        .label_style(("sans-serif", 17))
        .light_line_style(BLACK.mix(0.04))
        .draw()?;
    for (i, (name, points)) in data.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// One cell of the tournament: the stronger level's share and its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub arena: String,
    /// "medium vs easy".
    pub pairing: String,
    pub rate: f64,
    pub low: f64,
    pub high: f64,
    pub games: u64,
}

/// The cells of `broadside-lab bench --versus --json` lines, in input order.
pub fn read_versus(text: &str) -> Result<Vec<Cell>> {
    let mut out = Vec::new();
    for value in lines(text)? {
        let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
        let number = |k: &str| value.get(k).and_then(Value::as_f64);
        let (Some(arena), Some(a), Some(b)) = (text("arena"), text("a"), text("b")) else {
            continue;
        };
        out.push(Cell {
            arena,
            pairing: format!("{a} vs {b}"),
            rate: number("rate_a").ok_or_else(|| anyhow!("a pairing without rate_a"))?,
            low: number("low").unwrap_or(0.0),
            high: number("high").unwrap_or(1.0),
            games: value.get("games").and_then(Value::as_u64).unwrap_or(0),
        });
    }
    if out.is_empty() {
        bail!("no pairing (broadside-lab bench --versus --json)");
    }
    Ok(out)
}

/// The colour of a win rate: red below one half, grey at it, green above.
fn rate_color(rate: f64) -> RGBColor {
    let t = ((rate - 0.5) * 2.0).clamp(-1.0, 1.0);
    let (from, to) = if t >= 0.0 {
        ((235, 235, 235), (60, 170, 90))
    } else {
        ((235, 235, 235), (220, 70, 60))
    };
    let t = t.abs();
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
    RGBColor(mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
}

/// The tournament matrix as an SVG document.
pub fn render_versus(cells: &[Cell], title: &str) -> Result<String> {
    let mut arenas: Vec<&str> = Vec::new();
    let mut pairings: Vec<&str> = Vec::new();
    for c in cells {
        if !arenas.contains(&c.arena.as_str()) {
            arenas.push(&c.arena);
        }
        if !pairings.contains(&c.pairing.as_str()) {
            pairings.push(&c.pairing);
        }
    }
    let (left, top, width, height) = (180i32, 90i32, 230i32, 44i32);
    let size = (
        (left + width * pairings.len() as i32 + 20) as u32,
        (top + height * arenas.len() as i32 + 50) as u32,
    );
    svg_document(size, |root| {
        root.fill(&WHITE)?;
        let centred = |size| {
            ("sans-serif", size)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center))
        };
        root.draw(&Text::new(
            title.to_string(),
            (size.0 as i32 / 2, 25),
            centred(22),
        ))?;
        for (j, pairing) in pairings.iter().enumerate() {
            let x = left + width * j as i32 + width / 2;
            root.draw(&Text::new(pairing.to_string(), (x, top - 20), centred(17)))?;
        }
        for (i, arena) in arenas.iter().enumerate() {
            let y = top + height * i as i32;
            let label = ("sans-serif", 17)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Right, VPos::Center));
            root.draw(&Text::new(
                arena.to_string(),
                (left - 10, y + height / 2),
                label,
            ))?;
            for (j, pairing) in pairings.iter().enumerate() {
                let Some(c) = cells
                    .iter()
                    .find(|c| c.arena == *arena && c.pairing == *pairing)
                else {
                    continue;
                };
                let x = left + width * j as i32;
                root.draw(&Rectangle::new(
                    [(x + 2, y + 2), (x + width - 2, y + height - 2)],
                    rate_color(c.rate).filled(),
                ))?;
                let text = format!(
                    "{:.0} % [{:.0}–{:.0}] n={}",
                    c.rate * 100.0,
                    c.low * 100.0,
                    c.high * 100.0,
                    c.games
                );
                root.draw(&Text::new(
                    text,
                    (x + width / 2, y + height / 2),
                    centred(16),
                ))?;
            }
        }
        let note = "share of games the stronger level won, with its 95 % interval";
        root.draw(&Text::new(
            note,
            (size.0 as i32 / 2, size.1 as i32 - 20),
            centred(15),
        ))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shots_chart_draws_every_strategy() {
        let text = concat!(
            r#"{"strategy":"hunt","mean":3.0,"histogram":[[2,1],[4,1]]}"#,
            "\n",
            r#"{"strategy":"bayes","mean":2.0,"histogram":[[2,3]]}"#,
            "\n"
        );
        let data = read_distributions(text).expect("reports");
        assert_eq!(data[0], ("hunt".to_string(), vec![(2.0, 0.5), (4.0, 0.5)]));
        assert_eq!(data[1].1, vec![(2.0, 1.0)]);
        let svg = render_shots(&data, "shots").expect("svg");
        assert!(svg.contains("hunt") && svg.contains("bayes"));
        assert!(read_distributions("{\"strategy\":\"x\"}\n").is_err());
    }

    #[test]
    fn versus_matrix_shows_every_cell() {
        let text = concat!(
            r#"{"arena":"duel","a":"medium","b":"easy","games":40,"rate_a":0.9,"low":0.77,"high":0.96}"#,
            "\n",
            r#"{"arena":"duel","a":"hard","b":"medium","games":40,"rate_a":0.3,"low":0.2,"high":0.45}"#,
            "\n"
        );
        let cells = read_versus(text).expect("cells");
        assert_eq!(cells.len(), 2);
        let svg = render_versus(&cells, "tournament").expect("svg");
        assert!(svg.contains("90 % [77–96] n=40") && svg.contains("hard vs medium"));
        assert_eq!(rate_color(0.5), RGBColor(235, 235, 235));
        assert_eq!(rate_color(1.0), RGBColor(60, 170, 90));
        assert_eq!(rate_color(0.0), RGBColor(220, 70, 60));
    }
}
