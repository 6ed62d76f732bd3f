// The placement screen (docs/rules.md ): a dock with the fleet drawn to scale,
// drag and drop onto the grid, rotation by right-click, the "↻ Rotate" button,
// the R key and a long-press, "🎲 Random" for the rest, and Ready.
//
// Whether a position is legal is always asked of the server (check_layout);
// the client only draws what the answer says.
//
// The screen's state is the store's (S.placement, state.js). The handlers
// below read it and send messages ({ type: "placement", change, … }) that
// `updatePlacement` carries out when app.js's update hands them on; only
// the pointer's way across the page (the ghost, the lit cells under it) is
// drawn in place, between two renders.

import { banner, screenHeading } from "./banner.js";
import { getLink, send } from "./link.js";
import { announce, toast } from "./notify.js";
import { S, dispatch, label, mySeat, newPlacement, rules, seatName as nameOf, shipTypeName } from "./state.js";
import { decorateBlocks, isShared, ownBoardIndex, seaSize } from "./view.js";
import { t, plural, errorText } from "./i18n.js";
import { buildBoard, buildShip, rotatedCells, hullMap, boardScroller } from "./board.js";
import { h, on } from "./dom.js";

const LONG_PRESS_MS = 550;

const P = S.placement;

/** A message about placement, for the store's dispatch (`fields` has no `type` of its own). */
function change(name, fields = {}) {
  dispatch({ ...fields, type: "placement", change: name });
}

export function resetPlacement() {
  // The preview's count goes on, so that no answer asked before is taken for a later one.
  Object.assign(P, newPlacement(), { previewSerial: P.previewSerial + 1 });
}

/**
 * What a placement message changes in the store; true when the page is to
 * be drawn again (the rest is drawn in place, or not at all).
 */
export function updatePlacement(message) {
  switch (message.change) {
    case "answer":
      P.answers.set(message.key, message.answer);
      return false;
    case "in_hand":
      P.inHand = { ...P.inHand, ...message.shown };
      return false;
    case "preview_asked":
      P.previewSerial += 1;
      return false;
    case "placed": {
      const { index, ship, at, rot, previous, answer } = message;
      if (answer?.ok) {
        P.placed.set(index, { type: ship, at, rot });
        P.selected = index;
        P.hint = { ok: true, text: t("placed_ship", { ship: shipTypeName(ship), cell: label(at) }) };
      } else {
        if (previous) P.placed.set(index, previous);
        else P.placed.delete(index);
        P.hint = { ok: false, text: reasonOf(answer) };
      }
      announce(P.hint.text);
      return true;
    }
    case "rotated": {
      const current = P.placed.get(message.index);
      if (message.answer?.ok && current) {
        P.placed.set(message.index, { ...current, rot: message.rot });
        P.hint = { ok: true, text: t("rotated") };
      } else {
        P.hint = { ok: false, text: reasonOf(message.answer) };
      }
      announce(P.hint.text);
      return true;
    }
    case "random":
      P.placed = message.layout;
      P.selected = null;
      P.hint = { ok: true, text: t("random_done") };
      announce(P.hint.text);
      return true;
    case "select":
      P.selected = message.index;
      if (message.hint !== undefined) P.hint = message.hint;
      return true;
    case "dock_turn":
      P.dockRot.set(message.index, message.rot);
      return true;
    case "clear":
      P.placed = new Map();
      P.selected = null;
      P.hint = null;
      return true;
    case "sending":
      P.sending = message.sending;
      return false;
    case "drag_start":
      P.drag = message.drag;
      P.inHand = null;
      return false;
    case "drag_move": {
      const drag = P.drag;
      drag.lastX = message.x;
      drag.lastY = message.y;
      if (drag.moved || !message.moved) return false;
      drag.moved = true;
      // Picking a placed ship up takes it off the board while it moves.
      if (!drag.previous) return false;
      P.placed.delete(drag.index);
      return true;
    }
    case "drag_aim":
      P.drag.at = message.at;
      return false;
    case "drag_turn":
      Object.assign(P.drag, { rot: message.rot, grab: message.grab, at: null });
      return false;
    case "drag_end":
      P.drag = null;
      P.previewSerial += 1;
      return false;
    case "dock_rot_kept":
      P.dockRot.set(message.index, message.rot);
      return false;
    case "dropped_outside":
      // Dropped beside the board: the ship goes back to the dock.
      P.placed.delete(message.index);
      P.selected = null;
      P.hint = message.previous ? { ok: true, text: t("back_to_dock") } : null;
      return true;
    case "put_back":
      if (message.previous) P.placed.set(message.index, message.previous);
      return true;
    case "carry_start": {
      const current = P.placed.get(message.index);
      P.inHand = null;
      P.carry = {
        index: message.index,
        rot: current ? current.rot : P.dockRot.get(message.index) || 0,
        at: current ? [...current.at] : message.origin,
        previous: current || null,
      };
      P.placed.delete(message.index);
      P.hint = { ok: true, text: t("carry_help") };
      announce(t("carry_help"));
      return true;
    }
    case "carry": {
      // Moved or turned (the ship in hand is drawn in place), set down (null), or taken up again.
      P.carry = message.carry && { ...P.carry, ...message.carry };
      return false;
    }
    case "carry_cancel":
      if (P.carry?.previous) P.placed.set(P.carry.index, P.carry.previous);
      P.carry = null;
      return true;
    default:
      return false;
  }
}

