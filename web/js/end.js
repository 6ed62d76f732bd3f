// The end of a game: who won, the statistics and heat maps, the rematch offer,
// the replay link, and every board revealed.

import { plural, t } from "./i18n.js";
import { h } from "./dom.js";
import { boardScroller } from "./board.js";
import { heatMaps, statsTable } from "./stats.js";
import { renderOwnBoard, renderSide } from "./battle.js";
import { goHome } from "./hooks.js";
import { send } from "./link.js";
import { personButton } from "./moderation.js";
import { ratingChip } from "./public.js";
import { S, mySeat, seatName } from "./state.js";
import { isShared, seaSize } from "./view.js";

/**
 * The statistics of a duel worked out from the final boards, for a server
 * that sends no `stats` (every shot at a board is the one opponent's). With
 * three or more seats the boards cannot say who shot, so there is none.
 */
function statsFromBoards(view) {
  if (view.seats.length !== 2) return null;
  return view.seats.map((seat) => {
    const board = view.boards.find((b) => b.owner !== seat.seat);
    let shots = 0;
    let hits = 0;
    for (const row of board.rows) {
      for (const ch of row) {
        if ("OX#?+".includes(ch)) shots += 1;
        if ("X#?".includes(ch)) hits += 1;
      }
    }
    return { seat: seat.seat, shots, hits, sunk: view.seats[board.owner]?.sunk.length || 0, cells: [] };
  });
}

/** The game of this room in the person's history: the newest entry with the room's code. */
function finishedGameId() {
  const game = (S.history || []).find((g) => g.code === S.room?.code);
  return game ? game.id : null;
}

export function renderEnd() {
  const view = S.view;
  const me = mySeat();
  const winners = view.winner || [];
  const won = me !== null && winners.includes(me);
  let title;
  if (view.draw) title = t("end_draw");
  else if (me === null) title = t("end_winner", { name: winners.map(seatName).join(", ") });
  else title = won ? t("end_won") : t("end_lost", { name: winners.map(seatName).join(", ") });
  const stats = S.stats || statsFromBoards(view);
  const replayId = finishedGameId();
  const boards = view.boards.map((b, index) => {
    const board = renderOwnBoard(index);
    const size = seaSize(index);
    // A field much wider than tall (space) gets a row of its own rather than half of one.
    board.classList.toggle("wide", size.cols > size.rows * 1.5);
    return h("section", { class: "board-card" }, h("h2", {}, isShared() ? t("shared_sea") : index === me ? t("your_waters") : t("board_of", { name: seatName(index) })), isShared() ? boardScroller(board, "sea") : board);
  });
  return h(
    "main",
    { class: "game end" },
    h(
      "section",
      { class: `end-card card ${won ? "won" : view.draw ? "draw" : "lost"}`, id: "end-card" },
      h("div", { class: "end-emblem", "aria-hidden": "true" }, won ? "🏆" : view.draw ? "🤝" : me === null ? "⚓" : "🌊"),
      h("h1", { id: "end-title", tabindex: "-1" }, title),
      me !== null ? h("p", { class: "muted" }, plural("your_rounds", view.round || 0)) : null,
      // A rated game's new ratings come with the room frame of its end.
      // On a phone the table may be wider than the card: it scrolls sideways in its box, by keyboard too.
      stats ? h("div", { class: "stats-scroll", tabindex: "0", role: "region", "aria-label": t("stats_label") }, statsTable(stats, view, seatName, (seat) => ratingChip(S.room.seats.find((s) => s.seat === seat) || {}))) : null,
      me !== null ? rematchOffer() : null,
      h(
        "div",
        { class: "row-buttons center" },
        me !== null && !S.room.rematch ? h("button", { class: "button primary big", type: "button", id: "rematch", onclick: () => send({ type: "rematch" }) }, `🔁 ${t("rematch")}`) : null,
        h("button", { class: "button big", type: "button", id: "home", onclick: goHome }, `⚓ ${t("back_home")}`),
        // The replay opens beside the room, which stays ready for a rematch.
        replayId !== null ? h("a", { class: "button big", id: "end-replay", href: `/g/${replayId}`, target: "_blank", rel: "noopener" }, `🎞 ${t("replay")}`) : null,
      ),
      S.stats ? heatMaps(S.stats, view, seatName, t("heat_title"), me) : null,
      endPeople(),
    ),
    h("div", { class: "play-area" }, h("div", { class: "boards reveal" }, boards), renderSide()),
  );
}

/** The other people of the game, each with the "⋯" that blocks or reports them (moderation.js). */
function endPeople() {
  const people = S.room.seats
    .map((seat) => [seat.seat, personButton(seat.seat, "end")])
    .filter(([, button]) => button)
    .map(([seat, button]) => h("li", {}, h("span", { class: "end-person-name" }, seatName(seat)), button));
  if (!people.length) return null;
  return h("div", { class: "end-people", id: "end-people" }, h("span", { class: "muted" }, t("end_people")), h("ul", {}, people));
}

export function rematchNoteText(note) {
  const key = { left: "rematch_left", withdrawn: "rematch_withdrawn" }[note.reason] || "rematch_declined";
  return t(key, { name: note.nickname || seatName(note.seat) });
}

/**
 * The rematch offer on the end screen (docs/protocol.md, `rematch`): the
 * others' offer to accept or decline, this seat's own offer waiting for the
 * others, or why the last offer was withdrawn. The server starts the new game
 * once every person has accepted.
 */
function rematchOffer() {
  const offer = S.room.rematch;
  if (!offer) return S.rematchNote ? h("p", { class: "rematch-note", id: "rematch-note", role: "status" }, rematchNoteText(S.rematchNote)) : null;
  const waiting = offer.waiting.map(seatName).join(", ");
  if (offer.accepted.includes(mySeat())) {
    return h(
      "div",
      { class: "rematch-offer mine", id: "rematch-offer", role: "status" },
      h("span", { class: "spinner", "aria-hidden": "true" }),
      h("span", { id: "rematch-waiting" }, t(offer.from === mySeat() ? "rematch_asked" : "rematch_you_accepted", { names: waiting })),
      h("button", { class: "button small ghost", type: "button", id: "rematch-withdraw", onclick: () => send({ type: "decline_rematch" }) }, t("rematch_withdraw")),
    );
  }
  return h(
    "div",
    { class: "rematch-offer", id: "rematch-offer", role: "status" },
    h("strong", { id: "rematch-from" }, `🔁 ${t("rematch_offer", { name: seatName(offer.from) })}`),
    h("button", { class: "button primary", type: "button", id: "rematch-accept", onclick: () => send({ type: "rematch" }) }, t("rematch_accept")),
    h("button", { class: "button", type: "button", id: "rematch-decline", onclick: () => send({ type: "decline_rematch" }) }, t("rematch_decline")),
  );
}
