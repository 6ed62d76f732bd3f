// Salvo rounds: the shots chosen per opponent, what is still due, the
// salvo sent, and the summary of the round the server resolved.

import { plural, t } from "./i18n.js";
import { h } from "./dom.js";
import { render } from "./hooks.js";
import { send } from "./link.js";
import { announce, toast } from "./notify.js";
import { S, label, mySeat, rules, seatName, shipTypeName } from "./state.js";
import { blockIndexAt, blockRole, blockTitle, cellIsTarget, isMate, isShared } from "./view.js";

/**
 * What the engine says the seat may aim at now (view.legal_targets): per
 * opponent's waters the targetable cells and the shots due. Absent when the
 * seat has nothing to do.
 */
function legalWaters() {
  return S.view?.legal_targets?.waters || [];
}

function keyOfWaters(waters) {
  return isShared() ? waters.block : waters.board;
}

function watersOfKey(key) {
  return legalWaters().find((w) => keyOfWaters(w) === Number(key));
}

/** The opponents a salvo is shared among: their boards, or their blocks in the shared sea. */
export function salvoKeys() {
  return legalWaters().map(keyOfWaters);
}

function keyOfCell(board, col, row) {
  return isShared() ? blockIndexAt(col, row) : board;
}

function boardOfKey(key) {
  return isShared() ? 0 : Number(key);
}

export function actionKey() {
  const a = S.salvoAction;
  if (!a) return null;
  if (isShared() && a.center) return blockIndexAt(a.center[0], a.center[1]);
  return a.board;
}

function focusKey() {
  for (const [key, list] of Object.entries(S.salvo)) if (list.length) return Number(key);
  return null;
}

/**
 * The shots chosen for one opponent, and how many are due there: the engine's
 * count, unless the ability chosen takes their place or, in focus, the
 * shots went to another opponent.
 */
export function salvoNeed(key) {
  const chosen = (S.salvo[key] || []).length;
  const due = watersOfKey(key)?.shots_due ?? 0;
  if (rules().salvo === "focus") {
    if (S.salvoAction) return { chosen, due: 0 };
    const focus = focusKey();
    if (focus !== null && focus !== Number(key)) return { chosen, due: 0 };
    return { chosen, due };
  }
  if (S.salvoAction && actionKey() === Number(key)) return { chosen, due: 0 };
  return { chosen, due };
}

export function salvoComplete() {
  const keys = salvoKeys();
  if (rules().salvo === "focus") {
    if (S.salvoAction) return keys.every((k) => !(S.salvo[k] || []).length);
    const focus = focusKey();
    return focus !== null && (S.salvo[focus] || []).length === salvoNeed(focus).due;
  }
  return keys.every((k) => {
    const need = salvoNeed(k);
    return need.chosen === need.due;
  });
}

export function salvoTotals() {
  const keys = salvoKeys();
  const chosen = keys.reduce((n, k) => n + (S.salvo[k] || []).length, 0);
  let due;
  if (rules().salvo === "focus") {
    const focus = focusKey();
    // Before a choice: the most any one opponent may take.
    due = S.salvoAction ? 0 : focus !== null ? salvoNeed(focus).due : Math.max(0, ...keys.map((k) => salvoNeed(k).due));
  } else {
    due = keys.reduce((n, k) => n + salvoNeed(k).due, 0);
  }
  return { chosen, due };
}

/** "2 of 3 shots chosen": the noun follows the shots due. */
export function salvoCount(totals) {
  return plural("salvo_count", totals.due, { n: totals.chosen, total: totals.due });
}

export function toggleSalvoCell(board, col, row) {
  const key = keyOfCell(board, col, row);
  if (key < 0 || !salvoKeys().includes(key) || !cellIsTarget(board, col, row)) {
    const role = isShared() && key >= 0 ? blockRole(key) : null;
    const code = role === "own" ? "own_board" : role === "mate" || (!isShared() && isMate(board)) ? "own_team" : "not_targetable";
    toast(t(`err.${code}`), "error");
    return;
  }
  const list = (S.salvo[key] = S.salvo[key] || []);
  const index = list.findIndex(([c, r]) => c === col && r === row);
  if (index >= 0) {
    list.splice(index, 1);
  } else {
    if (S.salvoAction && (rules().salvo === "focus" || actionKey() === key)) {
      // A shot here takes back the ability that replaced these shots.
      S.salvoAction = null;
    }
    const focus = focusKey();
    if (rules().salvo === "focus" && focus !== null && focus !== key) {
      toast(t("focus_one_opponent"), "error");
      return;
    }
    const need = salvoNeed(key);
    if (list.length >= need.due) {
      toast(t("salvo_full", { n: need.due }), "error");
      return;
    }
    list.push([col, row]);
  }
  const totals = salvoTotals();
  announce(salvoCount(totals));
  render();
}