function holding() {
  return Boolean(P.drag?.moved || P.carry);
}

function fleet() {
  const r = rules();
  if (r.fleet.length) {
    return r.fleet.map((typeIndex, index) => {
      const type = r.catalogue[typeIndex];
      return { index, id: type.id, cells: type.shape.cells };
    });
  }
  // Space: the fleet this seat bought, largest ships first.
  const bought = S.view?.seats?.[mySeat()]?.fleet || {};
  const list = [];
  for (const [id, n] of Object.entries(bought)) {
    const type = r.catalogue.find((c) => c.id === id);
    if (!type) continue;
    for (let k = 0; k < n; k += 1) list.push(type);
  }
  list.sort((a, b) => b.shape.cells.length - a.shape.cells.length || a.id.localeCompare(b.id));
  return list.map((type, index) => ({ index, id: type.id, cells: type.shape.cells }));
}

function cellsOf(ship, at, rot) {
  return rotatedCells(ship.cells, rot).map(([x, y]) => [at[0] + x, at[1] + y]);
}

function layoutWithout(index) {
  return [...P.placed.entries()].filter(([i]) => i !== index).map(([, p]) => ({ type: p.type, at: p.at, rot: p.rot }));
}

/** Asks the server about a layout, remembering answers so a drag does not repeat questions. */
async function check(layout) {
  const key = JSON.stringify(layout);
  if (P.answers.has(key)) return P.answers.get(key);
  const answer = await getLink().checkLayout(layout);
  if (answer) change("answer", { key, answer });
  return answer;
}

function reasonOf(answer) {
  if (!answer) return t("checking");
  if (answer.ok) return t("place_ok");
  return errorText(answer.error?.code, answer.error?.message);
}

// ------------------------------------------------------------ preview on the board

function boardGrid() {
  return document.querySelector(".placement-board .grid");
}

/** Lights the cells a ship would cover and asks the server whether it may lie there. */
async function preview(index, at, rot) {
  const ship = fleet()[index];
  const cells = cellsOf(ship, at, rot);
  change("preview_asked");
  const serial = P.previewSerial;
  paint(cells, "pv-wait", t("checking"));
  const layout = [...layoutWithout(index), { type: ship.id, at, rot }];
  const answer = await check(layout);
  if (serial !== P.previewSerial) return answer;
  paint(cells, answer?.ok ? "pv-ok" : "pv-bad", reasonOf(answer));
  tell(`${label(at)} · ${reasonOf(answer)}`, `place-hint ${answer?.ok ? "ok" : "bad"}`);
  return answer;
}

