// Playing with strangers (docs/protocol.md "Public play"): "Play now" and its
// waiting screen, the live list of open public rooms, the leaderboard page,
// finished games in "My games", and ratings beside names.
//
// The server does the pairing, the counting and the rating; this page only
// shows what its frames say and sends the person's choices.

import { presetChoice } from "./fields.js";
import { goHome, render } from "./hooks.js";
import { getLink, send } from "./link.js";
import { nicknameOk } from "./nickfield.js";
import { announce } from "./notify.js";
import { joinCode } from "./room.js";
import { PRESETS, S, presetName } from "./state.js";
import { t, plural, dateTime, LANGUAGES, language } from "./i18n.js";
import { h } from "./dom.js";
import { openReplay } from "./replay.js";

/**
 * How often the home page asks for the open rooms while it shows: a seat
 * count on the list is at most this old (the server does not push changes).
 */
const OPEN_ROOMS_EVERY_MS = 1000;

// ------------------------------------------------------------ quick match

/** "Play now": joins the queue of the preset chosen on the home page. */
export function playNow() {
  if (!nicknameOk()) return;
  S.matching = { preset: S.homePreset, waiting: null, since: Date.now(), offerAt: null, offer: null, busy: null };
  send({ type: "quick_match", preset: S.homePreset });
  announce(t("matching_title"));
  render();
}

/**
 * Closing a connection leaves the queue, so after a reconnection the person
 * waits again (the time already waited keeps counting on the page).
 */
export function resumeMatching() {
  if (S.matching && !S.matching.busy) send({ type: "quick_match", preset: S.matching.preset });
}

/** A frame of the quick match: `matching`, `bot_offer` or `match_cancelled`. */
export function onMatchFrame(frame) {
  const m = S.matching;
  if (frame.type === "match_cancelled") {
    S.matching = null;
    return;
  }
  if (!m || frame.preset !== m.preset) return;
  if (frame.type === "matching") {
    const start = Date.now() - frame.waited_ms;
    if (m.waiting !== frame.waiting) announce(plural("waiting_n", frame.waiting));
    m.waiting = frame.waiting;
    m.since = Math.min(m.since, start);
    m.offerAt = start + frame.bot_offer_ms;
    m.rated = frame.rated;
  } else if (frame.type === "bot_offer") {
    m.offer = frame.level;
    announce(botOfferText(frame.level));
  }
}

/**
 * A refused `cancel_match` or `accept_bot` (`not_matching`), or a request
 * refused because a pairing took the person out of the queue first (`paired`):
 * a pairing crossed the click, and the room's frames are on their way. Returns
 * true when the error is the quick match's and needs no message.
 */
export function onMatchError(frame) {
  if (frame.code !== "not_matching" && frame.code !== "paired") return false;
  if (S.matching && frame.request === "cancel_match") S.matching = null;
  return true;
}

function botOfferText(level) {
  return t("bot_offer_button", { level: t(`level.${level}`).toLocaleLowerCase(language()) });
}

