// The placement screen (docs/rules.md ): a dock with the fleet drawn to scale,
// drag and drop onto the grid, rotation by right-click, the "↻ Rotate" button,
// the R key and a long-press, "🎲 Random" for the rest, and Ready.
//
// Whether a position is legal is always asked of the server (check_layout);
// the client only draws what the answer says.

import { banner, screenHeading } from "./banner.js";
import { render } from "./hooks.js";
import { getLink, send } from "./link.js";
import { announce, toast } from "./notify.js";
import { S, label, mySeat, rules, seatName as nameOf, shipTypeName } from "./state.js";
import { decorateBlocks, isShared, ownBoardIndex, seaSize } from "./view.js";
import { t, plural, errorText } from "./i18n.js";
import { buildBoard, buildShip, rotatedCells, hullMap, boardScroller } from "./board.js";
import { h } from "./dom.js";

const LONG_PRESS_MS = 550;

/** Local, unsent layout: fleet index → { type, at, rot }. */
let placed = new Map();
let selected = null;
let drag = null;
let carry = null; // keyboard carrying: { index, rot, at }
let hint = null; // { ok, text }
let sending = false;
const answers = new Map();
/**
 * What the board shows of the ship in hand (dragged, or carried with the
 * keyboard): the lit cells and the hint under the board. A redraw while the
 * ship is held (a frame from the server: someone got ready) draws them again,
 * so the preview does not vanish under the pointer.
 */
let inHand = null;

export function resetPlacement() {
  placed = new Map();
  selected = null;
  drag = null;
  carry = null;
  hint = null;
  sending = false;
  answers.clear();
  inHand = null;
}

function holding() {
  return Boolean(drag?.moved || carry);
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
  return [...placed.entries()].filter(([i]) => i !== index).map(([, p]) => ({ type: p.type, at: p.at, rot: p.rot }));
}