/** The hint under the board about the ship in hand. */
function tell(text, className) {
  change("in_hand", { shown: { text, className } });
  const info = document.getElementById("place-hint");
  if (info) {
    info.textContent = text;
    info.className = className;
  }
}

/** Lights the cells of the ship in hand on the board on the page (and keeps them for a redraw). */
function paint(cells, cls, title) {
  change("in_hand", { shown: { cells, cls, title } });
  const grid = boardGrid();
  if (grid) light(grid, cells, cls, title);
}

function light(grid, cells, cls, title) {
  for (const el of grid.querySelectorAll(".pv")) {
    el.classList.remove("pv", "pv-ok", "pv-bad", "pv-wait");
    el.removeAttribute("title");
  }
  for (const [c, r] of cells) {
    const el = grid.querySelector(`[data-col="${c}"][data-row="${r}"]`);
    if (!el) continue;
    el.classList.add("pv", cls);
    el.title = title;
  }
}

// ------------------------------------------------------------ changing the layout

async function tryPlace(index, at, rot, previous) {
  const ship = fleet()[index];
  const answer = await check([...layoutWithout(index), { type: ship.id, at, rot }]);
  change("placed", { index, ship: ship.id, at, rot, previous, answer });
  return answer?.ok;
}

async function rotatePlaced(index) {
  const current = P.placed.get(index);
  if (!current) return;
  const ship = fleet()[index];
  // A line of one cell looks the same in every rotation.
  if (ship.cells.length === 1) return;
  for (let step = 1; step < 4; step += 1) {
    const rot = (current.rot + step) % 4;
    const sameShape = JSON.stringify(rotatedCells(ship.cells, rot)) === JSON.stringify(rotatedCells(ship.cells, current.rot));
    if (sameShape) continue;
    const answer = await check([...layoutWithout(index), { type: ship.id, at: current.at, rot }]);
    change("rotated", { index, rot, answer });
    return;
  }
}

async function randomRest() {
  const fixed = [...P.placed.values()].map((p) => ({ type: p.type, at: p.at, rot: p.rot }));
  const ships = await getLink().randomLayout(fixed);
  if (!ships) {
    toast(t("random_failed"), "error");
    return;
  }
  // Keep fixed ships on their indices, then give each new ship a free index of its type.
  const next = new Map();
  const free = fleet().map((s) => s.index);
  const remaining = [...ships];
  for (const [index, p] of P.placed) {
    const k = remaining.findIndex((s) => s.type === p.type && s.at[0] === p.at[0] && s.at[1] === p.at[1] && s.rot === p.rot);
    if (k >= 0) {
      next.set(index, remaining.splice(k, 1)[0]);
      free.splice(free.indexOf(index), 1);
    }
  }
  for (const ship of remaining) {
    const k = free.findIndex((i) => fleet()[i].id === ship.type);
    if (k < 0) continue;
    next.set(free[k], { type: ship.type, at: ship.at, rot: ship.rot });
    free.splice(k, 1);
  }
  change("random", { layout: next });
}

function sendReady() {
  if (P.placed.size !== fleet().length || P.sending) return;
  change("sending", { sending: true });
  const ships = [...P.placed.values()].map((p) => ({ type: p.type, at: p.at, rot: p.rot }));
  send({ type: "command", command: { cmd: "place", ships } });
  setTimeout(() => change("sending", { sending: false }), 1500);
}

function rotateAction() {
  if (P.drag) {
    rotateDrag();
  } else if (P.carry) {
    change("carry", { carry: { rot: (P.carry.rot + 1) % 4 } });
    preview(P.carry.index, P.carry.at, P.carry.rot);
  } else if (P.selected !== null && P.placed.has(P.selected)) {
    rotatePlaced(P.selected);
  } else {
    // Nothing picked: the next ship in the dock will come out turned.
    const next = fleet().find((s) => !P.placed.has(s.index));
    if (next) change("dock_turn", { index: next.index, rot: ((P.dockRot.get(next.index) || 0) + 1) % 4 });
  }
}

