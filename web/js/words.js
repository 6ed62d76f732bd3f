// Engine events and commands in words, for the game's log and for replays.
//
// The words depend on who reads them ("You fired…" or "Ana fired…"), so the
// caller passes a context: `me` (the reader's seat, or null for an outsider),
// `name(seat)`, `label(at)`, `water(board, at)` (whose waters a cell is in, as
// the phrase `watersPhrase` makes: "in Ana's waters", "in your waters"),
// `ship(id)` (a ship type's name), `many` (three seats or more: cell labels
// then say whose waters) and `space` (the scanner rather than the radar).

import { t, plural } from "./i18n.js";

/** The log line of one event: `{ text, kind }`, or null for events the log leaves out. */
export function eventWords(event, ctx) {
  const { me } = ctx;
  const lower = (id) => ctx.ship(id).toLowerCase();
  let text = null;
  let kind = "info";
  switch (event.event) {
    case "ready":
      if (event.seat !== me) text = t("log_ready", { name: ctx.name(event.seat) });
      break;
    case "phase_changed":
      if (event.phase === "battle") {
        text = t("log_battle_begins");
        kind = "phase";
      }
      break;
    case "shot": {
      const result = event.result;
      const ship = event.ship ? lower(event.ship) : null;
      const key = result === "miss" ? "miss" : result === "hit" ? (ship ? "hit_type" : "hit") : "sunk";
      // With three or more seats a cell label alone does not say whose waters.
      const cell = ctx.many ? `${ctx.label(event.at)} ${ctx.water(event.board, event.at)}` : ctx.label(event.at);
      // "Ana hit your cruiser" is only right when the reader owns the board.
      const other = key === "hit_type" && event.board !== me ? "log_other_hit_ship" : `log_other_${key}`;
      text = t(event.shooter === me ? `log_you_${key}` : other, { name: ctx.name(event.shooter), cell, ship: ship || "" });
      kind = result;
      if (me !== null && event.board === me && result !== "miss") kind = "ouch";
      break;
    }
    case "volley": {
      const types = event.types_hit.map(lower).join(", ");
      text = plural(event.shooter === me ? "log_you_volley" : "log_other_volley", event.hits, {
        name: ctx.name(event.shooter),
        cells: event.cells.map(ctx.label).join(" "),
        hits: event.hits,
        types: types || "—",
      });
      if (event.sunk.length) text += " " + t("log_volley_sunk", { ships: event.sunk.map(lower).join(", ") });
      kind = event.hits ? "hit" : "miss";
      break;
    }
    case "sunk":
      text = me !== null && event.owner === me
        ? t("log_your_ship_sunk", { ship: lower(event.ship) })
        : t("log_ship_sunk", { ship: lower(event.ship), name: ctx.name(event.owner) });
      kind = me !== null && event.owner === me ? "ouch" : "sunk";
      break;
    case "action_used":
      text = t("log_action", { name: ctx.name(event.seat), action: t(`special.${event.kind}`) });
      kind = "phase";
      break;
    case "scan": {
      const found = event.cells.filter((c) => c.ship).length;
      // Space has the scanner, the Italian game the radar; the event is the same.
      text = plural("log_scan", found, { action: t(ctx.space ? "special.scanner" : "special.radar") });
      break;
    }
    case "reinforced":
      text = plural("log_reinforced", event.count, { name: ctx.name(event.seat) });
      break;
    case "resigned":
      text = me !== null && event.seat === me ? t("log_you_resigned") : t("log_resigned", { name: ctx.name(event.seat) });
      kind = "phase";
      break;
    case "eliminated":
      text = me !== null && event.seat === me ? t("log_you_eliminated") : t("log_eliminated", { name: ctx.name(event.seat) });
      kind = "phase";
      break;
    case "game_over":
      if (event.draw) text = t("log_draw");
      else if (me !== null && event.winners.includes(me)) text = t("log_you_won");
      else text = t("log_game_over", { names: event.winners.map(ctx.name).join(", ") });
      kind = "phase";
      break;
    case "round_started":
      text = t("log_round", { round: event.round });
      break;
    default:
      break;
  }
  if (!text) return null;
  return { text: text.charAt(0).toUpperCase() + text.slice(1), kind };
}

