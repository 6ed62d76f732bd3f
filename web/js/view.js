// Readers of the game in view (S.view): the boards and their marks, whose turn
// it is, team-mates, and the blocks of the shared sea (R-9), which this module
// also draws onto a board.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { S, mySeat, rules, seatName } from "./state.js";
import { watersPhrase } from "./words.js";

export function isShared() {
  return S.view?.mode === "shared_sea";
}

export function isSpace() {
  return S.view?.mode === "space";
}

/** The board a seat places on and defends: its own, or the one common sea (R-9). */
export function ownBoardIndex(seat = mySeat()) {
  return isShared() ? 0 : seat;
}

/** The size of a board as the view draws it: in the shared sea, the whole sea. */
export function seaSize(index) {
  const rows = S.view.boards[index]?.rows || [];
  return rows.length ? { cols: rows[0].length, rows: rows.length } : S.view.board_size;
}

export function originOf(block) {
  return Array.isArray(block.origin) ? block.origin : [block.origin.col, block.origin.row];
}

/** The block of the shared sea that holds a cell, or -1. */
export function blockIndexAt(col, row) {
  const size = S.view.board_size;
  return (S.view.blocks || []).findIndex((b) => {
    const [c0, r0] = originOf(b);
    return col >= c0 && row >= r0 && col < c0 + size.cols && row < r0 + size.rows;
  });
}

export function isMate(seat) {
  const me = mySeat();
  if (me === null || seat === me || seat === null || seat === undefined) return false;
  return S.view.seats[seat]?.team === S.view.seats[me]?.team;
}

function friendly(seat) {
  return seat === mySeat() || isMate(seat);
}

/** What a block of the shared sea is to this viewer: own, mate, out (eliminated or empty) or foe. */
export function blockRole(index) {
  const b = S.view.blocks[index];
  if (b.empty || b.eliminated) return "out";
  if (b.owner !== null && b.owner !== undefined && friendly(b.owner)) return b.owner === mySeat() ? "own" : "mate";
  return "foe";
}

export function blockTitle(index) {
  const b = S.view.blocks[index];
  if (b.empty) return t("block_empty");
  const who = b.owner === null || b.owner === undefined ? t("block_unknown") : seatName(b.owner);
  // Blocks are numbered in reading order so unknown owners stay apart.
  return `${index + 1} · ${b.eliminated ? `${who} ✝` : who}`;
}

/**
 * Whose waters a shot fell in, as far as this viewer knows (R-9.3 in the
 * shared sea), as the phrase the log puts after the cell ("in Ana's waters").
 */
export function waterName(board, at) {
  let owner = board;
  if (S.view?.mode === "shared_sea") {
    const index = blockIndexAt(at[0], at[1]);
    const block = S.view.blocks?.[index];
    owner = block?.owner ?? null;
    if (owner === null) return watersPhrase({ block: index + 1 });
  }
  return owner === mySeat() ? watersPhrase({ mine: true }) : watersPhrase({ name: seatName(owner) });
}

/** Placement on a sea wider than the screen starts with the own block in view. */
export function showOwnBlock(scroller) {
  const own = scroller.querySelector(".cell.blk-own.blk-l.blk-t");
  if (own && scroller.scrollWidth > scroller.clientWidth) scroller.scrollLeft = Math.max(0, own.offsetLeft - scroller.offsetLeft - 24);
}

/**
 * Draws the blocks onto a drawn shared sea: borders, the own and team blocks,
 * owner tags (R-9.3). The view, the roles and the titles are the page's own
 * unless given (a replay names every block).
 */
export function decorateBlocks(element, { view = S.view, role: roleOf = blockRole, title: titleOf = blockTitle } = {}) {
  if (!view?.blocks) return;
  const grid = element.querySelector(".grid");
  const size = view.board_size;
  element.classList.add("shared-sea");
  view.blocks.forEach((b, index) => {
    const [c0, r0] = originOf(b);
    const role = roleOf(index);
    for (let r = r0; r < r0 + size.rows; r += 1) {
      for (let c = c0; c < c0 + size.cols; c += 1) {
        const el = grid.querySelector(`[data-col="${c}"][data-row="${r}"]`);
        if (!el) continue;
        el.classList.add(`blk-${role}`);
        el.dataset.block = String(index);
        if (c === c0) el.classList.add("blk-l");
        if (r === r0) el.classList.add("blk-t");
      }
    }
    const first = grid.querySelector(`[data-col="${c0}"][data-row="${r0}"]`);
    if (first) {
      first.append(h("span", { class: `block-tag tag-${role}`, "aria-hidden": "true" }, titleOf(index)));
      // The tag's words are part of the cell's name too, as a screen reader and voice control see it.
      first.setAttribute("aria-label", `${first.getAttribute("aria-label")}, ${titleOf(index)}`);
    }
  });
}

export function boardMark(board, col, row) {
  return S.view.boards[board].rows[row][col];
}

/** Cells the viewer may still aim at, as the view shows them: unknown or scanned-ship. */
export function looksTargetable(mark) {
  return mark === "~" || mark === "!";
}

/** Whether a cell is a target for this viewer: an opponent's waters, not known yet. */
export function cellIsTarget(board, col, row) {
  if (!looksTargetable(boardMark(board, col, row))) return false;
  if (isShared()) {
    const block = blockIndexAt(col, row);
    return block >= 0 && blockRole(block) === "foe";
  }
  return board !== mySeat() && !isMate(board) && Boolean(S.view.seats[board]?.alive);
}

export function myTurn() {
  const me = mySeat();
  return me !== null && S.view.phase === "battle" && S.view.to_move.includes(me);
}

export function perVolley() {
  return rules().report === "per_volley";
}