// ------------------------------------------------------------ pointer dragging

function cellUnder(x, y) {
  const el = document.elementFromPoint(x, y);
  const cell = el?.closest?.(".placement-board .cell");
  return cell ? [Number(cell.dataset.col), Number(cell.dataset.row)] : null;
}

function cellSizePx() {
  const cell = document.querySelector(".placement-board .cell");
  return cell ? cell.getBoundingClientRect().width : 32;
}

function startDrag(event, index, grab, fromBoard) {
  const ship = fleet()[index];
  const drag = {
    index,
    rot: fromBoard ? P.placed.get(index).rot : P.dockRot.get(index) || 0,
    grab, // which cell of the (rotated) shape is under the pointer
    previous: fromBoard ? P.placed.get(index) : null,
    startX: event.clientX,
    startY: event.clientY,
    moved: false,
    at: null,
    pointerId: event.pointerId,
    longPress: null,
    ghost: null,
    ship,
  };
  if (event.pointerType === "touch" && fromBoard) {
    drag.longPress = setTimeout(() => {
      if (P.drag === drag && !drag.moved) {
        endDragQuietly();
        change("select", { index });
        rotatePlaced(index);
      }
    }, LONG_PRESS_MS);
  }
  change("drag_start", { drag });
  window.addEventListener("pointermove", onDragMove);
  window.addEventListener("pointerup", onDragEnd);
  window.addEventListener("pointercancel", onDragCancel);
}

function makeGhost() {
  const drag = P.drag;
  const size = cellSizePx();
  const cells = rotatedCells(drag.ship.cells, drag.rot);
  const ghost = buildShip(cells, size);
  ghost.classList.add("drag-ghost");
  document.body.append(ghost);
  drag.ghost = ghost;
  positionGhost(drag.lastX ?? drag.startX, drag.lastY ?? drag.startY);
}

function positionGhost(x, y) {
  const drag = P.drag;
  if (!drag?.ghost) return;
  const size = cellSizePx();
  drag.ghost.style.left = `${x - (drag.grab[0] + 0.5) * size}px`;
  drag.ghost.style.top = `${y - (drag.grab[1] + 0.5) * size}px`;
}

function onDragMove(event) {
  const drag = P.drag;
  if (!drag || event.pointerId !== drag.pointerId) return;
  const wasMoving = drag.moved;
  const moved = wasMoving || Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) >= 5;
  change("drag_move", { x: event.clientX, y: event.clientY, moved });
  if (!moved) return;
  if (!wasMoving) {
    clearTimeout(drag.longPress);
    document.body.classList.add("dragging");
    makeGhost();
  }
  positionGhost(event.clientX, event.clientY);
  updateDragTarget();
}

function updateDragTarget() {
  const drag = P.drag;
  const under = cellUnder(drag.lastX, drag.lastY);
  if (!under) {
    change("drag_aim", { at: null });
    paint([], "", "");
    tell(drag.previous ? t("drop_outside_returns") : t("drag_onto_board"), "place-hint");
    return;
  }
  const at = [under[0] - drag.grab[0], under[1] - drag.grab[1]];
  if (drag.at && drag.at[0] === at[0] && drag.at[1] === at[1]) return;
  change("drag_aim", { at });
  preview(drag.index, at, drag.rot);
}

function rotateDrag() {
  const drag = P.drag;
  const cells = rotatedCells(drag.ship.cells, drag.rot);
  const height = Math.max(...cells.map(([, y]) => y)) + 1;
  // The grabbed part turns with the ship so it stays under the pointer.
  const turnedGrab = [height - 1 - drag.grab[1], drag.grab[0]];
  const rot = (drag.rot + 1) % 4;
  const turned = rotatedCells(drag.ship.cells, rot);
  const width = Math.max(...turned.map(([x]) => x)) + 1;
  const newHeight = Math.max(...turned.map(([, y]) => y)) + 1;
  change("drag_turn", { rot, grab: [Math.min(turnedGrab[0], width - 1), Math.min(turnedGrab[1], newHeight - 1)] });
  if (drag.ghost) {
    drag.ghost.remove();
    makeGhost();
  }
  if (drag.moved) updateDragTarget();
}

