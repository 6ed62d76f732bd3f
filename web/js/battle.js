// The battle screen: the turn banner, the boards (the opponents' to fire at,
// the own one), firing, and the side panel with the log, the fleets and the chat.
//
// A person's choices here are messages ({ type: "battle", change, … }) for the
// store's dispatch (state.js); `updateBattle` carries them out when app.js's
// update hands them on. The area under the pointer is drawn in place.

import { plural, t } from "./i18n.js";
import { h, on } from "./dom.js";
import { boardScroller, buildBoard, buildShip, cellLabel, gridKeys, hullMap } from "./board.js";
import { areaOf, armReservePicker, buildAction, specialsBar } from "./abilities.js";
import { banner, screenHeading } from "./banner.js";
import { renderChat } from "./chat.js";
import { render } from "./hooks.js";
import { send } from "./link.js";
import { personButton } from "./moderation.js";
import { announce, toast } from "./notify.js";
import { ratingChip } from "./public.js";
import { actionKey, renderRoundSummary, salvoComplete, salvoCount, salvoKeys, salvoNeed, salvoTotals, submitSalvo, toggleSalvoCell } from "./salvo.js";
import { S, dispatch, label, mySeat, rules, seatName, shipTypeName } from "./state.js";
import { blockIndexAt, blockTitle, boardMark, cellIsTarget, decorateBlocks, isMate, isShared, isSpace, looksTargetable, myTurn, ownBoardIndex, perVolley, seaSize } from "./view.js";

function fleetStatus() {
  const view = S.view;
  const r = rules();
  const blocks = view.seats.map((seat) => {
    const counts = seat.fleet || {};
    const sunk = [...seat.sunk];
    const rows = [];
    const ordered = Object.entries(counts).sort((a, b) => {
      const la = r.catalogue.find((c) => c.id === a[0])?.shape.cells.length || 0;
      const lb = r.catalogue.find((c) => c.id === b[0])?.shape.cells.length || 0;
      return lb - la;
    });
    for (const [id, n] of ordered) {
      const type = r.catalogue.find((c) => c.id === id);
      for (let k = 0; k < n; k += 1) {
        const sunkIndex = sunk.indexOf(id);
        const isSunk = sunkIndex >= 0;
        if (isSunk) sunk.splice(sunkIndex, 1);
        rows.push(
          h(
            "li",
            { class: isSunk ? "sunk" : "" , title: shipTypeName(id)},
            type ? buildShip(type.shape.cells, 10) : null,
            h("span", {}, shipTypeName(id)),
            isSunk ? h("span", { class: "sr-only" }, ` — ${t("mark.sunk")}`) : null,
          ),
        );
      }
    }
    return h(
      "div",
      { class: `fleet-block ${seat.seat === mySeat() ? "mine" : ""} ${seat.alive ? "" : "out"}` },
      h("h3", {}, h("span", {}, seatName(seat.seat), " ", ratingChip(S.room.seats.find((s) => s.seat === seat.seat) || {}), personButton(seat.seat, "fleet")), h("span", { class: "afloat" }, t("afloat_n", { n: seat.ships_afloat, total: seat.ships_total }))),
      h("ul", { class: "fleet-list" }, rows),
    );
  });
  return h("div", { class: "fleet-status" }, blocks);
}

export function renderSide() {
  const tabs = ["log", "fleet", "chat"];
  const tabBar = h(
    "div",
    { class: "tabs", role: "tablist" },
    tabs.map((id) =>
      h(
        "button",
        {
          type: "button",
          role: "tab",
          id: `tab-${id}`,
          "aria-selected": String(S.sideTab === id),
          class: S.sideTab === id ? "active" : "",
          onclick: () => change("side_tab", { tab: id }),
        },
        t(`tab_${id}`),
        id === "chat" && S.unreadChat && S.sideTab !== "chat" ? h("span", { class: "unread" }, String(S.unreadChat)) : null,
      ),
    ),
  );
  let body;
  if (S.sideTab === "fleet") body = fleetStatus();
  else if (S.sideTab === "chat") body = renderChat(false);
  else
    body = h(
      "ol",
      { class: "log", "aria-label": t("tab_log") },
      S.log.length ? S.log.map((entryItem) => h("li", { class: `log-${entryItem.kind}` }, entryItem.text)) : h("li", { class: "muted" }, t("log_empty")),
    );
  // The panel scrolls: it takes the focus, so the keyboard can scroll it too.
  return h("aside", { class: "side card" }, tabBar, h("div", { class: "tab-body", role: "tabpanel", tabindex: "0", "aria-labelledby": `tab-${S.sideTab}` }, body));
}