/** Asks the server about a layout, remembering answers so a drag does not repeat questions. */
async function check(layout) {
  const key = JSON.stringify(layout);
  if (answers.has(key)) return answers.get(key);
  const answer = await getLink().checkLayout(layout);
  if (answer) answers.set(key, answer);
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

function clearPreview() {
  const grid = boardGrid();
  if (!grid) return;
  for (const el of grid.querySelectorAll(".pv")) {
    el.classList.remove("pv", "pv-ok", "pv-bad", "pv-wait");
    el.removeAttribute("title");
  }
  const info = document.getElementById("place-hint");
  if (info && hint) {
    info.textContent = hint.text;
    info.className = `place-hint ${hint.ok ? "ok" : "bad"}`;
  }
}

let previewSerial = 0;

/** Lights the cells a ship would cover and asks the server whether it may lie there. */
async function preview(index, at, rot) {
  const ship = fleet()[index];
  const cells = cellsOf(ship, at, rot);
  const serial = ++previewSerial;
  paint(cells, "pv-wait", t("checking"));
  const layout = [...layoutWithout(index), { type: ship.id, at, rot }];
  const answer = await check(layout);
  if (serial !== previewSerial) return answer;
  paint(cells, answer?.ok ? "pv-ok" : "pv-bad", reasonOf(answer));
  tell(`${label(at)} · ${reasonOf(answer)}`, `place-hint ${answer?.ok ? "ok" : "bad"}`);
  return answer;
}

/** The hint under the board about the ship in hand. */
function tell(text, className) {
  inHand = { ...inHand, text, className };
  const info = document.getElementById("place-hint");
  if (info) {
    info.textContent = text;
    info.className = className;
  }
}

function paint(cells, cls, title, grid = boardGrid()) {
  inHand = { ...inHand, cells, cls, title };
  if (!grid) return;
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
  if (answer?.ok) {
    placed.set(index, { type: ship.id, at, rot });
    selected = index;
    hint = { ok: true, text: t("placed_ship", { ship: shipTypeName(ship.id), cell: label(at) }) };
    announce(hint.text);
  } else {
    if (previous) placed.set(index, previous);
    else placed.delete(index);
    hint = { ok: false, text: reasonOf(answer) };
    announce(hint.text);
  }
  render();
  return answer?.ok;
}

async function rotatePlaced(index) {
  const current = placed.get(index);
  if (!current) return;
  const ship = fleet()[index];
  // A line of one cell looks the same in every rotation.
  if (ship.cells.length === 1) return;
  for (let step = 1; step < 4; step += 1) {
    const rot = (current.rot + step) % 4;
    const sameShape = JSON.stringify(rotatedCells(ship.cells, rot)) === JSON.stringify(rotatedCells(ship.cells, current.rot));
    if (sameShape) continue;
    const answer = await check([...layoutWithout(index), { type: ship.id, at: current.at, rot }]);
    if (answer?.ok) {
      placed.set(index, { ...current, rot });
      hint = { ok: true, text: t("rotated") };
    } else {
      hint = { ok: false, text: reasonOf(answer) };
    }
    break;
  }
  announce(hint.text);
  render();
}

async function randomRest() {
  const fixed = [...placed.values()].map((p) => ({ type: p.type, at: p.at, rot: p.rot }));
  const ships = await getLink().randomLayout(fixed);
  if (!ships) {
    toast(t("random_failed"), "error");
    return;
  }
  // Keep fixed ships on their indices, then give each new ship a free index of its type.
  const next = new Map();
  const free = fleet().map((s) => s.index);
  const remaining = [...ships];
  for (const [index, p] of placed) {
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
  placed = next;
  selected = null;
  hint = { ok: true, text: t("random_done") };
  announce(hint.text);
  render();
}

function sendReady() {
  if (placed.size !== fleet().length || sending) return;
  sending = true;
  const ships = [...placed.values()].map((p) => ({ type: p.type, at: p.at, rot: p.rot }));
  send({ type: "command", command: { cmd: "place", ships } });
  setTimeout(() => {
    sending = false;
  }, 1500);
}

function rotateAction() {
  if (drag) {
    rotateDrag();
  } else if (carry) {
    carry.rot = (carry.rot + 1) % 4;
    preview(carry.index, carry.at, carry.rot);
  } else if (selected !== null && placed.has(selected)) {
    rotatePlaced(selected);
  } else {
    // Nothing picked: the next ship in the dock will come out turned.
    const next = fleet().find((s) => !placed.has(s.index));
    if (next) {
      dockRot.set(next.index, ((dockRot.get(next.index) || 0) + 1) % 4);
      render();
    }
  }
}

/** Rotation a docked ship will have when dragged out. */
const dockRot = new Map();

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
  inHand = null;
  const rot = fromBoard ? placed.get(index).rot : dockRot.get(index) || 0;
  drag = {
    index,
    rot,
    grab, // which cell of the (rotated) shape is under the pointer
    previous: fromBoard ? placed.get(index) : null,
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
      if (drag && !drag.moved) {
        const index = drag.index;
        endDragQuietly();
        selected = index;
        rotatePlaced(index);
      }
    }, LONG_PRESS_MS);
  }
  window.addEventListener("pointermove", onDragMove);
  window.addEventListener("pointerup", onDragEnd);
  window.addEventListener("pointercancel", onDragCancel);
}

function makeGhost() {
  const size = cellSizePx();
  const cells = rotatedCells(drag.ship.cells, drag.rot);
  const ghost = buildShip(cells, size);
  ghost.classList.add("drag-ghost");
  document.body.append(ghost);
  drag.ghost = ghost;
  positionGhost(drag.lastX ?? drag.startX, drag.lastY ?? drag.startY);
}

function positionGhost(x, y) {
  if (!drag?.ghost) return;
  const size = cellSizePx();
  drag.ghost.style.left = `${x - (drag.grab[0] + 0.5) * size}px`;
  drag.ghost.style.top = `${y - (drag.grab[1] + 0.5) * size}px`;
}