async function onDragEnd(event) {
  const current = P.drag;
  if (!current || event.pointerId !== current.pointerId) return;
  endDragQuietly();
  if (!current.moved) {
    // A click: select a placed ship (for ↻ Rotate and R) or a docked one.
    const text = current.previous ? t("selected_ship", { ship: shipTypeName(current.ship.id) }) : t("drag_onto_board");
    change("select", { index: current.index, hint: { ok: true, text } });
    return;
  }
  if (!current.at) {
    change("dropped_outside", { index: current.index, previous: current.previous });
    return;
  }
  if (current.ship.cells.length > 0) change("dock_rot_kept", { index: current.index, rot: current.rot });
  await tryPlace(current.index, current.at, current.rot, current.previous);
}

function onDragCancel(event) {
  const current = P.drag;
  if (!current || event.pointerId !== current.pointerId) return;
  endDragQuietly();
  change("put_back", { index: current.index, previous: current.previous });
}

function endDragQuietly() {
  const drag = P.drag;
  if (!drag) return;
  clearTimeout(drag.longPress);
  drag.ghost?.remove();
  document.body.classList.remove("dragging");
  window.removeEventListener("pointermove", onDragMove);
  window.removeEventListener("pointerup", onDragEnd);
  window.removeEventListener("pointercancel", onDragCancel);
  change("drag_end");
}

// ------------------------------------------------------------ keyboard carrying

/** Where a ship picked up from the dock starts: the own block's corner in the shared sea. */
function ownOrigin() {
  const block = (S.view.blocks || []).find((b) => b.owner === mySeat());
  return block ? [block.origin[0], block.origin[1]] : [0, 0];
}

function startCarry(index) {
  change("carry_start", { index, origin: ownOrigin() });
  preview(P.carry.index, P.carry.at, P.carry.rot);
  document.querySelector(".placement-board .grid")?.focus();
}

function onCarryKey(event) {
  const carry = P.carry;
  if (!carry) return false;
  const size = seaSize(ownBoardIndex());
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (moves[event.key]) {
    event.preventDefault();
    const at = [
      Math.max(0, Math.min(size.cols - 1, carry.at[0] + moves[event.key][0])),
      Math.max(0, Math.min(size.rows - 1, carry.at[1] + moves[event.key][1])),
    ];
    change("carry", { carry: { at } });
    preview(carry.index, at, carry.rot);
    return true;
  }
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    change("carry", { carry: null });
    tryPlace(carry.index, carry.at, carry.rot, carry.previous).then((ok) => {
      if (!ok) {
        // Refused: the ship stays in hand where it was, to be moved on.
        change("carry", { carry });
        preview(carry.index, carry.at, carry.rot);
      }
    });
    return true;
  }
  if (event.key === "Escape") {
    event.preventDefault();
    change("carry_cancel");
    return true;
  }
  return false;
}

document.addEventListener("keydown", (event) => {
  if (!S.view || S.view.phase !== "placement" || !S.room?.started) return;
  const tag = event.target?.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  if (onCarryKey(event)) return;
  if (event.key === "r" || event.key === "R") {
    event.preventDefault();
    rotateAction();
  }
});

// ------------------------------------------------------------ the screen

