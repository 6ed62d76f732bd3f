// Abilities and specials (R-7.6–R-7.9, R-10.3): their buttons, the areas they
// cover (asked of the server with preview_action), and the reserve's cells.

import { plural, t } from "./i18n.js";
import { h, on } from "./dom.js";
import { gridKeys } from "./board.js";
import { render } from "./hooks.js";
import { send } from "./link.js";
import { announce, toast } from "./notify.js";
import { salvoKeys } from "./salvo.js";
import { S, mySeat, rules, seatName } from "./state.js";
import { boardMark, isShared, isSpace, myTurn, ownBoardIndex, seaSize } from "./view.js";

/**
 * The cells an ability or special covers (R-7.6–R-7.8, R-10.3), as the server's
 * engine computes them (preview_action). Answers are kept for the whole game, so
 * hovering over a cell asked about before is instant; until the answer comes
 * this returns null and the answer redraws the board.
 */
export const areas = { scope: null, cells: new Map(), asked: new Set() };

const PREVIEWS_IN_FLIGHT = 8;

function areaKey(action) {
  const at = action.center || action.at || (action.line ? [action.line.column ?? -1, action.line.row ?? -1] : [action.column, -1]);
  return `${action.kind}:${action.board}:${at[0]},${at[1]}`;
}

export function areaOf(action) {
  const scope = `${S.room?.code}:${S.room?.game}`;
  if (areas.scope !== scope) {
    areas.scope = scope;
    areas.cells.clear();
    areas.asked.clear();
  }
  const key = areaKey(action);
  const cells = areas.cells.get(key);
  if (cells) return cells;
  // A quick sweep of the pointer asks for a few cells at a time, well inside
  // the server's frame budget; the rest are asked when the pointer rests.
  if (!areas.asked.has(key) && areas.asked.size < PREVIEWS_IN_FLIGHT) {
    areas.asked.add(key);
    send({ type: "preview_action", action });
  }
  return null;
}

/** The server's answer to preview_action: kept, and drawn if it is still wanted. */
export function onActionArea(frame) {
  const key = areaKey(frame.action);
  areas.cells.set(key, frame.cells);
  areas.asked.delete(key);
  const hover = S.hover && S.special ? areaKey(buildAction(S.special, S.hover.board, S.hover.col, S.hover.row)) : null;
  const chosen = S.salvoAction && S.salvoAction.kind !== "reserve" ? areaKey(S.salvoAction) : null;
  // A redraw also asks for the hovered cell if a full pipeline skipped it.
  const skipped = hover && !areas.cells.has(hover) && !areas.asked.has(hover);
  if (key === hover || key === chosen || skipped) render();
}

export function buildAction(kind, board, col, row) {
  if (kind === "bombard") return { kind, board, line: S.bombardAxis === "row" ? { row } : { column: col } };
  if (kind === "laser") return { kind, board, column: col, from: S.laserEnd };
  if (kind === "nuke") return { kind, board, at: [col, row] };
  return { kind, board, center: [col, row] };
}

const ABILITY_ORDER = ["laser", "scanner", "nuke", "reserve", "wide", "bombard", "radar"];

const ABILITY_ICON = { laser: "🔦", scanner: "📡", nuke: "☢️", reserve: "🛩", wide: "💥", bombard: "✈️", radar: "📡" };

