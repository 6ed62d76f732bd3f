// The game's state frames: the view kept, the clock's deadline, the choices of
// a turn kept or dropped, the round summary, and the log in words with its sounds.

import { t } from "./i18n.js";
import { sound } from "./sound.js";
import { eventsWords } from "./words.js";
import { send } from "./link.js";
import { announce } from "./notify.js";
import { resetPlacement } from "./placement.js";
import { summarizeRound } from "./salvo.js";
import { resetShop } from "./shop.js";
import { S, label, mySeat, rules, seatName, shipTypeName } from "./state.js";
import { isSpace, waterName } from "./view.js";

export function onState(frame) {
  const view = frame.view;
  // Counted on the page so tests (and curious players) can tell frames apart.
  S.states = (S.states || 0) + 1;
  const before = S.view;
  if (before && before.phase === "finished" && view.phase !== "finished") {
    // A rematch: a fresh game in the same room.
    S.log = [];
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
  for (const said of eventsWords(events, wordsContext(), { grouped })) {
    S.log.unshift({ ...said, at: Date.now() });
    if (S.log.length > 300) S.log.pop();
    if (said.event !== "ready") announce(said.text);
  }
}