export function renderPlacement() {
  const view = S.view;
  const me = mySeat();
  if (me === null) {
    return h("main", { class: "game placement" }, screenHeading("screen_placement"), banner(t("watch_placement"), false));
  }
  const ready = view.seats[me].ready;
  const others = view.seats.filter((s) => s.seat !== me && !s.ready);
  if (ready) {
    const own = ownBoardIndex();
    const board = buildBoard({
      size: seaSize(own),
      axis: view.letter_axis,
      markAt: (c, r) => view.boards[own].rows[r][c],
      hull: hullMap(view.ships.filter((s) => isShared() || s.owner === me)),
      id: String(own),
      caption: t("your_waters"),
    });
    board.classList.add("placement-board", "locked");
    decorateBlocks(board);
    return h(
      "main",
      { class: "game placement" },
      screenHeading("screen_placement"),
      banner(others.length ? t("waiting_ready", { name: others.map((s) => S.room.seats[s.seat]?.nickname || t("opponent")).join(", ") }) : t("battle_soon"), false),
      h("div", { class: "placement-layout" }, h("section", { class: "board-card own" }, h("h2", {}, "🛡 ", t("your_waters")), (isShared() ? boardScroller(board, "placement") : board), h("p", { class: "ready-note" }, "✓ ", t("fleet_ready")))),
    );
  }

  const ships = fleet();
  // What the board shows: placed ships as hulls.
  const shipAt = new Map();
  for (const [index, p] of P.placed) {
    for (const [c, r] of cellsOf(ships[index], p.at, p.rot)) shipAt.set(`${c},${r}`, index);
  }
  const hull = hullMap([...P.placed.entries()].map(([index, p]) => ({ cells: cellsOf(ships[index], p.at, p.rot) })));
  const own = ownBoardIndex();
  const sharedRows = isShared() ? view.boards[own].rows : null;
  const board = buildBoard({
    size: seaSize(own),
    axis: view.letter_axis,
    // In the shared sea the team-mates' ships stay visible around the own block.
    markAt: (c, r) => (shipAt.has(`${c},${r}`) ? "*" : sharedRows && sharedRows[r][c] === "*" ? "*" : "~"),
    hull,
    id: "placement",
    interactive: true,
    caption: t("your_waters"),
  });
  board.classList.add("placement-board");
  decorateBlocks(board);
  const grid = board.querySelector(".grid");
  grid.tabIndex = -1;
  for (const el of grid.querySelectorAll(".cell")) {
    const index = shipAt.get(`${el.dataset.col},${el.dataset.row}`);
    if (index !== undefined) {
      el.dataset.ship = String(index);
      el.tabIndex = 0;
      el.setAttribute("aria-label", `${el.dataset.label}, ${shipTypeName(ships[index].id)}`);
      if (index === P.selected) el.classList.add("selected");
    }
  }
  const firstCell = grid.querySelector(".cell");
  if (firstCell && !grid.querySelector('.cell[tabindex="0"]')) firstCell.tabIndex = 0;
  // A redraw in the middle of a drag keeps the ship's preview.
  const held = holding() && P.inHand;
  if (held?.cells) light(grid, held.cells, held.cls, held.title);
  on(grid, "contextmenu", (e) => {
    e.preventDefault();
    const cell = e.target.closest(".cell");
    if (P.drag) return;
    const index = cell?.dataset.ship;
    if (index !== undefined) {
      change("select", { index: Number(index) });
      rotatePlaced(Number(index));
    }
  });
  on(grid, "pointerdown", (e) => {
    if (e.button !== 0) return;
    const cell = e.target.closest(".cell");
    const index = cell?.dataset.ship;
    if (index === undefined) return;
    e.preventDefault();
    const p = P.placed.get(Number(index));
    startDrag(e, Number(index), [Number(cell.dataset.col) - p.at[0], Number(cell.dataset.row) - p.at[1]], true);
  });
  on(grid, "keydown", (e) => {
    const cell = e.target.closest(".cell");
    if (P.carry || !cell) return;
    if ((e.key === "Enter" || e.key === " ") && cell.dataset.ship !== undefined) {
      e.preventDefault();
      startCarry(Number(cell.dataset.ship));
    }
  });

  // Big fleets get a smaller dock so the whole fleet stays in view.
  const size = ships.length > 10 ? 22 : 28;
  const dock = h(
    "div",
    { class: "dock", "aria-label": t("dock") },
    ships.map((ship) => {
      const isPlaced = P.placed.has(ship.index);
      const rot = P.dockRot.get(ship.index) || 0;
      const shape = buildShip(rotatedCells(ship.cells, rot), size);
      const item = h(
        "button",
        {
          type: "button",
          class: `dock-ship ${isPlaced ? "placed" : ""} ${P.selected === ship.index ? "selected" : ""}`,
          dataset: { ship: String(ship.index), type: ship.id },
          disabled: isPlaced,
          "aria-label": `${shipTypeName(ship.id)} (${ship.cells.length})`,
          onclick: (e) => {
            // A keyboard "click" (Enter/Space) picks the ship up for the arrows.
            if (e.detail === 0) startCarry(ship.index);
          },
          oncontextmenu: (e) => {
            e.preventDefault();
            change("dock_turn", { index: ship.index, rot: (rot + 1) % 4 });
          },
          onpointerdown: (e) => {
            if (e.button !== 0 || isPlaced) return;
            e.preventDefault();
            // The shape on the page (a redraw keeps the live one, not this render's).
            const box = e.currentTarget.querySelector(".ship-shape").getBoundingClientRect();
            const gx = Math.max(0, Math.floor((e.clientX - box.left) / size));
            const gy = Math.max(0, Math.floor((e.clientY - box.top) / size));
            const cells = rotatedCells(ship.cells, rot);
            const w = Math.max(...cells.map(([x]) => x)) + 1;
            const hgt = Math.max(...cells.map(([, y]) => y)) + 1;
            startDrag(e, ship.index, [Math.min(gx, w - 1), Math.min(gy, hgt - 1)], false);
          },
        },
        shape,
        h("span", { class: "dock-name" }, shipTypeName(ship.id)),
      );
      return item;
    }),
  );
  const complete = P.placed.size === ships.length;
  const controls = h(
    "div",
    { class: "place-controls" },
    h("button", { class: "button", type: "button", id: "rotate", onclick: rotateAction, title: t("rotate_help") }, `↻ ${t("rotate")}`),
    h("button", { class: "button", type: "button", id: "random", onclick: randomRest }, `🎲 ${t("random")}`),
    h(
      "button",
      {
        class: "button ghost",
        type: "button",
        id: "clear",
        disabled: P.placed.size === 0,
        onclick: () => change("clear"),
      },
      `↺ ${t("clear")}`,
    ),
    h("button", { class: "button primary big", type: "button", id: "ready", disabled: !complete, onclick: sendReady }, complete ? `⚓ ${t("ready")}` : plural("ready_left", ships.length - P.placed.size)),
  );
  return h(
    "main",
    { class: "game placement" },
    screenHeading("screen_placement"),
    banner(t("place_fleet"), true),
    h(
      "div",
      { class: "placement-layout" },
      h(
        "section",
        { class: "card dock-card" },
        h("h2", {}, t("your_fleet"), h("span", { class: "count" }, ` ${P.placed.size}/${ships.length}`)),
        h("p", { class: "muted small" }, t("place_help")),
        dock,
        controls,
        h(
          "ul",
          { class: "ready-list" },
          view.seats
            .filter((seat) => seat.seat !== me)
            .map((seat) => h("li", { class: seat.ready ? "is-ready" : "" }, seat.ready ? "✓ " : "⏳ ", t(seat.ready ? "seat_ready" : "seat_placing", { name: nameOf(seat.seat) }))),
        ),
      ),
      h(
        "section",
        { class: "board-card own" },
        h("h2", {}, "🛡 ", t("your_waters")),
        (isShared() ? boardScroller(board, "placement") : board),
        held?.text
          ? h("p", { id: "place-hint", class: held.className, role: "status" }, held.text)
          : h("p", { id: "place-hint", class: `place-hint ${P.hint ? (P.hint.ok ? "ok" : "bad") : ""}`, role: "status" }, P.hint ? P.hint.text : t("place_help_short")),
      ),
    ),
  );
}