export function specialsBar() {
  const view = S.view;
  const me = mySeat();
  const kinds = ABILITY_ORDER.filter((k) => view.abilities?.[k]);
  if (!kinds.length || me === null || !view.seats[me]?.alive) return null;
  const turnShots = view.shots_this_turn || 0;
  return h(
    "div",
    { class: "specials", role: "group", "aria-label": t(isSpace() ? "abilities" : "specials") },
    h("span", { class: "specials-title" }, t(isSpace() ? "abilities" : "specials")),
    kinds.map((kind) => {
      const a = view.abilities[kind];
      const special = a.uses_left !== undefined && a.uses_left !== null;
      const usable = a.ready && myTurn() && (view.salvo_round || !special || turnShots === 0);
      let note;
      let locked = false;
      if (special) {
        locked = !a.ready && a.uses_left > 0 && kind === "bombard" && (view.round || 0) < 10;
        note = a.uses_left === 0 ? t("no_uses") : locked ? t("unlocks_turn", { n: 10, now: view.round || 0 }) : plural("uses_left", a.uses_left);
      } else {
        locked = !a.ready;
        note = a.ready ? t("ability_ready") : t("ability_next_round", { n: a.next_round, now: view.round || 0 });
      }
      const chosen = S.special === kind || (S.salvoAction && S.salvoAction.kind === kind) || (kind === "reserve" && S.reserve !== null);
      return h(
        "button",
        {
          type: "button",
          class: `special ${chosen ? "active" : ""} ${locked ? "locked" : ""} ${a.ready ? "is-ready" : ""}`,
          id: `special-${kind}`,
          disabled: !usable,
          "aria-pressed": String(Boolean(chosen)),
          onclick: () => {
            S.special = null;
            if (kind === "reserve") {
              // The fighters' cells are chosen on the own field (R-7.9).
              if (S.salvoAction?.kind === "reserve") S.salvoAction = null;
              else S.reserve = S.reserve === null ? [] : null;
              if (S.reserve) announce(t("reserve_pick_hint", { n: 0 }));
              render();
              return;
            }
            S.reserve = null;
            S.special = S.special === kind ? null : kind;
            if (S.special) announce(t(`special_hint.${kind}`));
            render();
          },
        },
        h("span", { class: "special-icon", "aria-hidden": "true" }, ABILITY_ICON[kind]),
        h("span", { class: "special-name" }, t(`special.${kind}`)),
        h("small", {}, locked ? `🔒 ${note}` : note),
      );
    }),
    S.special === "bombard"
      ? h("button", { class: "button small", type: "button", onclick: () => { S.bombardAxis = S.bombardAxis === "row" ? "column" : "row"; render(); } }, `↻ ${t(S.bombardAxis === "row" ? "bombard_row" : "bombard_column")}`)
      : null,
    S.special === "laser"
      ? h(
          "button",
          { class: "button small", type: "button", id: "laser-end", onclick: () => { S.laserEnd = S.laserEnd === "top" ? "bottom" : "top"; render(); } },
          S.laserEnd === "top" ? `↓ ${t("laser_from_top")}` : `↑ ${t("laser_from_bottom")}`,
        )
      : null,
    S.special ? h("span", { class: "special-hint" }, t(`special_hint.${S.special}`)) : null,
    S.reserve ? reserveControls() : null,
    S.salvoAction
      ? h("button", { class: "button small ghost", type: "button", id: "cancel-ability", onclick: () => { S.salvoAction = null; render(); } }, `✕ ${t("ability_cancel", { action: t(`special.${S.salvoAction.kind}`) })}`)
      : null,
  );
}

/** The opponent whose shots a reserve replaces in a salvo round (R-6.5): the sea in view. */
function reserveOpponent() {
  return !isShared() && salvoKeys().includes(S.tab) ? S.tab : salvoKeys()[0];
}

/** Sends the reserve (a duel) or sets it in place of one opponent's shots (a salvo round). */
function landReserve(cells) {
  const action = { kind: "reserve", board: null, cells };
  S.reserve = null;
  if (S.view.salvo_round) {
    const opponent = reserveOpponent();
    action.board = opponent;
    S.salvoAction = action;
    if (rules().salvo === "focus") S.salvo = {};
    else S.salvo[opponent] = [];
    announce(t("ability_set", { action: t("special.reserve"), name: seatName(opponent) }));
  } else {
    S.reserveSent = cells;
    send({ type: "command", command: { cmd: "ability", action } });
  }
  render();
}

function reserveControls() {
  const n = S.reserve.length;
  return [
    h("span", { class: "special-hint", id: "reserve-hint" }, t("reserve_pick_hint", { n })),
    h("button", { class: "button small primary", type: "button", id: "reserve-confirm", disabled: n === 0, onclick: () => landReserve([...S.reserve]) }, `✔ ${t("reserve_confirm", { n })}`),
    h("button", { class: "button small", type: "button", id: "reserve-random", onclick: () => landReserve(null) }, `🎲 ${t("reserve_random")}`),
    h("button", { class: "button small ghost", type: "button", id: "reserve-cancel", onclick: () => { S.reserve = null; render(); } }, `✕ ${t("cancel")}`),
  ];
}

/** Fighters a reserve brings (R-7.9); the engine checks the cells. */
const RESERVE_FIGHTERS = 3;

/** A click on the own field while choosing the reserve's cells: take or give back a cell. */
function toggleReserveCell(col, row) {
  const index = S.reserve.findIndex(([c, r]) => c === col && r === row);
  if (index >= 0) S.reserve.splice(index, 1);
  else if (boardMark(ownBoardIndex(mySeat()), col, row) !== "~") {
    toast(t("reserve_not_free"), "error");
    return;
  } else if (S.reserve.length >= RESERVE_FIGHTERS) {
    toast(t("reserve_full"), "error");
    return;
  } else S.reserve.push([col, row]);
  announce(t("reserve_pick_hint", { n: S.reserve.length }));
  render();
}

/** Makes the own board a picker for the reserve's cells: chosen cells marked, click or Enter toggles. */
export function armReservePicker(element) {
  const grid = element.querySelector(".grid");
  element.classList.add("reserve-picker");
  const first = grid.querySelector(".cell");
  if (first) first.tabIndex = 0;
  on(grid, "click", (e) => {
    const cell = e.target.closest(".cell");
    if (cell) toggleReserveCell(Number(cell.dataset.col), Number(cell.dataset.row));
  });
  gridKeys(grid, seaSize(ownBoardIndex(mySeat())), { pick: toggleReserveCell });
}