function freshCells(board) {
  const before = S.previousView?.boards?.[board]?.rows;
  const now = S.view.boards[board].rows;
  const fresh = new Set();
  if (!before || S.previousView.phase !== S.view.phase) return fresh;
  for (let r = 0; r < now.length; r += 1) {
    for (let c = 0; c < now[r].length; c += 1) if (before[r]?.[c] !== now[r][c]) fresh.add(`${c},${r}`);
  }
  return fresh;
}

/** A message about the battle, for the store's dispatch (`fields` has no `type` of its own). */
function change(name, fields = {}) {
  dispatch({ ...fields, type: "battle", change: name });
}

/**
 * What a battle message changes in the store; true when the page is to be
 * drawn again (the rest is drawn in place).
 */
export function updateBattle(message) {
  switch (message.change) {
    case "side_tab":
      S.sideTab = message.tab;
      if (message.tab === "chat") S.unreadChat = 0;
      return true;
    case "sea_tab":
      S.tab = message.board;
      return true;
    case "hover":
      S.hover = message.at;
      return false;
    case "cursor":
      S.cursor = message.at;
      return false;
    case "turn_area":
      // R turns a bombard's line or the laser's entry while aiming.
      if (S.special === "bombard") S.bombardAxis = S.bombardAxis === "row" ? "column" : "row";
      else if (S.special === "laser") S.laserEnd = S.laserEnd === "top" ? "bottom" : "top";
      return false;
    case "fire":
      S.cursor = { board: message.board, col: message.col, row: message.row };
      fireAt(message.board, message.col, message.row);
      return false;
    case "volley":
      send({ type: "command", command: { cmd: "volley", cells: S.volley } });
      S.volley = [];
      return false;
    default:
      return false;
  }
}

/** A cell picked on an opponent's waters: a shot, a cell of a volley or salvo, or where an ability goes. */
function fireAt(board, col, row) {
  if (!myTurn()) {
    toast(t("err.not_your_turn"), "error");
    return;
  }
  const mark = boardMark(board, col, row);
  if (S.special) {
    const action = buildAction(S.special, board, col, row);
    S.special = null;
    if (S.view.salvo_round) {
      const key = isShared() ? blockIndexAt(col, row) : board;
      S.salvoAction = action;
      if (rules().salvo === "focus") S.salvo = {};
      else S.salvo[key] = [];
      announce(t("ability_set", { action: t(`special.${action.kind}`), name: isShared() ? blockTitle(key) : seatName(board) }));
      render();
      return;
    }
    send({ type: "command", command: { cmd: "ability", action } });
    render();
    return;
  }
  if (perVolley()) {
    const key = `${col},${row}`;
    const index = S.volley.findIndex(([c, r]) => `${c},${r}` === key);
    if (index >= 0) S.volley.splice(index, 1);
    else if (looksTargetable(mark) && S.volley.length < volleySize()) S.volley.push([col, row]);
    else if (!looksTargetable(mark)) toast(t("err.not_targetable"), "error");
    announce(plural("volley_count", volleySize(), { n: S.volley.length, total: volleySize() }));
    render();
    return;
  }
  if (S.view.salvo_round) {
    toggleSalvoCell(board, col, row);
    return;
  }
  send({ type: "command", command: { cmd: "fire", target: { board, at: [col, row] } } });
}

/** The shots of the hard-rule volley due now, as the engine counts them (R-5.1: fewer only near the end). */
function volleySize() {
  return S.view.legal_targets?.shots_in_turn ?? 0;
}