function onDragMove(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  drag.lastX = event.clientX;
  drag.lastY = event.clientY;
  if (!drag.moved && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) < 5) return;
  if (!drag.moved) {
    drag.moved = true;
    clearTimeout(drag.longPress);
    if (drag.previous) {
      // Picking a placed ship up takes it off the board while it moves.
      placed.delete(drag.index);
      render();
    }
    document.body.classList.add("dragging");
    makeGhost();
  }
  positionGhost(event.clientX, event.clientY);
  updateDragTarget();
}

function updateDragTarget() {
  const under = cellUnder(drag.lastX, drag.lastY);
  if (!under) {
    drag.at = null;
    paint([], "", "");
    tell(drag.previous ? t("drop_outside_returns") : t("drag_onto_board"), "place-hint");
    return;
  }
  const at = [under[0] - drag.grab[0], under[1] - drag.grab[1]];
  if (drag.at && drag.at[0] === at[0] && drag.at[1] === at[1]) return;
  drag.at = at;
  preview(drag.index, at, drag.rot);
}

function rotateDrag() {
  const cells = rotatedCells(drag.ship.cells, drag.rot);
  const height = Math.max(...cells.map(([, y]) => y)) + 1;
  // The grabbed part turns with the ship so it stays under the pointer.
  drag.grab = [height - 1 - drag.grab[1], drag.grab[0]];
  drag.rot = (drag.rot + 1) % 4;
  const turned = rotatedCells(drag.ship.cells, drag.rot);
  const width = Math.max(...turned.map(([x]) => x)) + 1;
  const newHeight = Math.max(...turned.map(([, y]) => y)) + 1;
  drag.grab = [Math.min(drag.grab[0], width - 1), Math.min(drag.grab[1], newHeight - 1)];
  if (drag.ghost) {
    drag.ghost.remove();
    makeGhost();
  }
  drag.at = null;
  if (drag.moved) updateDragTarget();
}

async function onDragEnd(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const current = drag;
  endDragQuietly();
  if (!current.moved) {
    // A click: select a placed ship (for ↻ Rotate and R) or a docked one.
    selected = current.index;
    if (current.previous) {
      hint = { ok: true, text: t("selected_ship", { ship: shipTypeName(current.ship.id) }) };
    } else {
      hint = { ok: true, text: t("drag_onto_board") };
    }
    render();
    return;
  }
  if (!current.at) {
    // Dropped beside the board: the ship goes back to the dock.
    placed.delete(current.index);
    selected = null;
    hint = current.previous ? { ok: true, text: t("back_to_dock") } : null;
    render();
    return;
  }
  if (current.ship.cells.length > 0) {
    dockRot.set(current.index, current.rot);
  }
  await tryPlace(current.index, current.at, current.rot, current.previous);
}

function onDragCancel(event) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const current = drag;
  endDragQuietly();
  if (current.previous) placed.set(current.index, current.previous);
  render();
}

function endDragQuietly() {
  if (!drag) return;
  clearTimeout(drag.longPress);
  drag.ghost?.remove();
  document.body.classList.remove("dragging");
  window.removeEventListener("pointermove", onDragMove);
  window.removeEventListener("pointerup", onDragEnd);
  window.removeEventListener("pointercancel", onDragCancel);
  drag = null;
  previewSerial += 1;
}

// ------------------------------------------------------------ keyboard carrying

/** Where a ship picked up from the dock starts: the own block's corner in the shared sea. */
function ownOrigin() {
  const block = (S.view.blocks || []).find((b) => b.owner === mySeat());
  return block ? [block.origin[0], block.origin[1]] : [0, 0];
}

function startCarry(index) {
  const current = placed.get(index);
  inHand = null;
  carry = {
    index,
    rot: current ? current.rot : dockRot.get(index) || 0,
    at: current ? [...current.at] : ownOrigin(),
    previous: current || null,
  };
  placed.delete(index);
  hint = { ok: true, text: t("carry_help") };
  announce(t("carry_help"));
  render();
  preview(carry.index, carry.at, carry.rot);
  document.querySelector(".placement-board .grid")?.focus();
}