export function submitSalvo() {
  S.salvoSentRound = S.view.round;
  S.reserveSent = S.salvoAction?.kind === "reserve" ? S.salvoAction.cells : null;
  const shots = [];
  for (const [key, cells] of Object.entries(S.salvo)) for (const at of cells) shots.push({ board: boardOfKey(key), at });
  send({ type: "command", command: { cmd: "salvo", shots, action: S.salvoAction || null } });
}

/** The round's results in words, from the events of the frame that resolved it. */
export function summarizeRound(events, round, timedOut) {
  const shots = events.filter((e) => e.event === "shot");
  const others = events.filter((e) => ["sunk", "eliminated", "action_used", "reinforced", "game_over"].includes(e.event));
  if (!shots.length && !others.some((e) => e.event === "action_used")) return null;
  const byShooter = new Map();
  for (const e of shots) {
    if (!byShooter.has(e.shooter)) byShooter.set(e.shooter, []);
    byShooter.get(e.shooter).push(e);
  }
  return { round, byShooter: [...byShooter.entries()], others, timedOut };
}

function resultIcon(result) {
  return result === "miss" ? "💧" : result === "hit" ? "🔥" : "☠";
}

export function renderRoundSummary() {
  const sum = S.roundSummary;
  if (!sum) return null;
  const me = mySeat();
  const lines = sum.byShooter.map(([shooter, list]) => {
    const byBoard = new Map();
    for (const e of list) {
      const target = isShared() ? (() => {
        const b = blockIndexAt(e.at[0], e.at[1]);
        return b >= 0 ? blockTitle(b) : "?";
      })() : seatName(e.board);
      if (!byBoard.has(target)) byBoard.set(target, []);
      byBoard.get(target).push(e);
    }
    return h(
      "li",
      { class: shooter === me ? "mine" : "" },
      h("b", {}, seatName(shooter)),
      [...byBoard.entries()].map(([target, shotsOn]) =>
        h(
          "span",
          { class: "sum-target" },
          ` → ${target}: `,
          shotsOn.map((e) => h("span", { class: `sum-shot r-${e.result}`, title: t(`result.${e.result}`) }, `${label(e.at)} ${resultIcon(e.result)} `)),
        ),
      ),
    );
  });
  const extra = sum.others.map((e) => {
    if (e.event === "sunk") return h("li", { class: "sum-sunk" }, "☠ ", e.owner === me ? t("log_your_ship_sunk", { ship: shipTypeName(e.ship).toLowerCase() }) : t("log_ship_sunk", { ship: shipTypeName(e.ship).toLowerCase(), name: seatName(e.owner) }));
    if (e.event === "eliminated") return h("li", { class: "sum-out" }, "✝ ", e.seat === me ? t("log_you_eliminated") : t("log_eliminated", { name: seatName(e.seat) }));
    if (e.event === "action_used") return h("li", {}, "⚡ ", t("log_action", { name: seatName(e.seat), action: t(`special.${e.kind}`) }), e.board !== undefined && e.board !== null && !isShared() ? ` → ${seatName(e.board)}` : "");
    if (e.event === "reinforced") return h("li", {}, "🛩 ", plural("log_reinforced", e.count, { name: seatName(e.seat) }));
    return null;
  });
  return h(
    "section",
    { class: "card round-summary", id: "round-summary", "aria-live": "polite" },
    h(
      "div",
      { class: "summary-head" },
      h("h2", {}, t("round_summary", { round: sum.round })),
      h("button", { class: "icon-button", type: "button", id: "close-summary", "aria-label": t("close"), onclick: () => { S.roundSummary = null; render(); } }, "✕"),
    ),
    h("ul", { class: "summary-list" }, sum.timedOut ? h("li", { class: "sum-timeout", id: "round-timed-out" }, `⏱ ${t("round_timed_out")}`) : null, lines, extra),
  );
}