function renderTargetBoard(board, interactive) {
  const view = S.view;
  const size = seaSize(board.index);
  const known = isShared() ? view.ships : view.ships.filter((s) => s.owner === board.index);
  const element = buildBoard({
    size,
    axis: view.letter_axis,
    markAt: (c, r) => boardMark(board.index, c, r),
    hull: hullMap(known),
    id: String(board.index),
    interactive,
    caption: isShared() ? t("shared_sea") : t("board_of", { name: seatName(board.index) }),
    fresh: freshCells(board.index),
  });
  element.classList.add("target-board");
  if (isShared()) decorateBlocks(element);
  if (interactive && myTurn()) element.classList.add("armed");
  const grid = element.querySelector(".grid");
  const selected = perVolley() ? S.volley : isShared() ? Object.values(S.salvo).flat() : S.salvo[board.index] || [];
  for (const [c, r] of selected) grid.querySelector(`[data-col="${c}"][data-row="${r}"]`)?.classList.add("chosen");
  const action = S.salvoAction;
  if (action && (action.board === board.index || isShared())) {
    const [c, r] = action.center || action.at || (action.column !== undefined ? [action.column, action.from === "bottom" ? size.rows - 1 : 0] : [null, null]);
    if (c !== null) for (const [ac, ar] of areaOf(action) || []) grid.querySelector(`[data-col="${ac}"][data-row="${ar}"]`)?.classList.add("area", "area-set");
  }
  if (!interactive) return element;

  const cursor = S.cursor && S.cursor.board === board.index ? S.cursor : null;
  const focusCell = cursor ? grid.querySelector(`[data-col="${cursor.col}"][data-row="${cursor.row}"]`) : null;
  const first = focusCell || grid.querySelector(".cell");
  if (first) first.tabIndex = 0;
  if (focusCell) focusCell.classList.add("cursor");

  // The area under the pointer is drawn on the grid the page shows: this
  // render's while it is built, the live one (the event's) afterwards.
  const preview = (grid, col, row) => {
    for (const el of grid.querySelectorAll(".area:not(.area-set)")) el.classList.remove("area", "laser-end");
    if (!S.special) return;
    const cells = areaOf(buildAction(S.special, board.index, col, row)) || [];
    for (const [c, r] of cells) grid.querySelector(`[data-col="${c}"][data-row="${r}"]`)?.classList.add("area");
    if (S.special === "laser") {
      const end = S.laserEnd === "bottom" ? size.rows - 1 : 0;
      grid.querySelector(`[data-col="${col}"][data-row="${end}"]`)?.classList.add("laser-end");
    }
  };
  const describe = (col, row) => {
    const mark = boardMark(board.index, col, row);
    const cellText = `${cellLabel(view.letter_axis, col, row)}`;
    const target = cellIsTarget(board.index, col, row);
    let state;
    if (S.special) state = t(`special_hint.${S.special}`);
    else if (target) state = myTurn() ? t("hover_fire") : t("hover_target_wait");
    else if (looksTargetable(mark)) state = t("hover_not_target", { what: t("mark.no_target") });
    else state = t("hover_not_target", { what: t(`mark.${markKeyOf(mark)}`) });
    const info = document.getElementById(`hover-${board.index}`);
    if (info) {
      info.innerHTML = "";
      info.append(h("b", {}, cellText), " · ", state);
      info.classList.toggle("bad", !target && !S.special);
    }
  };
  on(grid, "pointerover", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    const col = Number(cell.dataset.col);
    const row = Number(cell.dataset.row);
    change("hover", { at: { board: board.index, col, row } });
    describe(col, row);
    preview(e.currentTarget, col, row);
  });
  on(grid, "pointerleave", (e) => {
    change("hover", { at: null });
    for (const el of e.currentTarget.querySelectorAll(".area:not(.area-set)")) el.classList.remove("area", "laser-end");
  });
  if (S.hover && S.hover.board === board.index) {
    // A redraw under a resting pointer (a frame, an area's answer) keeps its preview.
    const { col, row } = S.hover;
    preview(grid, col, row);
    queueMicrotask(() => describe(col, row));
  }
  on(grid, "focusin", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    const col = Number(cell.dataset.col);
    const row = Number(cell.dataset.row);
    change("hover", { at: { board: board.index, col, row } });
    describe(col, row);
    preview(e.currentTarget, col, row);
  });
  on(grid, "click", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    change("fire", { board: board.index, col: Number(cell.dataset.col), row: Number(cell.dataset.row) });
  });
  gridKeys(grid, size, {
    move: (col, row, live) => {
      change("cursor", { at: { board: board.index, col, row } });
      change("hover", { at: { board: board.index, col, row } });
      describe(col, row);
      preview(live, col, row);
    },
    pick: (col, row) => change("fire", { board: board.index, col, row }),
    other: (e, col, row) => {
      if ((e.key === "r" || e.key === "R") && (S.special === "bombard" || S.special === "laser")) {
        change("turn_area");
        preview(e.currentTarget, col, row);
      }
    },
  });
  return element;
}