function minutes(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function waitedText() {
  return minutes(Date.now() - S.matching.since);
}

function offerHint() {
  const m = S.matching;
  if (m.offerAt === null) return t("bot_offer_later");
  return t("bot_offer_in", { time: minutes(m.offerAt - Date.now() + 999) });
}

/** The waiting screen: the preset, how many wait, the time waited, Cancel and the bot offer. */
export function renderMatching() {
  const m = S.matching;
  // One answer at a time: the buttons rest until the server has answered the first.
  const answer = (id, busy, type, className, label) =>
    h(
      "button",
      {
        class: `button big ${className}`,
        type: "button",
        id,
        disabled: Boolean(m.busy),
        onclick: () => {
          m.busy = busy;
          send({ type });
          render();
        },
      },
      label,
    );
  const cancel = answer("cancel-match", "cancel", "cancel_match", "", m.busy === "cancel" ? t("cancelling") : `✕ ${t("cancel")}`);
  const offer = m.offer
    ? h(
        "div",
        { class: "bot-offer", id: "bot-offer" },
        h("p", {}, t("bot_offer_text")),
        answer("accept-bot", "bot", "accept_bot", "primary", `🤖 ${botOfferText(m.offer)}`),
      )
    : h("p", { class: "muted", id: "offer-hint", "data-offer-hint": "1" }, offerHint());
  return h(
    "main",
    { class: "matching" },
    h(
      "section",
      { class: "card matching-card", id: "matching", dataset: { preset: m.preset } },
      h("div", { class: "sonar", "aria-hidden": "true" }, h("span", { class: "ping" }), h("span", { class: "ping late" }), h("span", { class: "sonar-icon" }, t(`preset_icon.${m.preset}`))),
      h("h1", {}, t("matching_title")),
      h("p", { class: "matching-preset" }, h("strong", {}, presetName(m.preset)), " — ", t(`preset_blurb.${m.preset}`)),
      h(
        "dl",
        { class: "matching-facts" },
        h("div", {}, h("dt", {}, t("matching_waiting")), h("dd", { id: "matching-waiting" }, m.waiting === null ? "…" : plural("waiting_n", m.waiting))),
        h("div", {}, h("dt", {}, t("matching_waited")), h("dd", { id: "matching-waited", "data-waited": "1" }, waitedText())),
      ),
      ratedNote(m),
      offer,
      h("div", { class: "row-buttons center" }, cancel),
    ),
  );
}

/** Whether the game to come is rated (the `matching` frame says), and for a guest why not. */
function ratedNote(m) {
  if (m.rated === undefined || m.rated === null) return null;
  if (m.rated) return h("p", { class: "tag rated-tag", id: "matching-rated", dataset: { rated: "1" } }, `🏅 ${t("matching_rated")}`);
  return h("p", { class: "notice", id: "matching-rated", dataset: { rated: "0" } }, `🎈 ${t(S.username ? "matching_casual" : "matching_casual_guest")}`);
}

// The clock of the waiting screen, drawn in place every half second.
setInterval(() => {
  if (!S.matching) return;
  const waited = document.querySelector("[data-waited]");
  if (waited) waited.textContent = waitedText();
  const hint = document.querySelector("[data-offer-hint]");
  if (hint) hint.textContent = offerHint();
}, 500);

// ------------------------------------------------------------ open rooms

/** Whether the home page is what the person sees (the open rooms are asked for only then). */
function homeShows() {
  return !S.room && !S.matching && !S.replay && S.page === "home" && !S.pendingJoin;
}

/** Asks for the open rooms now (the home page also asks every few seconds). */
export function askOpenRooms() {
  const link = getLink();
  if (link?.ready && homeShows() && !document.hidden) send({ type: "open_rooms" });
}

setInterval(askOpenRooms, OPEN_ROOMS_EVERY_MS);
// A page coming back into view asks at once rather than showing what it heard before.
document.addEventListener("visibilitychange", askOpenRooms);
window.addEventListener("focus", askOpenRooms);

/** An `open_rooms` frame: the render patches the list, so typing elsewhere on the page is not disturbed. */
export function onOpenRooms(frame) {
  S.openRooms = frame.rooms || [];
}

function languageOf(id) {
  const known = LANGUAGES.find((l) => l.id === id);
  return known ? `${known.flag} ${known.name}` : id || "—";
}

/** The card of the home page that lists the open rooms; one click joins. */
export function openRoomsCard() {
  let body;
  if (S.openRooms === null) body = h("p", { class: "muted" }, t("loading"));
  else if (!S.openRooms.length) body = h("p", { class: "muted", id: "no-open-rooms" }, t("no_open_rooms"));
  else
    body = h(
      "ul",
      { class: "open-room-list" },
      S.openRooms.map((room) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: "open-room",
              id: `open-room-${room.code}`,
              dataset: { code: room.code, preset: room.preset },
              onclick: () => joinCode(room.code),
            },
            h("span", { class: "open-room-preset" }, h("span", { "aria-hidden": "true" }, t(`preset_icon.${room.preset}`)), " ", h("strong", {}, presetName(room.preset))),
            h(
              "span",
              { class: "open-room-seats", title: plural("seats_taken", room.taken, { total: room.seats }) },
              h("span", { class: "seat-dots", "aria-hidden": "true" }, Array.from({ length: room.seats }, (_, i) => h("span", { class: i < room.taken ? "taken" : "" }))),
              h("span", { class: "sr-only" }, plural("seats_taken", room.taken, { total: room.seats })),
              h("span", { "aria-hidden": "true" }, ` ${room.taken}/${room.seats}`),
            ),
            h(
              "span",
              { class: "open-room-host" },
              room.host ? t("hosted_by", { name: room.host }) : "",
              room.spectators_see_all ? h("span", { class: "tag vision-tag", title: t("opt_spectators_see_all_hint") }, ` 👁 ${t("opt_spectators_see_all")}`) : null,
            ),
            h("span", { class: "open-room-lang" }, languageOf(room.language)),
            room.rated ? h("span", { class: "tag rated-tag" }, `🏅 ${t("rated")}`) : h("span", {}),
            h("span", { class: "open-room-join" }, `${t("join")} →`),
          ),
        ),
      ),
    );
  return h(
    "section",
    { class: "card open-rooms", id: "open-rooms" },
    h("h2", {}, "🌐 ", t("open_rooms")),
    h("p", { class: "muted small" }, t("open_rooms_hint")),
    body,
  );
}