function onCarryKey(event) {
  if (!carry) return false;
  const size = seaSize(ownBoardIndex());
  const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (moves[event.key]) {
    event.preventDefault();
    carry.at = [
      Math.max(0, Math.min(size.cols - 1, carry.at[0] + moves[event.key][0])),
      Math.max(0, Math.min(size.rows - 1, carry.at[1] + moves[event.key][1])),
    ];
    preview(carry.index, carry.at, carry.rot);
    return true;
  }
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const current = carry;
    carry = null;
    tryPlace(current.index, current.at, current.rot, current.previous).then((ok) => {
      if (!ok) {
        carry = current;
        preview(carry.index, carry.at, carry.rot);
      }
    });
    return true;
  }
  if (event.key === "Escape") {
    event.preventDefault();
    if (carry.previous) placed.set(carry.index, carry.previous);
    carry = null;
    render();
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
  for (const [index, p] of placed) {
    for (const [c, r] of cellsOf(ships[index], p.at, p.rot)) shipAt.set(`${c},${r}`, index);
  }
  const hull = hullMap([...placed.entries()].map(([index, p]) => ({ cells: cellsOf(ships[index], p.at, p.rot) })));
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
      if (index === selected) el.classList.add("selected");
    }
  }
  const firstCell = grid.querySelector(".cell");
  if (firstCell && !grid.querySelector('.cell[tabindex="0"]')) firstCell.tabIndex = 0;
  // A redraw in the middle of a drag keeps the ship's preview.
  const held = holding() && inHand;
  if (held?.cells) paint(held.cells, held.cls, held.title, grid);
  grid.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    const cell = e.target.closest(".cell");
    if (drag) return;
    const index = cell?.dataset.ship;
    if (index !== undefined) {
      selected = Number(index);
      rotatePlaced(Number(index));
    }
  });
  grid.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    const cell = e.target.closest(".cell");
    const index = cell?.dataset.ship;
    if (index === undefined) return;
    e.preventDefault();
    const p = placed.get(Number(index));
    startDrag(e, Number(index), [Number(cell.dataset.col) - p.at[0], Number(cell.dataset.row) - p.at[1]], true);
  });
  grid.addEventListener("keydown", (e) => {
    const cell = e.target.closest(".cell");
    if (carry || !cell) return;
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
      const isPlaced = placed.has(ship.index);
      const rot = dockRot.get(ship.index) || 0;
      const shape = buildShip(rotatedCells(ship.cells, rot), size);
      const item = h(
        "button",
        {
          type: "button",
          class: `dock-ship ${isPlaced ? "placed" : ""} ${selected === ship.index ? "selected" : ""}`,
          dataset: { ship: String(ship.index), type: ship.id },
          disabled: isPlaced,
          "aria-label": `${shipTypeName(ship.id)} (${ship.cells.length})`,
          onclick: (e) => {
            // A keyboard "click" (Enter/Space) picks the ship up for the arrows.
            if (e.detail === 0) startCarry(ship.index);
          },
          oncontextmenu: (e) => {
            e.preventDefault();
            dockRot.set(ship.index, (rot + 1) % 4);
            render();
          },
          onpointerdown: (e) => {
            if (e.button !== 0 || isPlaced) return;
            e.preventDefault();
            const box = shape.getBoundingClientRect();
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
  const complete = placed.size === ships.length;
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
        disabled: placed.size === 0,
        onclick: () => {
          placed = new Map();
          selected = null;
          hint = null;
          render();
        },
      },
      `↺ ${t("clear")}`,
    ),
    h("button", { class: "button primary big", type: "button", id: "ready", disabled: !complete, onclick: sendReady }, complete ? `⚓ ${t("ready")}` : plural("ready_left", ships.length - placed.size)),
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
        h("h2", {}, t("your_fleet"), h("span", { class: "count" }, ` ${placed.size}/${ships.length}`)),
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
          : h("p", { id: "place-hint", class: `place-hint ${hint ? (hint.ok ? "ok" : "bad") : ""}`, role: "status" }, hint ? hint.text : t("place_help_short")),
      ),
    ),
  );
}
