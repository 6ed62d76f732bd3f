// Drawing boards: labels around the grid, one button per cell, ship hulls.
// Only geometry and presentation live here; what is legal is asked of the server.

import { t } from "./i18n.js";
import { on } from "./dom.js";

/** Letters of a 0-based index: A…Z, then AA, AB, … (docs/rules.md ). */
export function letters(index) {
  let out = "";
  let n = index;
  for (;;) {
    out = String.fromCharCode(65 + (n % 26)) + out;
    if (n < 26) break;
    n = Math.floor(n / 26) - 1;
  }
  return out;
}

/** The label of a cell, letters first, as the view's letter_axis says. */
export function cellLabel(axis, col, row) {
  return axis === "columns" ? `${letters(col)}${row + 1}` : `${letters(row)}${col + 1}`;
}

export function columnHeading(axis, col) {
  return axis === "columns" ? letters(col) : String(col + 1);
}

export function rowHeading(axis, row) {
  return axis === "columns" ? String(row + 1) : letters(row);
}

/** The cells of a shape turned `rot` quarter turns clockwise, shifted to (0,0). */
export function rotatedCells(cells, rot) {
  let shape = cells.map(([x, y]) => [x, y]);
  for (let turn = 0; turn < ((rot % 4) + 4) % 4; turn += 1) {
    const height = Math.max(...shape.map(([, y]) => y)) + 1;
    shape = shape.map(([x, y]) => [height - 1 - y, x]);
    const minX = Math.min(...shape.map(([x]) => x));
    const minY = Math.min(...shape.map(([, y]) => y));
    shape = shape.map(([x, y]) => [x - minX, y - minY]);
  }
  return shape;
}

export function shapeSize(cells) {
  return {
    width: Math.max(...cells.map(([x]) => x)) + 1,
    height: Math.max(...cells.map(([, y]) => y)) + 1,
  };
}

/** The name of what a cell shows, for screen readers and tooltips. */
export function markName(mark) {
  return t(`mark.${markKey(mark)}`);
}

export function markKey(mark) {
  switch (mark) {
    case "~": return "unknown";
    case "*": return "ship";
    case "X": return "hit";
    case "?": return "hit_unknown_owner";
    case "#": return "sunk";
    case "O": return "miss";
    case ".": return "water";
    case "-": return "scan_empty";
    case "!": return "scan_ship";
    case "+": return "volley_unknown";
    case "=": return "no_target";
    default: return "unknown";
  }
}

/**
 * Builds a board: a CSS grid with column headings on top, row headings on the
 * left, and one cell element per cell. `cellAt(col,row)` returns the mark;
 * `hull` maps "col,row" to the connection sides of a known ship's part so
 * ships are drawn as one hull rather than loose squares.
 */
export function buildBoard({ size, axis, markAt, hull = new Map(), id, interactive = false, caption, fresh = new Set() }) {
  const wrap = document.createElement("div");
  wrap.className = "board";
  wrap.style.setProperty("--cols", size.cols);
  wrap.style.setProperty("--rows", size.rows);
  if (id) wrap.dataset.board = id;
  const grid = document.createElement("div");
  grid.className = "grid";
  grid.setAttribute("role", "grid");
  if (caption) grid.setAttribute("aria-label", caption);
  const corner = document.createElement("div");
  corner.className = "heading corner";
  corner.setAttribute("aria-hidden", "true");
  grid.append(corner);
  for (let col = 0; col < size.cols; col += 1) {
    const heading = document.createElement("div");
    heading.className = "heading col-heading";
    heading.textContent = columnHeading(axis, col);
    heading.setAttribute("aria-hidden", "true");
    grid.append(heading);
  }
  for (let row = 0; row < size.rows; row += 1) {
    const rowEl = document.createElement("div");
    rowEl.setAttribute("role", "row");
    rowEl.className = "grid-row";
    const heading = document.createElement("div");
    heading.className = "heading row-heading";
    heading.textContent = rowHeading(axis, row);
    heading.setAttribute("aria-hidden", "true");
    rowEl.append(heading);
    for (let col = 0; col < size.cols; col += 1) {
      const mark = markAt(col, row);
      const cell = document.createElement(interactive ? "button" : "div");
      if (interactive) cell.type = "button";
      cell.className = `cell m-${markKey(mark)}`;
      cell.setAttribute("role", "gridcell");
      cell.dataset.col = col;
      cell.dataset.row = row;
      const label = cellLabel(axis, col, row);
      cell.dataset.label = label;
      cell.setAttribute("aria-label", `${label}, ${markName(mark)}`);
      if (interactive) cell.tabIndex = -1;
      const sides = hull.get(`${col},${row}`);
      if (sides !== undefined) {
        cell.classList.add("hull");
        for (const side of sides) cell.classList.add(`join-${side}`);
        addStruts(cell, sides);
      }
      if (fresh.has(`${col},${row}`)) cell.classList.add("fresh");
      const glyph = document.createElement("span");
      glyph.className = "glyph";
      glyph.setAttribute("aria-hidden", "true");
      cell.append(glyph);
      rowEl.append(cell);
    }
    grid.append(rowEl);
  }
  wrap.append(grid);
  return wrap;
}

