// The game's state frames: the view kept, the clock's deadline, the choices of
// a turn kept or dropped, the round summary, and the log in words with its sounds.

import { t } from "./i18n.js";
import { sound } from "./sound.js";
import { eventWords, eventsWords } from "./words.js";
import { send } from "./link.js";
import { announce } from "./notify.js";
import { resetPlacement } from "./placement.js";
import { summarizeRound } from "./salvo.js";
import { resetShop } from "./shop.js";
import { S, label, mySeat, rules, seatName, shipTypeName, stored } from "./state.js";
import { isSpace, waterName } from "./view.js";

export function onState(frame) {
  const view = frame.view;
  // Counted on the page so tests (and curious players) can tell frames apart.
  S.states = (S.states || 0) + 1;
  const before = S.view;
  if (before && before.phase === "finished" && view.phase !== "finished") {
    // A rematch: a fresh game in the same room.
    S.log = [];
    forgetLog();
    S.rematchNote = null;
    resetPlacement();
    resetShop();
  }
  S.previousView = before;
  S.view = view;
  S.starting = null;
  S.stats = frame.stats || null;
  // The finished game is in the history now: its entry carries the replay link.
  if (view.phase === "finished" && (!before || before.phase !== "finished")) send({ type: "history" });
  S.deadline = typeof frame.deadline_ms === "number" ? Date.now() + frame.deadline_ms : null;
  if (S.deadline) {
    const turnChanged = !before || before.phase !== view.phase || JSON.stringify(before.to_move) !== JSON.stringify(view.to_move);
    if (turnChanged || !S.deadlineTotal || frame.deadline_ms > S.deadlineTotal) S.deadlineTotal = frame.deadline_ms;
  }
  if (view.phase !== "battle") S.special = null;
  // Choices belong to one turn (or salvo round) of this seat: they survive
  // frames in which others act, and end with the seat's turn or round.
  const seat = mySeat();
  const sameTurn = before && seat !== null && view.phase === "battle" && before.to_move.includes(seat) && view.to_move.includes(seat) && before.round === view.round;
  if (!sameTurn) {
    S.volley = [];
    S.salvo = {};
    S.salvoAction = null;
    S.reserve = null;
  }
  if ((frame.events || []).some((e) => e.event === "reinforced")) S.reserveSent = null;
  if (before && before.salvo_round && before.phase === "battle" && (frame.events || []).some((e) => e.event === "shot" || e.event === "action_used")) {
    // The frame that resolved a salvo round: keep its story for the summary card.
    // The round's clock ran out on this seat if its salvo came with the
    // resolution although the person sent none this round.
    const timedOut = seat !== null && S.salvoSentRound !== before.round && frame.events.some((e) => e.event === "salvo_submitted" && e.seat === seat);
    S.roundSummary = summarizeRound(frame.events, S.salvoRoundNo || 1, timedOut);
  }
  for (const event of frame.events || []) if (event.event === "round_started") S.salvoRoundNo = event.round;
  const meNow = mySeat();
  if (S.tab !== null && meNow !== null && view.to_move.includes(meNow) && !view.seats[S.tab]?.alive) {
    // A fallen opponent's sea is no target: show a live one when it is time to shoot.
    S.tab = null;
  }
  // A join (a reload, a reconnection) brings the view without the events
  // that led to it: the log comes back from what this page kept.
  if (!before && !(frame.events || []).length && !S.log.length) restoreLog(view);
  // A duel's move is one action; a salvo round's resolution is everybody's.
  logEvents(frame.events || [], !before?.salvo_round);
  const me = mySeat();
  if (view.phase === "battle" && me !== null && view.to_move.includes(me) && before && !before.to_move.includes(me)) {
    announce(t("announce_your_turn"));
  }
  if (view.phase === "finished" && before && before.phase !== "finished") {
    const won = view.winner && view.winner.includes(me);
    sound.play(won ? "win" : "lose");
  }
}