/**
 * The log lines of one change's events, in order (`{ text, kind, event }`).
 * With `grouped` (a duel's move), an action that shoots — a nuke's
 * explosion, a laser, an area special — is one line listing its cells ("You
 * used the nuke: C3 sunk, C4 water") instead of a line per cell; a salvo
 * round's resolution mixes every seat's shots, so there each shot keeps its line.
 */
export function eventsWords(events, ctx, { grouped = false } = {}) {
  const lines = [];
  const say = (event) => {
    const said = eventWords(event, ctx);
    if (said) lines.push({ ...said, event: event.event });
  };
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i];
    // The action's shots follow it, with the sinkings and revealed water they cause.
    const follows = (next) => (next.event === "shot" ? next.shooter === event.seat : ["sunk", "revealed"].includes(next.event));
    let end = i + 1;
    if (grouped && event.event === "action_used") while (end < events.length && follows(events[end])) end += 1;
    const part = events.slice(i + 1, end);
    const shots = part.filter((e) => e.event === "shot");
    if (!shots.length) {
      say(event);
      continue;
    }
    lines.push({ ...actionWords(event, shots, ctx), event: event.event });
    for (const other of part) if (other.event !== "shot") say(other);
    i = end - 1;
  }
  return lines;
}

/** One line for an action and the cells it shot. */
function actionWords(action, shots, ctx) {
  const { me } = ctx;
  let cells = shots.map((e) => `${ctx.label(e.at)} ${t(`result.${e.result}`)}`).join(", ");
  if (ctx.many) cells += ` — ${ctx.water(shots[0].board, shots[0].at)}`;
  const params = { name: ctx.name(action.seat), action: t(`special.${action.kind}`), cells };
  const text = t(action.seat === me ? "log_you_action_at" : "log_other_action_at", params);
  const worst = ["sunk", "hit"].find((r) => shots.some((e) => e.result === r)) || "miss";
  const ouch = me !== null && shots.some((e) => e.board === me && e.result !== "miss");
  return { text: text.charAt(0).toUpperCase() + text.slice(1), kind: ouch ? "ouch" : worst };
}

/** A stored command in words, as the replay's list of moves shows it (the seat is in the command). */
export function commandWords(command, ctx) {
  const name = command.seat === undefined ? "" : ctx.name(command.seat);
  switch (command.cmd) {
    case "buy":
      return t("move_buy", { name });
    case "place":
    case "place_random":
      return t("move_place", { name });
    case "fire":
      return t("move_fire", { name, cell: target(command.target, ctx) });
    case "volley":
      return t("move_volley", { name, cells: command.cells.map(ctx.label).join(" ") });
    case "ability":
      return t("move_ability", { name, action: t(`special.${command.action.kind}`) });
    case "salvo":
      return command.action
        ? plural("move_salvo_action", command.shots.length, { name, action: t(`special.${command.action.kind}`) })
        : plural("move_salvo", command.shots.length, { name });
    case "resign":
      return t("move_resign", { name });
    case "timeout":
      return t("move_timeout");
    default:
      return command.cmd;
  }
}

function target(shot, ctx) {
  return ctx.many ? `${ctx.label(shot.at)} ${ctx.water(shot.board, shot.at)}` : ctx.label(shot.at);
}

/**
 * Whose waters a cell is in, as a phrase that follows a cell label ("D2 in
 * Ana's waters"): the reader's own (`mine`), a named seat's (`name`), or a
 * block of the shared sea whose owner the reader does not know (`block`, its
 * number from 1). The phrase carries its preposition, which some languages
 * contract with the article ("nas águas de Ana").
 */
export function watersPhrase({ mine = false, name = null, block = null }) {
  if (mine) return t("log_in_your_waters");
  if (name !== null) return t("log_in_waters_of", { name });
  return t("log_in_block", { n: block });
}