/** Which sides of each ship cell join another cell of the same ship. */
export function hullMap(ships) {
  const map = new Map();
  for (const ship of ships) {
    const set = new Set(ship.cells.map(([c, r]) => `${c},${r}`));
    for (const [c, r] of ship.cells) {
      const sides = [];
      if (set.has(`${c - 1},${r}`)) sides.push("l");
      if (set.has(`${c + 1},${r}`)) sides.push("r");
      if (set.has(`${c},${r - 1}`)) sides.push("t");
      if (set.has(`${c},${r + 1}`)) sides.push("b");
      // Parts that meet only at a corner (the brasil seaplane's V) get a
      // diagonal strut, so the ship still reads as one hull.
      for (const [dc, dr, name] of [[-1, -1, "tl"], [1, -1, "tr"], [-1, 1, "bl"], [1, 1, "br"]]) {
        const corner = set.has(`${c + dc},${r + dr}`);
        const bridged = set.has(`${c + dc},${r}`) || set.has(`${c},${r + dr}`);
        if (corner && !bridged) sides.push(name);
      }
      map.set(`${c},${r}`, sides);
    }
  }
  return map;
}

/** A ship drawn to scale for the dock, the fleet panel and the drag ghost. */
export function buildShip(cells, cellSize) {
  const { width, height } = shapeSize(cells);
  const el = document.createElement("div");
  el.className = "ship-shape";
  el.style.setProperty("--w", width);
  el.style.setProperty("--h", height);
  if (cellSize) el.style.setProperty("--cell", `${cellSize}px`);
  const hull = hullMap([{ cells }]);
  for (const [x, y] of cells) {
    const part = document.createElement("span");
    part.className = "part";
    for (const side of hull.get(`${x},${y}`)) part.classList.add(`join-${side}`);
    addStruts(part, hull.get(`${x},${y}`));
    part.style.gridColumn = x + 1;
    part.style.gridRow = y + 1;
    el.append(part);
  }
  return el;
}

/** One strut per diagonal join: a cell may have two (the apex of the seaplane's V). */
function addStruts(el, sides) {
  for (const side of sides) {
    if (side.length !== 2) continue;
    const strut = document.createElement("span");
    strut.className = `strut strut-${side}`;
    strut.setAttribute("aria-hidden", "true");
    el.append(strut);
  }
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * Keyboard play on an interactive grid (UI.md "Access"): the arrows move a
 * visible cursor (one cell holds the tab stop), Enter or Space picks the cell;
 * `move(col,row,grid)` and `pick(col,row)` are told, other keys go to
 * `other`. The grid on the page is the event's (a redraw may have kept the
 * live one rather than `grid`).
 */
export function gridKeys(grid, size, { move, pick, other }) {
  on(grid, "keydown", (e) => {
    const live = e.currentTarget;
    const cell = e.target.closest(".cell");
    if (!cell) return;
    let col = Number(cell.dataset.col);
    let row = Number(cell.dataset.row);
    if (ARROWS[e.key]) {
      e.preventDefault();
      col = Math.max(0, Math.min(size.cols - 1, col + ARROWS[e.key][0]));
      row = Math.max(0, Math.min(size.rows - 1, row + ARROWS[e.key][1]));
      moveCursor(live, col, row);
      move?.(col, row, live);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      pick(col, row);
    } else {
      other?.(e, col, row);
    }
  });
}

function moveCursor(grid, col, row) {
  for (const el of grid.querySelectorAll(".cell")) {
    el.tabIndex = -1;
    el.classList.remove("cursor");
  }
  const target = grid.querySelector(`[data-col="${col}"][data-row="${row}"]`);
  if (target) {
    target.tabIndex = 0;
    target.classList.add("cursor");
    target.focus();
  }
}

/**
 * A board wider than the screen (the shared sea on a phone) scrolls sideways
 * inside this box instead of spilling off the page; `key` names it so a redraw
 * can keep its scroll position.
 */
export function boardScroller(board, key) {
  const box = document.createElement("div");
  box.className = "board-scroll";
  box.dataset.scroll = key;
  box.append(board);
  // A board without a cell to focus (one only shown) is scrolled by the keyboard through its box.
  if (!board.querySelector('[tabindex="0"]')) {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    const caption = board.querySelector(".grid")?.getAttribute("aria-label");
    if (caption) box.setAttribute("aria-label", caption);
  }
  return box;
}