function markKeyOf(mark) {
  return { "~": "unknown", "*": "ship", X: "hit", "?": "hit_unknown_owner", "#": "sunk", O: "miss", ".": "water", "-": "scan_empty", "!": "scan_ship", "+": "volley_unknown", "=": "no_target" }[mark] || "unknown";
}

export function renderOwnBoard(seat) {
  const view = S.view;
  const index = ownBoardIndex(seat);
  const picking = S.reserve !== null && seat === mySeat() && view.phase === "battle";
  const element = buildBoard({
    interactive: picking,
    size: seaSize(index),
    axis: view.letter_axis,
    markAt: (c, r) => boardMark(index, c, r),
    hull: hullMap(isShared() ? view.ships : view.ships.filter((s) => s.owner === seat)),
    id: String(index),
    caption: isShared() ? t("shared_sea") : seat === mySeat() ? t("your_waters") : t("board_of", { name: seatName(seat) }),
    fresh: freshCells(index),
  });
  if (isShared()) decorateBlocks(element);
  // Where the reserve's fighters will land: being chosen, or set for the salvo.
  const planned = picking ? S.reserve : seat === mySeat() && S.salvoAction?.kind === "reserve" ? S.salvoAction.cells || [] : [];
  const grid = element.querySelector(".grid");
  for (const [c, r] of planned) grid.querySelector(`[data-col="${c}"][data-row="${r}"]`)?.classList.add("reserve-pick");
  if (picking) armReservePicker(element);
  return element;
}

function watching() {
  const me = mySeat();
  return me !== null && S.view.seats[me] && !S.view.seats[me].alive;
}

function battleBanner() {
  const view = S.view;
  const me = mySeat();
  if (me === null) {
    const mover = view.to_move.map(seatName).join(", ");
    return banner(t("watching_turn", { name: mover }), false);
  }
  if (watching()) {
    return banner(t("you_are_watching"), false, h("small", { class: "watch-note" }, ` — ${t("full_vision_note")} · ${t("watching_turn", { name: view.to_move.map(seatName).join(", ") })}`));
  }
  if (view.salvo_round) {
    const waiting = view.to_move.includes(me);
    if (!waiting) return banner(t("salvo_waiting_for", { names: view.to_move.map(seatName).join(", ") || "…" }), false);
    const totals = salvoTotals();
    const key = rules().salvo === "focus" ? "salvo_focus_turn" : "salvo_your_turn";
    return banner(plural(key, rules().shots_per_opponent * (rules().salvo === "focus" ? salvoKeys().length : 1)), true, h("small", { class: "salvo-count", id: "salvo-count" }, ` · ${salvoCount(totals)}`));
  }
  if (myTurn()) {
    let text = t("your_turn");
    // The engine says whether the turn has a fixed number of shots, and how many (R-5.1, R-5.3).
    const targets = view.legal_targets;
    if (targets?.shots_in_turn !== undefined && targets?.shots_in_turn !== null) {
      text = targets.volley
        ? plural("volley_turn", targets.shots_in_turn)
        : t("shots_turn", { k: (view.shots_this_turn || 0) + 1, n: targets.shots_in_turn });
    } else if (rules().max_shots_per_turn) {
      text = `${t("your_turn")} · ${t("shot_of_max", { k: (view.shots_this_turn || 0) + 1, n: rules().max_shots_per_turn })}`;
    }
    return banner(text, true);
  }
  return banner(t("their_turn", { name: view.to_move.map(seatName).join(", ") }), false);
}