/** How the log speaks to this page's reader (words.js). */
function wordsContext() {
  return {
    me: mySeat(),
    name: seatName,
    label,
    water: waterName,
    ship: shipTypeName,
    many: (rules()?.seats || 2) > 2,
    space: isSpace(),
  };
}

function logEvents(events, grouped) {
  for (const event of events) {
    if (event.event === "shot") sound.play(event.result === "miss" ? "splash" : event.result === "hit" ? "hit" : "sunk");
    if (event.event === "volley") {
      sound.play(event.hits ? "hit" : "splash");
      S.lastVolley = { ...event, mine: event.shooter === mySeat() };
    }
  }
  if (events.length) keepLog(events, grouped);
  for (const said of eventsWords(events, wordsContext(), { grouped })) {
    S.log.unshift({ ...said, at: Date.now() });
    if (S.log.length > 300) S.log.pop();
    if (said.event !== "ready") announce(said.text);
  }
}

// ------------------------------------------------------------ the log kept across reloads

// The server sends a joining page the view but not the events before it
// (docs/protocol.md, `join_room`). So the page keeps each game's events in
// localStorage, per room and seat, and words them again after a reload, in
// the language of the moment. A few rooms are kept, the most recent ones.
const LOG_KEY = "broadside.log";
const LOG_ROOMS = 6;
const LOG_FRAMES = 600;

/** How many cells of every board show a result: it only grows during one game. */
function knownCells(view) {
  let n = 0;
  for (const board of view.boards || []) for (const row of board.rows) for (const ch of row) if ("XO#?.-!+".includes(ch)) n += 1;
  return n;
}

function logId() {
  return S.room ? `${S.room.code}:${mySeat() ?? "watch"}` : null;
}

function keepLog(events, grouped) {
  const id = logId();
  if (!id) return;
  const logs = stored(LOG_KEY, {});
  const entry = logs[id] || { frames: [] };
  entry.frames.push([events, grouped]);
  if (entry.frames.length > LOG_FRAMES) entry.frames.splice(0, entry.frames.length - LOG_FRAMES);
  entry.known = knownCells(S.view);
  entry.round = S.view.round || 0;
  entry.at = Date.now();
  logs[id] = entry;
  const ids = Object.keys(logs).sort((a, b) => logs[b].at - logs[a].at);
  for (const old of ids.slice(LOG_ROOMS)) delete logs[old];
  try {
    localStorage.setItem(LOG_KEY, JSON.stringify(logs));
  } catch {
    // A full storage only costs the log after a reload.
  }
}

function forgetLog() {
  const id = logId();
  const logs = stored(LOG_KEY, {});
  if (!id || !logs[id]) return;
  delete logs[id];
  localStorage.setItem(LOG_KEY, JSON.stringify(logs));
}

/**
 * The log of the game in view, from the events this page kept; failing those
 * (another device, a cleared storage), what the view itself tells: the round
 * and the ships sunk so far.
 */
function restoreLog(view) {
  if (view.phase === "shop" || view.phase === "placement") return;
  const id = logId();
  const entry = id ? stored(LOG_KEY, {})[id] : null;
  // Kept events of an earlier game in this room (a rematch missed) would
  // show more results than this game has.
  const fits = entry && entry.known <= knownCells(view) && entry.round <= (view.round || 0);
  const said = [];
  if (fits) {
    for (const [events, grouped] of entry.frames) said.push(...eventsWords(events, wordsContext(), { grouped }));
  } else {
    for (const ship of view.ships || []) {
      if (!ship.sunk) continue;
      const line = eventWords({ event: "sunk", owner: ship.owner, ship: ship.type }, wordsContext());
      if (line) said.push(line);
    }
    said.push({ text: t("log_resumed", { round: view.round || 1 }), kind: "phase" });
  }
  for (const line of said) S.log.unshift({ ...line, at: Date.now() });
  if (S.log.length > 300) S.log.length = 300;
}
