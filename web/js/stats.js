// The statistics of a finished game, as the server counts them (the `stats`
// of the finished state frame and of a replay, docs/protocol.md): per seat the
// cells its fire landed on, the hits among them and the ships it sank, drawn
// as a table and as one map per seat of where it shot. The end screen and the
// replay page both use this.

import { t, plural, percent } from "./i18n.js";
import { letters, cellLabel } from "./board.js";
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";

/**
 * The table: shots, hits, accuracy, ships sunk by the seat, and its own ships
 * still afloat. `name(seat)` names a seat; `view` is the final view;
 * `beside(seat)` may add something after a name (the end screen's ratings).
 */
export function statsTable(stats, view, name, beside = () => null) {
  const winners = view.winner || [];
  const rows = view.seats.map((seat) => {
    const s = stats.find((entry) => entry.seat === seat.seat) || { shots: 0, hits: 0, sunk: 0 };
    return h(
      "tr",
      { class: winners.includes(seat.seat) ? "winner" : "", dataset: { seat: String(seat.seat) } },
      h("th", { scope: "row" }, winners.includes(seat.seat) ? "🏆 " : "", name(seat.seat), " ", beside(seat.seat)),
      h("td", { class: "stat-shots" }, String(s.shots)),
      h("td", { class: "stat-hits" }, String(s.hits)),
      h("td", { class: "stat-accuracy" }, s.shots ? percent(s.hits / s.shots) : "—"),
      h("td", { class: "stat-sunk" }, String(s.sunk)),
      h("td", {}, `${seat.ships_afloat}/${seat.ships_total}`),
    );
  });
  return h(
    "table",
    { class: "stats" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, h("span", { class: "sr-only" }, t("stat_player"))), ["stat_shots", "stat_hits", "stat_accuracy", "stat_sunk", "stat_afloat"].map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, rows),
  );
}

/**
 * One picture per seat of where it shot: for each board it fired at, the
 * board's cells tinted by how much fire fell around them (the heat), a round
 * dot for a shot into water and a square with a cross for a hit, so hits and
 * misses differ in shape as well as colour (UI.md "Look"). `me` is the
 * reader's seat (null for an outsider, as on the replay page).
 */
export function heatMaps(stats, view, name, title, me = null) {
  // The reader's own board is "your waters", not "You's waters".
  const waters = (board) => (me !== null && board === me ? t("your_waters") : t("board_of", { name: name(board) }));
  const figures = stats
    .filter((s) => s.cells && s.cells.length)
    .map((s) => {
      const boards = [...new Set(s.cells.map((c) => c.board))].sort((a, b) => a - b);
      const shared = view.mode === "shared_sea";
      return h(
        "figure",
        { class: "heat-seat", dataset: { seat: String(s.seat) } },
        h("figcaption", {}, h("strong", {}, name(s.seat)), " · ", plural("heat_caption", s.shots)),
        h(
          "div",
          { class: "heat-boards" },
          boards.map((board) =>
            h(
              "div",
              { class: "heat-board" },
              // A duel has one target; more boards say whose waters each map is.
              boards.length > 1 || view.seats.length > 2
                ? h("small", {}, shared ? t("shared_sea") : waters(board))
                : null,
              heatMap(s.cells.filter((c) => c.board === board), view, board, `${name(s.seat)}: ${plural("heat_caption", s.shots)}`),
            ),
          ),
        ),
      );
    });
  if (!figures.length) return null;
  return h(
    "section",
    { class: "heat-maps", "aria-label": title },
    h("h2", {}, title),
    h("div", { class: "heat-list" }, figures),
    h(
      "p",
      { class: "heat-legend muted" },
      h("span", { class: "key key-miss", "aria-hidden": "true" }),
      t("heat_miss"),
      h("span", { class: "key key-hit", "aria-hidden": "true" }),
      t("heat_hit"),
      h("span", { class: "key key-heat", "aria-hidden": "true" }),
      t("heat_density"),
    ),
  );
}

/** The SVG of one seat's fire on one board. */
function heatMap(cells, view, board, label) {
  const rows = view.boards[board]?.rows || [];
  const size = rows.length ? { cols: rows[0].length, rows: rows.length } : view.board_size;
  const unit = 10;
  const margin = 9;
  const width = margin + size.cols * unit;
  const height = margin + size.rows * unit;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "heat-map");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.style.setProperty("--cols", size.cols);
  const add = (tag, attrs, text) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    svg.append(el);
    return el;
  };
  add("rect", { x: margin, y: margin, width: size.cols * unit, height: size.rows * unit, class: "hm-sea" });
  // How many shots fell on each cell (areas may cover a cell twice).
  const count = new Map();
  for (const c of cells) {
    const key = `${c.at[0]},${c.at[1]}`;
    count.set(key, (count.get(key) || 0) + 1);
  }
  // The heat of a cell: the fire in its 3×3 neighbourhood, relative to the hottest.
  const heat = new Map();
  let hottest = 0;
  for (let r = 0; r < size.rows; r += 1) {
    for (let c = 0; c < size.cols; c += 1) {
      let sum = 0;
      for (let dr = -1; dr <= 1; dr += 1) for (let dc = -1; dc <= 1; dc += 1) sum += (count.get(`${c + dc},${r + dr}`) || 0) * (dr === 0 && dc === 0 ? 2 : 1);
      if (sum) heat.set(`${c},${r}`, sum);
      hottest = Math.max(hottest, sum);
    }
  }
  for (const [key, sum] of heat) {
    const [c, r] = key.split(",").map(Number);
    add("rect", { x: margin + c * unit, y: margin + r * unit, width: unit, height: unit, class: "hm-heat", "fill-opacity": (0.12 + 0.6 * (sum / hottest)).toFixed(2) });
  }
  for (let c = 0; c <= size.cols; c += 1) add("line", { x1: margin + c * unit, y1: margin, x2: margin + c * unit, y2: height, class: "hm-line" });
  for (let r = 0; r <= size.rows; r += 1) add("line", { x1: margin, y1: margin + r * unit, x2: width, y2: margin + r * unit, class: "hm-line" });
  const axis = view.letter_axis;
  for (let c = 0; c < size.cols; c += 1) add("text", { x: margin + c * unit + unit / 2, y: margin - 2.5, class: "hm-label" }, axis === "columns" ? letters(c) : String(c + 1));
  for (let r = 0; r < size.rows; r += 1) add("text", { x: margin / 2, y: margin + r * unit + unit / 2 + 2, class: "hm-label" }, axis === "columns" ? String(r + 1) : letters(r));
  for (const cell of cells) {
    const [c, r] = cell.at;
    const x = margin + c * unit;
    const y = margin + r * unit;
    const mark = cell.hit
      ? add("path", { d: `M${x + 1.5} ${y + 1.5}h7v7h-7z M${x + 3} ${y + 3}l4 4 M${x + 7} ${y + 3}l-4 4`, class: "hm-hit" })
      : add("circle", { cx: x + unit / 2, cy: y + unit / 2, r: 2.2, class: "hm-miss" });
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${cellLabel(axis, c, r)} · ${t(cell.hit ? "heat_hit" : "heat_miss")}`;
    mark.append(title);
  }
  return svg;
}