// ------------------------------------------------------------ ratings

/** A rating as shown everywhere: "1662", or "1662?" while it is provisional. */
export function ratingText(rating, provisional) {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

/**
 * The rating beside a person's name in a room (null for bots and open seats).
 * "Unrated" is said only in a rated room, where it matters; elsewhere a person
 * without a rating in the preset shows nothing.
 */
export function ratingChip(seat) {
  if (seat.kind !== "person" || seat.rating === undefined) return null;
  if (seat.rating === null) return S.room?.setup?.rated ? h("span", { class: "rating unrated", title: t("unrated_hint") }, t("unrated")) : null;
  return h(
    "span",
    { class: `rating ${seat.provisional ? "provisional" : ""}`, title: seat.provisional ? t("provisional_hint") : t("rating") },
    `★ ${ratingText(seat.rating, seat.provisional)}`,
    seat.provisional ? h("span", { class: "sr-only" }, ` (${t("provisional")})`) : null,
  );
}

// ------------------------------------------------------------ leaderboard

/** Opens the leaderboard page of a preset (reachable from the home page). */
export function openLeaderboard(preset = S.leaderboard?.preset || S.homePreset) {
  S.page = "leaderboard";
  S.leaderboard = { preset, players: S.leaderboard?.preset === preset ? S.leaderboard.players : null };
  send({ type: "leaderboard", preset });
  const url = `/#leaderboard/${preset}`;
  if (`${location.pathname}${location.hash}` !== url) history.pushState({}, "", url);
  document.title = `${t("app_name")} · ${t("leaderboard")}`;
  render();
}

/** The preset a `#leaderboard/<preset>` address names, or null when the address is not the leaderboard's. */
export function leaderboardFromHash() {
  const match = location.hash.match(/^#leaderboard(?:\/(\w+))?$/);
  if (!match) return null;
  return PRESETS.includes(match[1]) ? match[1] : S.homePreset;
}

export function onLeaderboard(frame) {
  if (S.leaderboard && frame.preset === S.leaderboard.preset) S.leaderboard.players = frame.players || [];
}

export function renderLeaderboard() {
  const board = S.leaderboard;
  const picker = presetChoice({
    chosen: board.preset,
    groupClass: "preset-pills",
    itemClass: "pill",
    onPick: (id) => openLeaderboard(id),
    content: (id) => [h("span", { "aria-hidden": "true" }, t(`preset_icon.${id}`)), " ", presetName(id)],
  });
  let body;
  if (board.players === null) body = h("p", { class: "muted" }, t("loading"));
  else if (!board.players.length) body = h("p", { class: "muted", id: "leaderboard-empty" }, t("leaderboard_empty", { preset: presetName(board.preset) }));
  else
    body = h(
      "table",
      { class: "stats leaderboard-table", id: "leaderboard-table" },
      h(
        "thead",
        {},
        h("tr", {}, ["lb_rank", "lb_player", "rating", "lb_games", "lb_wins"].map((key) => h("th", { scope: "col" }, t(key)))),
      ),
      h(
        "tbody",
        {},
        board.players.map((p, i) =>
          h(
            "tr",
            // "You" is the account's line: a line's nickname is its username.
            { class: S.username && p.nickname.toLowerCase() === S.username.toLowerCase() ? "me" : "" },
            h("td", { class: "lb-rank" }, i < 3 ? ["🥇", "🥈", "🥉"][i] : String(i + 1)),
            h("th", { scope: "row", class: "lb-name" }, p.nickname),
            h(
              "td",
              { class: "lb-rating", title: p.provisional ? t("provisional_hint") : t("deviation", { n: Math.round(p.deviation) }) },
              ratingText(p.rating, p.provisional),
              p.provisional ? h("span", { class: "sr-only" }, ` (${t("provisional")})`) : null,
            ),
            h("td", {}, String(p.games)),
            h("td", {}, String(p.wins)),
          ),
        ),
      ),
    );
  return h(
    "main",
    { class: "leaderboard" },
    h(
      "section",
      { class: "card leaderboard-card" },
      h("h1", {}, "🏆 ", t("leaderboard")),
      h("p", { class: "muted" }, t("leaderboard_hint")),
      picker,
      body,
      h("p", { class: "muted small" }, t("provisional_note")),
      h("div", { class: "row-buttons center" }, h("button", { class: "button", type: "button", id: "leaderboard-home", onclick: goHome }, `⚓ ${t("back_home")}`)),
    ),
  );
}

// ------------------------------------------------------------ finished games

function resultText(game) {
  if (game.result === "win") return `🏆 ${t("history_win")}`;
  if (game.result === "loss") return t("history_loss");
  if (game.result === "draw") return `🤝 ${t("history_draw")}`;
  const placing = Number(String(game.result).replace(/\D/g, "")) || game.placing;
  return plural("place_ordinal", placing, {}, { ordinal: true });
}

function ratingChange(game) {
  if (game.rating_change === null || game.rating_change === undefined) return h("span", { class: "muted" }, t("history_unrated"));
  const change = Math.round(game.rating_change);
  const signed = change > 0 ? `+${change}` : change < 0 ? `−${-change}` : "±0";
  return h(
    "span",
    { class: `rating-change ${change > 0 ? "up" : change < 0 ? "down" : ""}`, title: t("rating") },
    h("strong", {}, signed),
    game.rating !== null ? ` → ${Math.round(game.rating)}` : "",
  );
}

/** The finished games of "My games" (`history`), newest first, each with its replay. */
export function historyList() {
  if (S.history === null) return h("p", { class: "muted" }, t("loading"));
  if (!S.history.length) return h("p", { class: "muted" }, t("no_finished_games"));
  return h(
    "ul",
    { class: "games history", id: "history" },
    S.history.map((game) =>
      h(
        "li",
        { dataset: { game: String(game.id) } },
        h("span", { class: "game-preset" }, presetName(game.preset)),
        opponentsText(game) ? h("span", { class: "game-opponents" }, opponentsText(game)) : null,
        h("span", { class: `game-result result-${String(game.result).split(" ")[0]}` }, resultText(game)),
        ratingChange(game),
        h("span", { class: "game-date muted" }, dateTime(game.finished_at)),
        replayLink(game.id, game.replay),
      ),
    ),
  );
}

/**
 * Who the person played against ("vs Ana, Easy bot"), when the history entry
 * says: its `players` (as in `my_games`) without the person's own `seat`.
 * The server's `history` frame does not carry them yet (docs/protocol.md).
 */
function opponentsText(game) {
  if (!Array.isArray(game.players)) return null;
  const names = game.players
    .filter((p) => p.seat !== game.seat && p.kind !== "open")
    .map((p) => (p.kind === "bot" ? t("bot_named", { level: t(`level.${p.level || "medium"}`) }) : p.nickname || "?"));
  return names.length ? t("history_vs", { names: names.join(", ") }) : null;
}

/** A link to a replay: a real link (a new tab works), opened in place on a plain click. */
export function replayLink(id, href = `/g/${id}`) {
  return h(
    "a",
    {
      class: "button small replay-link",
      href,
      onclick: (e) => {
        if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        openReplay(id);
      },
    },
    `🎞 ${t("replay")}`,
  );
}
