// Change frames (docs/protocol.md, "State and change"): after a move the
// server sends only what changed in this connection's view. The link keeps
// the last whole view and turns each `change` back into the `state` frame the
// page has always read, so nothing past the link needs to know.

/**
 * The view after a change, as a new object: the page keeps the view before it
 * (to tell what happened), so nothing it holds is modified. Fields present in
 * `patch` replace the old ones whole; each cell of `cells` sets one character
 * of a board's row.
 */
export function applyChange(view, patch, cells) {
  const next = { ...view, ...patch };
  if (cells && cells.length) {
    const boards = next.boards.slice();
    // A board is copied once, the first time one of its cells changes.
    const copied = new Set();
    for (const { board, at, mark } of cells) {
      const [col, row] = at;
      const old = boards[board];
      if (!old || row >= old.rows.length) continue;
      if (!copied.has(board)) {
        boards[board] = { ...old, rows: old.rows.slice() };
        copied.add(board);
      }
      const rows = boards[board].rows;
      const line = Array.from(rows[row]);
      if (col >= line.length) continue;
      line[col] = mark;
      rows[row] = line.join("");
    }
    next.boards = boards;
  }
  return next;
}

/**
 * A connection's copy of its view. `receive` takes a `state` or `change`
 * frame and gives the `state` frame to hand on, or null for a change that
 * does not follow the last frame: then the caller asks for `resync`, and the
 * `state` that answers it starts the copy again.
 */
export class ViewCopy {
  constructor() {
    this.clear();
  }

  clear() {
    this.seq = null;
    this.view = null;
    // A `resync` was asked for and its `state` has not come yet.
    this.resyncing = false;
  }

  receive(frame) {
    if (frame.type === "state") {
      this.seq = frame.seq ?? 0;
      this.view = frame.view;
      this.resyncing = false;
      return frame;
    }
    if (this.view === null || frame.seq !== this.seq + 1) return null;
    this.view = applyChange(this.view, frame.view, frame.cells);
    this.seq = frame.seq;
    return { type: "state", seq: frame.seq, view: this.view, events: frame.events || [], deadline_ms: frame.deadline_ms ?? null, ...(frame.stats ? { stats: frame.stats } : {}) };
  }
}