/** The hard rule's announcement of the last volley on a board: counts and types only (R-5.3). */
function volleySummary(board) {
  const v = S.lastVolley;
  if (!v || v.board !== board || !perVolley()) return null;
  const types = v.types_hit.map((id) => shipTypeName(id)).join(", ");
  return h(
    "div",
    { class: "volley-summary", id: "volley-summary" },
    h("strong", {}, plural("volley_summary", v.hits, { cells: v.cells.map(label).join(" "), hits: v.hits, total: v.cells.length })),
    h("span", { class: "volley-dots", "aria-hidden": "true" }, v.cells.map((_, i) => h("span", { class: i < v.hits ? "dot-hit" : "dot-miss" }))),
    types ? h("span", {}, types) : null,
    v.sunk.length ? h("span", { class: "volley-sunk" }, t("log_volley_sunk", { ships: v.sunk.map((id) => shipTypeName(id)).join(", ") })) : null,
  );
}

/** The boards other than the viewer's own: opponents first, then team-mates. */
function otherBoards() {
  const me = mySeat();
  const list = S.view.boards.map((b, index) => ({ ...b, index })).filter((b) => b.index !== me);
  return [...list.filter((b) => !isMate(b.index)), ...list.filter((b) => isMate(b.index))];
}

/** Picks a sensible board to show: the current tab if it still makes sense, else a live opponent. */
function chooseTab() {
  const boards = otherBoards();
  const ids = boards.map((b) => b.index);
  const live = boards.filter((b) => !isMate(b.index) && S.view.seats[b.index]?.alive).map((b) => b.index);
  if (!ids.includes(S.tab)) S.tab = live[0] ?? ids[0];
}

function tabBar(boards) {
  const view = S.view;
  return h(
    "div",
    { class: "sea-tabs", role: "tablist", "aria-label": t("opponents") },
    boards.map((b) => {
      const seat = view.seats[b.index];
      const mate = isMate(b.index);
      const need = view.salvo_round && myTurn() && salvoKeys().includes(b.index) ? salvoNeed(b.index) : null;
      const hasAction = S.salvoAction && actionKey() === b.index;
      const badge = need
        ? h("span", { class: `due ${need.chosen === need.due ? "done" : ""}`, "data-due": String(need.due), "data-chosen": String(need.chosen) }, hasAction ? `⚡ ${t(`special.${S.salvoAction.kind}`)}` : `${need.chosen}/${need.due}`)
        : null;
      return h(
        "button",
        {
          type: "button",
          role: "tab",
          id: `sea-tab-${b.index}`,
          class: `sea-tab ${S.tab === b.index ? "active" : ""} ${mate ? "mate" : ""} ${seat?.alive ? "" : "out"}`,
          "aria-selected": String(S.tab === b.index),
          dataset: { board: String(b.index) },
          onclick: () => change("sea_tab", { board: b.index }),
        },
        h("span", { "aria-hidden": "true" }, mate ? "🤝 " : seat?.alive ? "🎯 " : "✝ "),
        seatName(b.index),
        h("small", { class: "tab-ships" }, ` ${seat?.ships_afloat ?? "?"}/${seat?.ships_total ?? "?"}`),
        badge,
      );
    }),
  );
}

function targetCard(b, interactive) {
  const view = S.view;
  const me = mySeat();
  const mate = isMate(b.index);
  const seat = view.seats[b.index];
  const title = isShared() ? t("shared_sea") : mate ? t("mate_waters", { name: seatName(b.index) }) : t("board_of", { name: seatName(b.index) });
  return h(
    "section",
    { class: `board-card target ${interactive && myTurn() ? "armed" : ""} ${mate ? "mate" : ""}` },
    h("h2", {}, me === null || watching() ? "" : isShared() ? "🌊 " : mate ? "🤝 " : "🎯 ", title, isShared() ? null : personButton(b.index, "board")),
    // The shared sea and a star field are wider than a phone: they scroll sideways in their card.
    isShared() ? boardScroller(renderTargetBoard(b, interactive), "sea") : isSpace() ? boardScroller(renderTargetBoard(b, interactive), `target-${b.index}`) : renderTargetBoard(b, interactive),
    h("p", { class: "hover-info", id: `hover-${b.index}`, "aria-hidden": "true" }, t("hover_help")),
    !isShared() && seat ? h("p", { class: "board-note muted" }, seat.alive ? t("afloat_n", { n: seat.ships_afloat, total: seat.ships_total }) : t("eliminated_tag")) : null,
    volleySummary(b.index),
  );
}

export function renderBattle() {
  const view = S.view;
  const me = mySeat();
  const alive = me !== null && view.seats[me]?.alive;
  let boardsArea;
  let count;
  if (isShared()) {
    const sea = { ...view.boards[0], index: 0 };
    const card = targetCard(sea, alive);
    card.classList.add("sea-card");
    if (view.salvo_round && myTurn()) {
      // The shots still due per opponent's block (R-9.4: each block is one opponent).
      card.insertBefore(
        h(
          "div",
          { class: "block-dues", "aria-label": t("opponents") },
          salvoKeys().map((key) => {
            const need = salvoNeed(key);
            return h("span", { class: `block-due ${need.chosen === need.due ? "done" : ""}`, dataset: { block: String(key) } }, `🎯 ${blockTitle(key)} · ${need.chosen}/${need.due}`);
          }),
        ),
        card.children[1],
      );
    }
    boardsArea = [card];
    count = 1;
  } else {
    const others = otherBoards();
    chooseTab();
    const ownBoard = me !== null && !watching()
      ? h("section", { class: `board-card own ${S.reserve ? "armed" : ""}` }, h("h2", {}, "🛡 ", t("your_waters")), isSpace() ? boardScroller(renderOwnBoard(me), "own") : renderOwnBoard(me), h("p", { class: "board-note muted" }, t("afloat_n", { n: view.seats[me].ships_afloat, total: view.seats[me].ships_total })))
      : null;
    if (others.length <= 1) {
      boardsArea = [...others.map((b) => targetCard(b, alive && !isMate(b.index) && view.seats[b.index]?.alive)), ownBoard];
      count = others.length + (ownBoard ? 1 : 0);
    } else {
      const shown = others.find((b) => b.index === S.tab) || others[0];
      const interactive = alive && !isMate(shown.index) && Boolean(view.seats[shown.index]?.alive);
      const mine = watching() ? h("section", { class: "board-card own" }, h("h2", {}, "🛡 ", t("your_waters")), renderOwnBoard(me)) : ownBoard;
      boardsArea = [h("div", { class: "tabbed" }, tabBar(others), targetCard(shown, interactive)), mine];
      count = 2;
    }
  }
  const actions = [];
  if (me !== null && perVolley() && myTurn()) {
    actions.push(
      h(
        "button",
        { class: "button primary big", type: "button", id: "fire-volley", disabled: S.volley.length !== volleySize(), onclick: () => change("volley") },
        `💥 ${t("fire_volley", { n: S.volley.length, total: volleySize() })}`,
      ),
    );
  }
  if (me !== null && view.salvo_round && view.to_move.includes(me)) {
    const totals = salvoTotals();
    actions.push(
      h(
        "button",
        { class: "button primary big", type: "button", id: "submit-salvo", disabled: !salvoComplete(), onclick: submitSalvo },
        `💥 ${t("submit_salvo_of", { n: totals.chosen, total: totals.due })}${S.salvoAction ? ` + ⚡ ${t(`special.${S.salvoAction.kind}`)}` : ""}`,
      ),
    );
  }
  const resign = alive
    ? h(
        "button",
        {
          class: "button ghost danger",
          type: "button",
          id: "resign",
          onclick: () => {
            if (confirm(t("resign_confirm"))) send({ type: "resign" });
          },
        },
        `🏳 ${t("resign")}`,
      )
    : null;
  return h(
    "main",
    { class: `game battle ${watching() ? "is-watching" : ""}` },
    screenHeading("screen_battle"),
    battleBanner(),
    watching() ? h("p", { class: "watch-badge", id: "watching" }, `👁 ${t("you_are_watching")}`) : null,
    renderRoundSummary(),
    h("div", { class: "action-bar" }, specialsBar(), actions, h("div", { class: "spacer" }), resign),
    h("div", { class: "play-area" }, h("div", { class: `boards boards-${count} ${isShared() ? "boards-sea" : ""}` }, boardsArea), renderSide()),
  );
}
