// Broadside in the browser: the entry of the page, and (still) its screens: the
// home page, the room, the battle and the end. The state, the link, the
// notices and the shared sea's readers live in modules of their own, which
// never import this one: they redraw and go home through hooks.js, which this
// module fills at start-up.
//
// The server is authoritative. This client renders the view frames it receives
// and sends intents; it never decides what is legal (placement previews ask the
// server with check_layout, shots are refused by the server with an error code).

import { LANGUAGES, entry, errorText, initialLanguage, language, plural, setLanguage, t } from "./i18n.js";
import { h } from "./dom.js";
import { boardScroller, buildBoard, buildShip, cellLabel, gridKeys, hullMap } from "./board.js";
import { nicknameProblem } from "./nickname.js";
import { sound } from "./sound.js";
import { eventsWords } from "./words.js";
import { heatMaps, statsTable } from "./stats.js";
import { banner } from "./banner.js";
import { numberField, presetChoice, toggle } from "./fields.js";
import { registerHooks } from "./hooks.js";
import { connect, getLink, send } from "./link.js";
import { nicknameField, nicknameOk, setNickname } from "./nickfield.js";
import { announce, showingScreen, toast } from "./notify.js";
import { renderPlacement, resetPlacement } from "./placement.js";
import { askOpenRooms, historyList, leaderboardFromHash, onLeaderboard, onMatchError, onMatchFrame, onOpenRooms, openLeaderboard, openRoomsCard, playNow, ratingChip, renderLeaderboard, renderMatching, resumeMatching } from "./public.js";
import { closeReplay, openReplay, renderReplay, replayIdFromPath } from "./replay.js";
import { codeFromPath, joinCode, knownRooms, onRoom, rejoin } from "./room.js";
import { renderShop, resetShop } from "./shop.js";
import { LEVELS, NICK_KEY, PRESETS, S, label, mySeat, presetName, rules, seatName, shipTypeName, stored } from "./state.js";
import { blockIndexAt, blockRole, blockTitle, boardMark, cellIsTarget, decorateBlocks, isMate, isShared, isSpace, looksTargetable, myTurn, originOf, ownBoardIndex, perVolley, seaSize, showOwnBlock, waterName } from "./view.js";

// How far each room's chat has been read: the time of the last message shown,
// by room code, so a reload counts no message twice.
const CHAT_READ_KEY = "broadside.chat_read";

const app = document.getElementById("app");

// The tests reach the page's link through this module (newcomer.test.js).
export { getLink };

function isHost() {
  return S.room && S.room.you && S.room.you.seat !== null && S.room.host === S.room.you.seat;
}

function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      S.nickname = frame.nickname || S.nickname;
      if (S.nickname) localStorage.setItem(NICK_KEY, S.nickname);
      rejoin();
      resumeMatching();
      send({ type: "my_games" });
      send({ type: "history" });
      if (S.page === "leaderboard" && S.leaderboard) send({ type: "leaderboard", preset: S.leaderboard.preset });
      askOpenRooms();
      break;
    case "room":
      onRoom(frame.room);
      break;
    case "state":
      onState(frame);
      break;
    case "chat":
      S.chat.push(frame);
      // A join replays the last messages: those read before are not news.
      if (frame.seat !== mySeat() && !(frame.at <= (chatRead()[S.room?.code] || 0))) {
        if (!chatShown()) S.unreadChat += 1;
        announce(`${frame.from}: ${frame.text}`);
      }
      break;
    case "rematch_declined":
      S.rematchNote = frame;
      toast(rematchNoteText(frame));
      announce(rematchNoteText(frame));
      break;
    case "left":
    case "pong":
      return;
    case "games":
      S.myGames = frame.games || [];
      break;
    case "history":
      S.history = frame.games || [];
      break;
    case "matching":
    case "bot_offer":
    case "match_cancelled":
      onMatchFrame(frame);
      break;
    case "open_rooms":
      // Redrawn in place: a full redraw every few seconds would disturb typing.
      onOpenRooms(frame);
      return;
    case "leaderboard":
      onLeaderboard(frame);
      break;
    case "action_area":
      onActionArea(frame);
      return;
    case "error":
      onError(frame);
      break;
    default:
      break;
  }
  render();
}

function onState(frame) {
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
    // resolution although the person sent none this round (R-6.3).
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

function onError(frame) {
  if (onMatchError(frame)) return;
  if (frame.request === "create_room" || frame.request === "start") {
    // The lobby shows what went wrong; its start button is there to try again.
    S.autoStart = false;
    S.starting = null;
  }
  // Dropped frames are never answered: previews still waiting are asked again.
  if (frame.code === "rate_limited") areas.asked.clear();
  if (frame.request === "command" && S.reserveSent && ["not_targetable", "wrong_shot_count", "duplicate_target", "out_of_bounds"].includes(frame.code)) {
    // The fighters could not land on the chosen cells: say why and let the person pick again.
    S.reserveSent = null;
    if (S.salvoAction?.kind === "reserve") S.salvoAction = null;
    S.reserve = [];
    toast(t("reserve_refused"), "error");
    announce(t("reserve_refused"));
    return;
  }
  if (frame.request === "preview_action") {
    // A preview the server would not measure: ask again on the next hover.
    areas.asked.clear();
    return;
  }
  // A refused check is shown on the board by whoever asked (the link released it).
  if (frame.request === "check_layout") return;
  if (frame.request === "hello") {
    // The link said hello again with the last accepted name (its welcome
    // puts it back in use): the name field keeps the refused one and says why.
    if (S.nickname !== getLink().nickname) S.nickDraft = S.nickname;
    S.nickProblem = "nick_refused";
    return;
  }
  if (frame.code === "room_full" && S.pendingJoin) {
    // Every seat is taken: watch instead, which is what a late guest wants.
    const code = S.pendingJoin;
    S.pendingJoin = null;
    toast(t("room_full_watching"), "info", { next: true });
    send({ type: "join_room", code, as: "spectator" });
    return;
  }
  // Whether the toast is about the screen that comes next.
  let next = false;
  if (frame.code === "room_not_found" && S.pendingJoin) {
    S.pendingJoin = null;
    // An invitation to a room that is gone: the home page comes next.
    next = S.invite !== null;
    S.invite = null;
    if (codeFromPath()) history.replaceState({}, "", "/");
  }
  toast(errorText(frame.code, frame.message), "error", { next });
  announce(errorText(frame.code, frame.message));
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

function renderHeader() {
  const status = h("span", { class: `net net-${S.status}`, title: t(`net_${S.status}`) }, h("span", { class: "dot" }), h("span", { class: "net-text" }, t(`net_${S.status}`)));
  const current = LANGUAGES.find((l) => l.id === language()) || LANGUAGES[0];
  // On a phone the select is drawn as its flag and code (the full names do not
  // fit the header); it stays the real select, so the list shows every name.
  const langSelect = h(
    "label",
    { class: "lang-picker" },
    h("span", { class: "lang-short", "aria-hidden": "true" }, `${current.flag} ${current.id.toUpperCase()} ▾`),
    h(
      "select",
      {
        class: "lang",
        "aria-label": t("language"),
        onchange: async (e) => {
          await setLanguage(e.target.value, true);
          render();
        },
      },
      LANGUAGES.map((l) => h("option", { value: l.id, selected: l.id === language() }, `${l.flag} ${l.name}`)),
    ),
  );
  const soundButton = h(
    "button",
    {
      class: "icon-button",
      type: "button",
      "aria-pressed": String(!sound.muted),
      title: sound.muted ? t("sound_off") : t("sound_on"),
      "aria-label": sound.muted ? t("sound_off") : t("sound_on"),
      onclick: () => {
        sound.toggle();
        render();
      },
    },
    sound.muted ? "🔇" : "🔊",
  );
  const rulesButton = h("button", { class: "icon-button", type: "button", id: "rules-button", onclick: () => openRules(), title: t("rules"), "aria-label": t("rules") }, "📖");
  // The leaderboard is one click away wherever no game needs the person.
  const boardButton = S.room || S.matching
    ? null
    : h("button", { class: "icon-button", type: "button", id: "header-leaderboard", onclick: () => openLeaderboard(), title: t("leaderboard"), "aria-label": t("leaderboard") }, "🏆");
  const brand = h(
    "a",
    {
      class: "brand",
      href: "/",
      onclick: (e) => {
        e.preventDefault();
        goHome();
      },
    },
    h("span", { class: "brand-mark", "aria-hidden": "true" }, "⚓"),
    h("span", { class: "brand-name" }, t("app_name")),
  );
  const roomChip = S.room ? h("span", { class: "room-chip", title: t("room_code") }, `# ${S.room.code}`) : null;
  return h("header", { class: "top" }, brand, roomChip, h("div", { class: "spacer" }), status, boardButton, rulesButton, soundButton, langSelect);
}

/** Leaves the room (or the page on show) for the home page. */
function goHome() {
  if (S.room) send({ type: "leave" });
  closeReplay();
  if (S.invite) {
    // The invitation is declined: the home page offers the name in use.
    S.invite = null;
    S.nickDraft = null;
    S.nickProblem = null;
  }
  S.autoStart = false;
  S.starting = null;
  S.page = "home";
  S.room = null;
  S.view = null;
  S.log = [];
  S.chat = [];
  resetPlacement();
  resetShop();
  history.pushState({}, "", "/");
  document.title = t("app_name");
  send({ type: "my_games" });
  send({ type: "history" });
  render();
  askOpenRooms();
}

// A bot never keeps anyone waiting: a game against one has no clocks unless
// the player sets them in the lobby ("Choose the options first").
const BOT_GAME_CLOCKS = { turn_seconds: 0, round_seconds: 0, place_seconds: 0, shop_seconds: 0 };

// Presets whose bot game still opens in the lobby, because there is something
// to choose there: the shared sea is a game of not knowing whose waters are
// whose, which wants three or more players, so its lobby asks how many. The
// others go straight to placement (space to its shop, which is its choice).
const BOT_LOBBY_PRESETS = ["shared"];

function createRoom(withBot, { lobby = false } = {}) {
  if (!nicknameOk()) return;
  S.autoStart = withBot && !lobby && !BOT_LOBBY_PRESETS.includes(S.homePreset);
  send({
    type: "create_room",
    preset: S.homePreset,
    seats: 2,
    options: withBot ? { ...BOT_GAME_CLOCKS } : {},
    teams: null,
    bots: withBot ? [{ seat: 1, level: S.homeLevel }] : [],
    // A bot game is private and unrated; a friend room is what the home page's switches say.
    public: !withBot && S.homePublic,
    rated: !withBot && S.homeRated,
  });
}

function playerName(p) {
  if (typeof p === "string") return p;
  if (p.kind === "bot") return `🤖 ${t(`level.${p.level || "medium"}`)}`;
  if (p.kind === "open") return t("open_seat");
  return p.nickname || "?";
}

function renderHome() {
  const presets = presetChoice({
    chosen: S.homePreset,
    groupClass: "preset-picker",
    itemClass: "preset-card",
    onPick: (id) => {
      S.homePreset = id;
      localStorage.setItem("broadside.preset", id);
      render();
    },
    content: (id) => [
      h("span", { class: "preset-flag", "aria-hidden": "true" }, t(`preset_icon.${id}`)),
      h("strong", {}, presetName(id)),
      h("span", { class: "preset-blurb" }, t(`preset_blurb.${id}`)),
    ],
  });
  const level = h(
    "select",
    {
      class: "select",
      id: "bot-level",
      "aria-label": t("bot_level"),
      onchange: (e) => {
        S.homeLevel = e.target.value;
        localStorage.setItem("broadside.level", S.homeLevel);
      },
    },
    LEVELS.map((l) => h("option", { value: l, selected: l === S.homeLevel }, t(`level.${l}`))),
  );
  const codeInput = h("input", {
    id: "join-code",
    class: "text-input code-input",
    maxlength: "12",
    placeholder: "K7QM2P",
    "aria-label": t("room_code"),
    value: S.joinCode,
    oninput: (e) => {
      S.joinCode = e.target.value;
    },
    onkeydown: (e) => {
      if (e.key === "Enter") joinCode(S.joinCode);
    },
  });
  const games = S.myGames && S.myGames.length
    ? h(
        "ul",
        { class: "games" },
        S.myGames.map((g) =>
          h(
            "li",
            {},
            h("span", { class: "game-preset" }, presetName(g.preset)),
            h("span", { class: "game-players" }, (g.players || []).map(playerName).join(" · ")),
            h("span", { class: "game-phase" }, g.your_turn ? `🎯 ${t("your_turn_short")}` : t(`phase.${g.phase}`)),
            h("button", { class: "button small", type: "button", onclick: () => joinCode(g.code) }, t("continue")),
          ),
        ),
      )
    : h("p", { class: "muted" }, S.myGames ? t("no_games") : t("loading"));
  const playNowButton = h(
    "button",
    { class: "button big play-now", type: "button", id: "play-now", onclick: playNow },
    h("span", { "aria-hidden": "true" }, "⚡"),
    " ",
    t("play_now"),
    h("small", { class: "play-now-preset" }, ` · ${presetName(S.homePreset)}`),
  );

  return h(
    "main",
    { class: "home" },
    h(
      "section",
      { class: "hero" },
      h("div", { class: "hero-waves", "aria-hidden": "true" }),
      h("h1", {}, t("app_name")),
      h("p", { class: "tagline" }, t("tagline")),
      nicknameField(),
      h("div", { class: "play-now-row" }, playNowButton, h("p", { class: "play-now-hint" }, t("play_now_hint"))),
    ),
    h("section", { class: "card presets-card" }, h("h2", {}, t("choose_preset")), presets),
    h(
      "section",
      { class: "actions" },
      h(
        "div",
        { class: "card action" },
        h("div", { class: "action-icon", "aria-hidden": "true" }, "🤖"),
        h("h2", {}, t("play_bot")),
        h("p", { class: "muted" }, t("play_bot_hint")),
        h("label", { class: "inline-label", for: "bot-level" }, t("bot_level")),
        level,
        h("button", { class: "button primary", type: "button", id: "play-bot", onclick: () => createRoom(true) }, t("play_bot")),
        BOT_LOBBY_PRESETS.includes(S.homePreset)
          ? null
          : h("button", { class: "button small ghost", type: "button", id: "play-bot-setup", onclick: () => createRoom(true, { lobby: true }) }, `⚙ ${t("play_bot_setup")}`),
      ),
      h(
        "div",
        { class: "card action" },
        h("div", { class: "action-icon", "aria-hidden": "true" }, "🤝"),
        h("h2", {}, t("play_friend")),
        h("p", { class: "muted" }, t("play_friend_hint")),
        toggle("home-public", t("room_public"), S.homePublic, (v) => { S.homePublic = v; }, false, t("room_public_hint")),
        toggle("home-rated", t("room_rated"), S.homeRated, (v) => { S.homeRated = v; }, false, t("room_rated_hint")),
        h("button", { class: "button primary", type: "button", id: "play-friend", onclick: () => createRoom(false) }, t("play_friend")),
      ),
      h(
        "div",
        { class: "card action" },
        h("div", { class: "action-icon", "aria-hidden": "true" }, "🔑"),
        h("h2", {}, t("join_code")),
        h("p", { class: "muted" }, t("join_code_hint")),
        codeInput,
        h(
          "div",
          { class: "row-buttons" },
          h("button", { class: "button primary", type: "button", id: "join", onclick: () => joinCode(S.joinCode) }, t("join")),
          h("button", { class: "button", type: "button", onclick: () => joinCode(S.joinCode, "spectator") }, t("watch")),
        ),
      ),
    ),
    openRoomsCard(),
    h(
      "section",
      { class: "card my-games" },
      h("h2", {}, t("my_games")),
      h("h3", {}, t("games_in_progress")),
      games,
      h("h3", {}, t("games_finished")),
      historyList(),
    ),
    h(
      "section",
      { class: "home-rules" },
      h("button", { class: "button ghost", type: "button", id: "open-leaderboard", onclick: () => openLeaderboard() }, "🏆 ", t("leaderboard")),
      h("button", { class: "button ghost", type: "button", onclick: () => openRules() }, "📖 ", t("read_rules")),
    ),
  );
}

/** The name the guest typed is kept, then the room is joined (as a player, or to watch). */
function acceptInvite(as = "player") {
  if (!nicknameOk()) return;
  if (S.nickDraft !== null) setNickname(S.nickDraft);
  S.inviteAccepted = true;
  if (as === "spectator") history.replaceState({}, "", `${location.pathname}?watch`);
  // While a new name is told with a fresh hello, its welcome joins (rejoin).
  if (getLink().ready) rejoin();
  render();
}

/** An invitation link: the guest chooses the name the others will see, then takes a seat. */
function renderInvite() {
  const joining = S.inviteAccepted;
  return h(
    "main",
    { class: "invite-page" },
    h(
      "form",
      {
        class: "card invite",
        onsubmit: (e) => {
          e.preventDefault();
          acceptInvite();
        },
      },
      h("h1", {}, t("invite_title")),
      h("div", { class: "code-big", "aria-label": t("room_code") }, S.invite.split("").map((ch) => h("span", {}, ch))),
      h("p", { class: "muted" }, t("invite_name_hint")),
      nicknameField(),
      h(
        "div",
        { class: "row-buttons center" },
        h("button", { class: "button primary big", type: "submit", id: "invite-join", disabled: joining }, joining ? t("loading") : `⚓ ${t("join")}`),
        h("button", { class: "button", type: "button", id: "invite-watch", disabled: joining, onclick: () => acceptInvite("spectator") }, `👁 ${t("watch")}`),
      ),
    ),
  );
}

function optionsOf(room) {
  return { ...(room.setup?.options || {}) };
}

function setOptions(change, extra = {}) {
  const room = S.room;
  const options = { ...optionsOf(room), ...change };
  for (const [key, value] of Object.entries(options)) if (value === undefined || value === null) delete options[key];
  send({
    type: "set_options",
    preset: extra.preset ?? room.preset,
    seats: extra.seats ?? room.seats.length,
    options: extra.preset && extra.preset !== room.preset ? {} : options,
    teams: teamsFor(extra, room),
  });
}

/** Teams survive an options change while the seat count stays; a new count rebalances them. */
function teamsFor(extra, room) {
  if (extra.teams !== undefined) return extra.teams;
  const current = room.setup?.teams || null;
  const seats = extra.seats ?? room.seats.length;
  if (!current) return null;
  if (seats < 4) return null;
  return current.length === seats ? current : balancedTeams(seats);
}

/** Two teams, seats alternating, so each team has the same size (R-8.1). */
function balancedTeams(seats) {
  return Array.from({ length: seats }, (_, i) => i % 2);
}

function describeRules(r) {
  const lines = [];
  lines.push(t("desc_board", { cols: r.board.cols, rows: r.board.rows }));
  const counts = new Map();
  for (const index of r.fleet) counts.set(index, (counts.get(index) || 0) + 1);
  const fleet = [...counts.entries()].map(([index, n]) => `${n} × ${shipTypeName(r.catalogue[index].id)} (${r.catalogue[index].shape.cells.length})`);
  if (r.fleet.length) lines.push(t("desc_fleet", { fleet: fleet.join(", ") }));
  else lines.push(plural("desc_space", r.credits, { credits: r.credits }));
  const seats = S.room?.seats?.length || r.seats || 2;
  if (seats > 2) lines.push(plural(r.salvo === "focus" ? "desc_salvo_focus" : "desc_salvo_spread", r.shots_per_opponent));
  if (seats > 2) lines.push(r.round_seconds ? plural("desc_round_timer", r.round_seconds) : t("desc_no_round_timer"));
  if (r.has_teams) lines.push(t("desc_teams", { teams: teamList(r.teams) }));
  if (r.mode === "shared_sea") lines.push(t("desc_shared"));
  if (r.preset === "brasil") lines.push(plural(r.report === "per_volley" ? "desc_hard" : "desc_easy", r.shots_per_turn));
  else lines.push(t(r.hit_again ? "desc_hit_again" : "desc_one_shot"));
  lines.push(t(r.ships_may_touch ? "desc_may_touch" : "desc_no_touch"));
  lines.push(t(r.water_ring ? "desc_ring_on" : "desc_ring_off"));
  if (r.specials) lines.push(t("desc_specials", { wide: r.wide_uses, bombard: r.bombard_uses, radar: r.radar_uses }));
  lines.push(r.turn_seconds ? plural("desc_turn_timer", r.turn_seconds) : t("desc_no_turn_timer"));
  lines.push(r.place_seconds ? plural("desc_place_timer", r.place_seconds) : t("desc_no_place_timer"));
  return lines;
}

function teamList(teams) {
  const groups = new Map();
  teams.forEach((team, seat) => {
    if (!groups.has(team)) groups.set(team, []);
    groups.get(team).push(seatName(seat));
  });
  return [...groups.values()].map((names) => names.join(" + ")).join(" vs ");
}

/** Options of games of three or more, teams, the shared sea and space. */
function multiOptions(room, disabled) {
  const r = room.rules;
  const items = [];
  const seats = room.seats.length;
  if (seats > 2) {
    items.push(
      h(
        "fieldset",
        { class: "radio-row" },
        h("legend", {}, t("opt_salvo")),
        ["spread", "focus"].map((value) =>
          h("label", {}, h("input", { type: "radio", name: "salvo", value, checked: r.salvo === value, disabled, onchange: () => setOptions({ salvo: value }) }), " ", t(`opt_salvo_${value}`)),
        ),
      ),
    );
    items.push(
      h(
        "div",
        { class: "sub-options" },
        numberField("opt-per-opponent", t("opt_shots_per_opponent"), r.shots_per_opponent, 1, 10, (n) => setOptions({ shots_per_opponent: n }), disabled),
        numberField("opt-round", t("opt_round_seconds"), r.round_seconds, 0, 600, (n) => setOptions({ round_seconds: n }), disabled, t("seconds_zero_off")),
      ),
    );
  }
  if (seats >= 4) {
    items.push(
      toggle("opt-teams", t("opt_teams"), r.has_teams, (v) => setOptions({}, { teams: v ? balancedTeams(seats) : null }), disabled, r.has_teams ? teamList(r.teams) : t("opt_teams_hint")),
    );
  }
  if (r.mode === "space") {
    items.push(
      h(
        "div",
        { class: "sub-options" },
        numberField("opt-credits", t("opt_credits"), r.credits, 10, 2000, (n) => setOptions({ credits: n }), disabled),
        numberField("opt-shop", t("opt_shop_seconds"), r.shop_seconds, 0, 1200, (n) => setOptions({ shop_seconds: n }), disabled, t("seconds_zero_off")),
      ),
    );
  }
  items.push(toggle("opt-see-all", t("opt_spectators_see_all"), r.spectators_see_all, (v) => setOptions({ spectators_see_all: v }), disabled, t("opt_spectators_see_all_hint")));
  return items;
}

const CUSTOM_IDS = { 5: "carrier", 4: "battleship", 3: "cruiser", 2: "destroyer", 1: "submarine" };

function currentFleetEntries(r) {
  const counts = new Map();
  for (const index of r.fleet) {
    const len = r.catalogue[index].shape.cells.length;
    counts.set(len, (counts.get(len) || 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[0] - a[0]).map(([len, count]) => ({ len, count }));
}

function fleetOption(entries) {
  // Ids follow the usual names by length so the ships keep translated names.
  return entries.filter((e) => e.count > 0 && e.len > 0).map((e) => ({ id: CUSTOM_IDS[e.len] || `ship${e.len}`, len: e.len, count: e.count }));
}

function renderOptions(room) {
  const r = room.rules;
  const host = isHost();
  const disabled = !host;
  const o = optionsOf(room);
  const items = [];
  items.push(
    h(
      "label",
      { class: "number-field" },
      h("span", {}, t("opt_preset")),
      h(
        "select",
        { class: "select", id: "opt-preset", disabled, onchange: (e) => setOptions({}, { preset: e.target.value, seats: 2 }) },
        PRESETS.map((p) => h("option", { value: p, selected: p === room.preset }, presetName(p))),
      ),
    ),
  );
  if (room.preset !== "brasil") {
    items.push(toggle("opt-hit-again", t("opt_hit_again"), r.hit_again, (v) => setOptions({ hit_again: v }), disabled, t("opt_hit_again_hint")));
  } else {
    items.push(
      h(
        "fieldset",
        { class: "radio-row" },
        h("legend", {}, t("opt_report")),
        ["per_shot", "per_volley"].map((value) =>
          h(
            "label",
            {},
            h("input", { type: "radio", name: "report", value, checked: r.report === value, disabled, onchange: () => setOptions({ report: value }) }),
            " ",
            t(`opt_report_${value}`),
          ),
        ),
      ),
    );
  }
  items.push(toggle("opt-touch", t("opt_may_touch"), r.ships_may_touch, (v) => setOptions({ ships_may_touch: v }), disabled, t("opt_may_touch_hint")));
  // The shared sea never rings sunk ships with water (R-9.5).
  if (r.mode !== "shared_sea") items.push(
    toggle(
      "opt-ring",
      t("opt_water_ring"),
      r.water_ring,
      (v) => setOptions({ water_ring: v }),
      disabled || r.ships_may_touch || r.report === "per_volley",
      t("opt_water_ring_hint"),
    ),
  );
  // Space has its ships' abilities instead of the italia specials.
  if (r.mode !== "space") items.push(toggle("opt-specials", t("opt_specials"), r.specials, (v) => setOptions({ specials: v }), disabled, t("opt_specials_hint")));
  if (r.specials) {
    items.push(
      h(
        "div",
        { class: "sub-options" },
        numberField("opt-wide", t("special.wide"), r.wide_uses, 0, 20, (n) => setOptions({ wide_uses: n }), disabled, t("uses")),
        numberField("opt-bombard", t("special.bombard"), r.bombard_uses, 0, 20, (n) => setOptions({ bombard_uses: n }), disabled, t("uses")),
        numberField("opt-radar", t("special.radar"), r.radar_uses, 0, 20, (n) => setOptions({ radar_uses: n }), disabled, t("uses")),
      ),
    );
  }
  items.push(
    h(
      "div",
      { class: "sub-options" },
      numberField("opt-cols", t("opt_cols"), r.board.cols, 6, 26, (n) => setOptions({ cols: n }), disabled),
      numberField("opt-rows", t("opt_rows"), r.board.rows, 6, 26, (n) => setOptions({ rows: n }), disabled),
    ),
  );
  items.push(
    h(
      "div",
      { class: "sub-options" },
      numberField("opt-turn", t("opt_turn_seconds"), r.turn_seconds, 0, 600, (n) => setOptions({ turn_seconds: n }), disabled, t("seconds_zero_off")),
      numberField("opt-place", t("opt_place_seconds"), r.place_seconds, 0, 1200, (n) => setOptions({ place_seconds: n }), disabled, t("seconds_zero_off")),
    ),
  );
  items.push(...multiOptions(room, disabled));
  if (!r.fleet.length) return h("div", { class: "options" }, items);
  // Custom fleet: counts per ship length. Line ships only (R-10.2); brasil's
  // seaplane is kept unless the host asks for a custom fleet.
  const entries = currentFleetEntries(r);
  const fleetRows = entries.map((entry, i) =>
    h(
      "div",
      { class: "fleet-row" },
      h("span", { class: "fleet-len" }, buildShip(Array.from({ length: Math.min(entry.len, 8) }, (_, x) => [x, 0]), 12)),
      numberField(`opt-fleet-len-${i}`, t("length"), entry.len, 1, 26, (n) => {
        const next = entries.map((e, j) => (j === i ? { ...e, len: n } : e));
        setOptions({ fleet: fleetOption(mergeLengths(next)) });
      }, disabled),
      numberField(`opt-fleet-count-${i}`, t("count"), entry.count, 0, 40, (n) => {
        const next = entries.map((e, j) => (j === i ? { ...e, count: n } : e));
        setOptions({ fleet: fleetOption(next) });
      }, disabled),
    ),
  );
  items.push(
    h(
      "details",
      { class: "custom-fleet", open: o.fleet ? true : undefined },
      h("summary", {}, t("opt_custom_fleet")),
      fleetRows,
      host
        ? h(
            "div",
            { class: "row-buttons" },
            h("button", { class: "button small", type: "button", onclick: () => {
              const used = new Set(entries.map((e) => e.len));
              let len = 1;
              while (used.has(len) && len < 26) len += 1;
              setOptions({ fleet: fleetOption([...entries, { len, count: 1 }]) });
            } }, t("add_ship")),
            o.fleet || o.cols || o.rows ? h("button", { class: "button small ghost", type: "button", onclick: () => setOptions({ fleet: undefined, cols: undefined, rows: undefined }) }, t("reset_fleet")) : null,
          )
        : null,
    ),
  );
  return h("div", { class: "options" }, items);
}

function mergeLengths(entries) {
  const merged = new Map();
  for (const e of entries) merged.set(e.len, (merged.get(e.len) || 0) + e.count);
  return [...merged.entries()].map(([len, count]) => ({ len, count }));
}

function renderLobby() {
  const room = S.room;
  const host = isHost();
  const link = `${location.origin}/r/${room.code}`;
  const copy = h(
    "button",
    {
      class: "button primary",
      type: "button",
      id: "copy-link",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(link);
        } catch {
          document.getElementById("invite-link")?.select();
        }
        S.copied = true;
        toast(t("copied"));
        render();
      },
    },
    S.copied ? `✓ ${t("copied")}` : `📋 ${t("copy_link")}`,
  );
  const seats = room.seats.map((seat) => {
    const icon = seat.kind === "bot" ? "🤖" : seat.kind === "person" ? "🧑‍✈️" : "🪑";
    const name = seat.kind === "open" ? t("open_seat") : seat.kind === "bot" ? seatName(seat.seat) : seat.nickname;
    const you = seat.seat === room.you?.seat;
    let control = null;
    if (host && seat.kind !== "person") {
      control = h(
        "select",
        {
          class: "select small",
          "aria-label": t("seat_n", { n: seat.seat + 1 }),
          onchange: (e) => {
            const value = e.target.value;
            if (value === "open") send({ type: "set_seat", seat: seat.seat, occupant: "open" });
            else send({ type: "set_seat", seat: seat.seat, occupant: "bot", level: value });
          },
        },
        h("option", { value: "open", selected: seat.kind === "open" }, t("open_seat")),
        LEVELS.map((l) => h("option", { value: l, selected: seat.kind === "bot" && seat.level === l }, `🤖 ${t(`level.${l}`)}`)),
      );
    }
    return h(
      "li",
      { class: `seat seat-${seat.kind} ${you ? "me" : ""}` },
      h("span", { class: "seat-icon", "aria-hidden": "true" }, icon),
      h(
        "span",
        { class: "seat-name" },
        name,
        you ? h("small", { class: "you-tag" }, ` (${t("you")})`) : null,
        seat.seat === room.host ? h("small", { class: "host-tag" }, ` ★ ${t("host")}`) : null,
      ),
      ratingChip(seat),
      seat.kind === "person"
        ? h("span", { class: `presence ${seat.connected ? "on" : "off"}` }, seat.connected ? t("online") : t("away"))
        : null,
      control,
    );
  });
  const maxSeats = room.preset === "brasil" || room.preset === "italia" ? 2 : 6;
  const seatCount = host && maxSeats > 2
    ? h(
        "label",
        { class: "number-field" },
        h("span", {}, t("player_count")),
        h(
          "select",
          { class: "select small", id: "seat-count", onchange: (e) => setOptions({}, { seats: Number(e.target.value) }) },
          [2, 3, 4, 5, 6].map((n) => h("option", { value: n, selected: n === room.seats.length }, String(n))),
        ),
      )
    : null;
  const open = room.seats.some((s) => s.kind === "open");
  const start = host
    ? h(
        "button",
        { class: "button primary big", type: "button", id: "start", disabled: open, onclick: () => send({ type: "start" }) },
        open ? t("waiting_for_players") : `⚓ ${t("start")}`,
      )
    : h("p", { class: "muted waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("waiting_for_host"));
  const setup = room.setup || {};
  // The host decides whether strangers may find the room and whether it counts for ratings.
  const visibility = host
    ? h(
        "div",
        { class: "options room-visibility" },
        toggle("opt-public", t("room_public"), Boolean(setup.public), (v) => send({ type: "set_options", public: v }), false, t("room_public_hint")),
        toggle("opt-rated", t("room_rated"), Boolean(setup.rated), (v) => send({ type: "set_options", rated: v }), false, t("room_rated_hint")),
      )
    : null;
  const badges = [
    setup.public ? h("span", { class: "tag public-tag", id: "room-public" }, `🌐 ${t("room_public")}`) : null,
    setup.rated ? h("span", { class: "tag rated-tag", id: "room-rated" }, `🏅 ${t("rated")}`) : null,
  ].filter(Boolean);
  const spectators = typeof room.spectators === "number" ? h("p", { class: "muted" }, `👁 ${plural("spectators_n", room.spectators)}`) : null;
  return h(
    "main",
    { class: "lobby" },
    h(
      "section",
      { class: "card invite" },
      h("h1", {}, presetName(room.preset)),
      badges.length ? h("p", { class: "room-tags" }, badges) : null,
      h("p", { class: "muted" }, t("invite_hint")),
      h("div", { class: "code-big", "aria-label": t("room_code") }, room.code.split("").map((ch) => h("span", {}, ch))),
      h("div", { class: "invite-row" }, h("input", { id: "invite-link", class: "text-input", readonly: true, value: link, onfocus: (e) => e.target.select() }), copy),
      room.you?.spectator ? h("p", { class: "badge" }, `👁 ${t("you_watch")}`) : null,
      h("div", { class: "row-buttons center" }, h("button", { class: "button small ghost", type: "button", id: "leave", onclick: goHome }, `← ${t("leave_room")}`)),
    ),
    h("section", { class: "card seats-card" }, h("h2", {}, t("seats")), seatCount, h("ul", { class: "seats" }, seats), spectators, visibility, start),
    h(
      "section",
      { class: "card options-card" },
      h("h2", {}, t("rules_of_room")),
      h("ul", { class: "rule-summary" }, describeRules(room.rules).map((line) => h("li", {}, line))),
      host ? h("h3", {}, t("change_options")) : null,
      host ? renderOptions(room) : null,
    ),
    renderChat(true),
  );
}

/** A bot game on its way from "Play vs bot" to its first screen. */
function renderStarting() {
  return h(
    "main",
    { class: "starting" },
    h(
      "section",
      { class: "card invite" },
      h("h1", {}, presetName(S.room.preset)),
      h("p", { class: "muted waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("starting_game")),
    ),
  );
}

function chatRead() {
  const read = stored(CHAT_READ_KEY, {});
  return typeof read === "object" ? read : {};
}

/** Whether the chat is on the screen: the lobby's card, or the side panel's tab in the battle and at the end. */
function chatShown() {
  if (!S.room?.started || !S.view) return true;
  return S.sideTab === "chat" && ["battle", "finished"].includes(S.view.phase);
}

/** Every message of the room so far has been shown: remembered for the next visit or reload. */
function markChatRead() {
  S.unreadChat = 0;
  const code = S.room?.code;
  const last = S.chat.reduce((latest, message) => Math.max(latest, message.at || 0), 0);
  const read = chatRead();
  if (!code || last <= (read[code] || 0)) return;
  delete read[code];
  read[code] = last;
  // The hundred rooms read last are enough.
  for (const old of Object.keys(read).slice(0, -100)) delete read[old];
  localStorage.setItem(CHAT_READ_KEY, JSON.stringify(read));
}

function renderChat(card) {
  const list = h(
    "ol",
    { class: "chat-list", "aria-live": "off" },
    S.chat.map((m) => h("li", { class: m.seat === mySeat() ? "mine" : "" }, h("b", {}, m.from || seatName(m.seat)), " ", m.text)),
  );
  const input = h("input", { class: "text-input", id: "chat-input", maxlength: "300", placeholder: t("chat_placeholder"), "aria-label": t("chat") });
  const form = h(
    "form",
    {
      class: "chat-form",
      onsubmit: (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        send({ type: "chat", text });
        input.value = "";
        S.keepChatFocus = true;
      },
    },
    input,
    h("button", { class: "button small", type: "submit" }, t("send")),
  );
  const box = h("div", { class: "chat" }, list, form);
  markChatRead();
  requestAnimationFrame(() => {
    list.scrollTop = list.scrollHeight;
    if (S.keepChatFocus) {
      document.getElementById("chat-input")?.focus();
      S.keepChatFocus = false;
    }
  });
  return card ? h("section", { class: "card chat-card" }, h("h2", {}, t("chat")), box) : box;
}

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
      h("h3", {}, h("span", {}, seatName(seat.seat), " ", ratingChip(S.room.seats.find((s) => s.seat === seat.seat) || {})), h("span", { class: "afloat" }, t("afloat_n", { n: seat.ships_afloat, total: seat.ships_total }))),
      h("ul", { class: "fleet-list" }, rows),
    );
  });
  return h("div", { class: "fleet-status" }, blocks);
}

function renderSide() {
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
          onclick: () => {
            S.sideTab = id;
            if (id === "chat") S.unreadChat = 0;
            render();
          },
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
  return h("aside", { class: "side card" }, tabBar, h("div", { class: "tab-body", role: "tabpanel" }, body));
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

/**
 * The cells an ability or special covers (R-7.6–R-7.8, R-10.3), as the server's
 * engine computes them (preview_action). Answers are kept for the whole game, so
 * hovering over a cell asked about before is instant; until the answer comes
 * this returns null and the answer redraws the board.
 */
const areas = { scope: null, cells: new Map(), asked: new Set() };

const PREVIEWS_IN_FLIGHT = 8;

function areaKey(action) {
  const at = action.center || action.at || (action.line ? [action.line.column ?? -1, action.line.row ?? -1] : [action.column, -1]);
  return `${action.kind}:${action.board}:${at[0]},${at[1]}`;
}

function areaOf(action) {
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
function onActionArea(frame) {
  const key = areaKey(frame.action);
  areas.cells.set(key, frame.cells);
  areas.asked.delete(key);
  const hover = S.hover && S.special ? areaKey(buildAction(S.special, S.hover.board, S.hover.col, S.hover.row)) : null;
  const chosen = S.salvoAction && S.salvoAction.kind !== "reserve" ? areaKey(S.salvoAction) : null;
  // A redraw also asks for the hovered cell if a full pipeline skipped it.
  const skipped = hover && !areas.cells.has(hover) && !areas.asked.has(hover);
  if (key === hover || key === chosen || skipped) render();
}

/** The opponents a salvo is shared among: their boards, or their blocks in the shared sea. */
function salvoKeys() {
  const view = S.view;
  if (isShared()) return view.blocks.map((_, i) => i).filter((i) => blockRole(i) === "foe");
  return view.boards.map((_, i) => i).filter((i) => i !== mySeat() && !isMate(i) && view.seats[i]?.alive);
}

function keyOfCell(board, col, row) {
  return isShared() ? blockIndexAt(col, row) : board;
}

function boardOfKey(key) {
  return isShared() ? 0 : Number(key);
}

function cellsOfKey(key) {
  const board = boardOfKey(key);
  if (!isShared()) {
    const size = seaSize(board);
    const out = [];
    for (let r = 0; r < size.rows; r += 1) for (let c = 0; c < size.cols; c += 1) out.push([c, r]);
    return out;
  }
  const [c0, r0] = originOf(S.view.blocks[key]);
  const size = S.view.board_size;
  const out = [];
  for (let r = r0; r < r0 + size.rows; r += 1) for (let c = c0; c < c0 + size.cols; c += 1) out.push([c, r]);
  return out;
}

function targetableIn(key, limit) {
  const board = boardOfKey(key);
  let n = 0;
  for (const [c, r] of cellsOfKey(key)) {
    if (looksTargetable(boardMark(board, c, r))) n += 1;
    if (n >= limit) break;
  }
  return n;
}

function actionKey() {
  const a = S.salvoAction;
  if (!a) return null;
  if (isShared() && a.center) return blockIndexAt(a.center[0], a.center[1]);
  return a.board;
}

function focusKey() {
  for (const [key, list] of Object.entries(S.salvo)) if (list.length) return Number(key);
  return null;
}

/** Shots still owed to one opponent, and how many they may take (R-6.3, R-6.5). */
function salvoNeed(key) {
  const per = rules().shots_per_opponent;
  const chosen = (S.salvo[key] || []).length;
  if (rules().salvo === "focus") {
    const total = per * salvoKeys().length;
    if (S.salvoAction) return { chosen, due: 0 };
    const focus = focusKey();
    if (focus !== null && focus !== Number(key)) return { chosen, due: 0 };
    return { chosen, due: targetableIn(key, total) };
  }
  if (S.salvoAction && actionKey() === Number(key)) return { chosen, due: 0 };
  return { chosen, due: targetableIn(key, per) };
}

function salvoComplete() {
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

function salvoTotals() {
  const keys = salvoKeys();
  const chosen = keys.reduce((n, k) => n + (S.salvo[k] || []).length, 0);
  let due;
  if (rules().salvo === "focus") {
    const focus = focusKey();
    due = S.salvoAction ? 0 : focus !== null ? salvoNeed(focus).due : rules().shots_per_opponent * keys.length;
  } else {
    due = keys.reduce((n, k) => n + salvoNeed(k).due, 0);
  }
  return { chosen, due };
}

/** "2 of 3 shots chosen": the noun follows the shots due. */
function salvoCount(totals) {
  return plural("salvo_count", totals.due, { n: totals.chosen, total: totals.due });
}

function toggleSalvoCell(board, col, row) {
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

function submitSalvo() {
  S.salvoSentRound = S.view.round;
  S.reserveSent = S.salvoAction?.kind === "reserve" ? S.salvoAction.cells : null;
  const shots = [];
  for (const [key, cells] of Object.entries(S.salvo)) for (const at of cells) shots.push({ board: boardOfKey(key), at });
  send({ type: "command", command: { cmd: "salvo", shots, action: S.salvoAction || null } });
}

/** The round's results in words, from the events of the frame that resolved it. */
function summarizeRound(events, round, timedOut) {
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

function renderRoundSummary() {
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

function buildAction(kind, board, col, row) {
  if (kind === "bombard") return { kind, board, line: S.bombardAxis === "row" ? { row } : { column: col } };
  if (kind === "laser") return { kind, board, column: col, from: S.laserEnd };
  if (kind === "nuke") return { kind, board, at: [col, row] };
  return { kind, board, center: [col, row] };
}

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
    else if (looksTargetable(mark) && S.volley.length < rules().shots_per_turn) S.volley.push([col, row]);
    else if (!looksTargetable(mark)) toast(t("err.not_targetable"), "error");
    announce(plural("volley_count", rules().shots_per_turn, { n: S.volley.length, total: rules().shots_per_turn }));
    render();
    return;
  }
  if (S.view.salvo_round) {
    toggleSalvoCell(board, col, row);
    return;
  }
  send({ type: "command", command: { cmd: "fire", target: { board, at: [col, row] } } });
}

function submitVolley() {
  send({ type: "command", command: { cmd: "volley", cells: S.volley } });
  S.volley = [];
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

  const preview = (col, row) => {
    S.hover = { board: board.index, col, row };
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
  grid.addEventListener("pointerover", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    const col = Number(cell.dataset.col);
    const row = Number(cell.dataset.row);
    describe(col, row);
    preview(col, row);
  });
  grid.addEventListener("pointerleave", () => {
    S.hover = null;
    for (const el of grid.querySelectorAll(".area:not(.area-set)")) el.classList.remove("area", "laser-end");
  });
  if (S.hover && S.hover.board === board.index) {
    // A redraw under a resting pointer (a frame, an area's answer) keeps its preview.
    const { col, row } = S.hover;
    preview(col, row);
    queueMicrotask(() => describe(col, row));
  }
  grid.addEventListener("focusin", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    describe(Number(cell.dataset.col), Number(cell.dataset.row));
    preview(Number(cell.dataset.col), Number(cell.dataset.row));
  });
  grid.addEventListener("click", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    const col = Number(cell.dataset.col);
    const row = Number(cell.dataset.row);
    S.cursor = { board: board.index, col, row };
    fireAt(board.index, col, row);
  });
  gridKeys(grid, size, {
    move: (col, row) => {
      S.cursor = { board: board.index, col, row };
      describe(col, row);
      preview(col, row);
    },
    pick: (col, row) => {
      S.cursor = { board: board.index, col, row };
      fireAt(board.index, col, row);
    },
    other: (e, col, row) => {
      if ((e.key === "r" || e.key === "R") && (S.special === "bombard" || S.special === "laser")) {
        if (S.special === "bombard") S.bombardAxis = S.bombardAxis === "row" ? "column" : "row";
        else S.laserEnd = S.laserEnd === "top" ? "bottom" : "top";
        preview(col, row);
      }
    },
  });
  return element;
}

function markKeyOf(mark) {
  return { "~": "unknown", "*": "ship", X: "hit", "?": "hit_unknown_owner", "#": "sunk", O: "miss", ".": "water", "-": "scan_empty", "!": "scan_ship", "+": "volley_unknown", "=": "no_target" }[mark] || "unknown";
}

function renderOwnBoard(seat) {
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

const ABILITY_ORDER = ["laser", "scanner", "nuke", "reserve", "wide", "bombard", "radar"];

const ABILITY_ICON = { laser: "🔦", scanner: "📡", nuke: "☢️", reserve: "🛩", wide: "💥", bombard: "✈️", radar: "📡" };

function specialsBar() {
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
function armReservePicker(element) {
  const grid = element.querySelector(".grid");
  element.classList.add("reserve-picker");
  const first = grid.querySelector(".cell");
  if (first) first.tabIndex = 0;
  grid.addEventListener("click", (e) => {
    const cell = e.target.closest(".cell");
    if (cell) toggleReserveCell(Number(cell.dataset.col), Number(cell.dataset.row));
  });
  gridKeys(grid, seaSize(ownBoardIndex(mySeat())), { pick: toggleReserveCell });
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
    if (rules().preset === "brasil" || rules().shots_per_turn > 1) {
      text = perVolley()
        ? plural("volley_turn", rules().shots_per_turn)
        : t("shots_turn", { k: (view.shots_this_turn || 0) + 1, n: rules().shots_per_turn });
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
          onclick: () => {
            S.tab = b.index;
            render();
          },
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
    h("h2", {}, me === null || watching() ? "" : isShared() ? "🌊 " : mate ? "🤝 " : "🎯 ", title),
    isShared() ? boardScroller(renderTargetBoard(b, interactive), "sea") : renderTargetBoard(b, interactive),
    h("p", { class: "hover-info", id: `hover-${b.index}`, "aria-hidden": "true" }, t("hover_help")),
    !isShared() && seat ? h("p", { class: "board-note muted" }, seat.alive ? t("afloat_n", { n: seat.ships_afloat, total: seat.ships_total }) : t("eliminated_tag")) : null,
    volleySummary(b.index),
  );
}

function renderBattle() {
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
      ? h("section", { class: `board-card own ${S.reserve ? "armed" : ""}` }, h("h2", {}, "🛡 ", t("your_waters")), renderOwnBoard(me), h("p", { class: "board-note muted" }, t("afloat_n", { n: view.seats[me].ships_afloat, total: view.seats[me].ships_total })))
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
        { class: "button primary big", type: "button", id: "fire-volley", disabled: S.volley.length !== rules().shots_per_turn, onclick: submitVolley },
        `💥 ${t("fire_volley", { n: S.volley.length, total: rules().shots_per_turn })}`,
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
    battleBanner(),
    watching() ? h("p", { class: "watch-badge", id: "watching" }, `👁 ${t("you_are_watching")}`) : null,
    renderRoundSummary(),
    h("div", { class: "action-bar" }, specialsBar(), actions, h("div", { class: "spacer" }), resign),
    h("div", { class: "play-area" }, h("div", { class: `boards boards-${count} ${isShared() ? "boards-sea" : ""}` }, boardsArea), renderSide()),
  );
}

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

function renderEnd() {
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
      h("h1", { id: "end-title" }, title),
      me !== null ? h("p", { class: "muted" }, plural("your_rounds", view.round || 0)) : null,
      // A rated game's new ratings come with the room frame of its end.
      stats ? statsTable(stats, view, seatName, (seat) => ratingChip(S.room.seats.find((s) => s.seat === seat) || {})) : null,
      me !== null ? rematchOffer() : null,
      h(
        "div",
        { class: "row-buttons center" },
        me !== null && !S.room.rematch ? h("button", { class: "button primary big", type: "button", id: "rematch", onclick: () => send({ type: "rematch" }) }, `🔁 ${t("rematch")}`) : null,
        h("button", { class: "button big", type: "button", id: "home", onclick: goHome }, `⚓ ${t("back_home")}`),
        // The replay opens beside the room, which stays ready for a rematch.
        replayId !== null ? h("a", { class: "button big", id: "end-replay", href: `/g/${replayId}`, target: "_blank", rel: "noopener" }, `🎞 ${t("replay")}`) : null,
      ),
      S.stats ? heatMaps(S.stats, view, seatName, t("heat_title")) : null,
    ),
    h("div", { class: "play-area" }, h("div", { class: "boards reveal" }, boards), renderSide()),
  );
}

function rematchNoteText(note) {
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

function openRules() {
  S.rulesOpen = true;
  render();
  requestAnimationFrame(() => document.getElementById("rules-close")?.focus());
}

function renderRules() {
  const sections = entry("rules_page") || [];
  return h(
    "div",
    {
      class: "modal-backdrop",
      onclick: (e) => {
        if (e.target === e.currentTarget) closeRules();
      },
    },
    h(
      "div",
      { class: "modal card", role: "dialog", "aria-modal": "true", "aria-labelledby": "rules-title" },
      h("div", { class: "modal-head" }, h("h1", { id: "rules-title" }, "📖 ", t("rules")), h("button", { class: "icon-button", type: "button", id: "rules-close", "aria-label": t("close"), onclick: closeRules }, "✕")),
      h(
        "div",
        { class: "rules-body" },
        sections.map((section) => h("section", {}, h("h2", {}, section.title), (section.text || []).map((p) => h("p", {}, withMarks(p))))),
        h("h2", {}, t("legend")),
        h(
          "ul",
          { class: "legend" },
          ["miss", "hit", "sunk", "water", "volley_unknown", "scan_ship", "scan_empty"].map((key) => h("li", {}, markSymbol(key, false), t(`mark.${key}`))),
        ),
      ),
    ),
  );
}

/**
 * A mark of the board drawn with the board's own styles (a cell of its
 * classes), so that the rules show exactly what the board draws. Sunk cells
 * are parts of a known hull, as on the board. `inline`: inside a sentence,
 * named for screen readers; else beside its name, hidden from them.
 */
function markSymbol(key, inline) {
  const named = inline ? { role: "img", "aria-label": t(`mark.${key}`) } : { "aria-hidden": "true" };
  return h("span", { class: `cell legend-cell m-${key} ${key === "sunk" ? "hull" : ""} ${inline ? "inline-mark" : ""}`, dataset: { mark: key }, ...named }, h("span", { class: "glyph" }));
}

const MARKS_IN_TEXT = new Set(["miss", "hit", "sunk", "water", "volley_unknown", "scan_ship", "scan_empty"]);

/** A rules paragraph with its {miss}, {hit}, … drawn as the board's marks. */
function withMarks(text) {
  return text.split(/\{(\w+)\}/).map((part, i) => (i % 2 === 0 ? part : MARKS_IN_TEXT.has(part) ? markSymbol(part, true) : `{${part}}`));
}

function closeRules() {
  S.rulesOpen = false;
  render();
}

/** Which screen the state shows: a new one starts without the old one's toasts. */
function screenKey() {
  if (S.replay) return `replay:${S.replay.id}`;
  if (!S.room) return S.matching ? "matching" : S.page === "leaderboard" && S.leaderboard ? "leaderboard" : S.invite ? "invite" : "home";
  return `${S.room.code}:${S.room.started && S.view ? S.view.phase : "lobby"}`;
}

/** Draws the page from the state: the header, the screen on show and the rules if open. */
function render() {
  const active = document.activeElement;
  const activeId = active?.id;
  const activeCell = active?.classList?.contains("cell") ? { board: active.closest(".board")?.dataset.board, col: active.dataset.col, row: active.dataset.row } : null;
  let screen;
  if (S.replay) screen = renderReplay();
  else if (!S.room) screen = S.matching ? renderMatching() : S.page === "leaderboard" && S.leaderboard ? renderLeaderboard() : S.invite ? renderInvite() : renderHome();
  else if (S.starting === S.room.code && !S.view) screen = renderStarting();
  else if (!S.room.started || !S.view) screen = renderLobby();
  else if (S.view.phase === "shop") screen = renderShop();
  else if (S.view.phase === "placement") screen = renderPlacement();
  else if (S.view.phase === "battle") screen = renderBattle();
  else screen = renderEnd();
  let phaseClass = S.view && S.room?.started ? `phase-${S.view.phase}` : S.room ? "phase-lobby" : "phase-home";
  if (S.replay) phaseClass = "phase-replay";
  const preset = (S.replay ? S.replay.data?.preset : null) || S.room?.preset || S.homePreset;
  // A ship held in a drag keeps its grabbing cursor through the redraw.
  const dragging = document.body.classList.contains("dragging") ? " dragging" : "";
  document.body.className = `${phaseClass} preset-${preset}${dragging}`;
  app.dataset.states = String(S.states || 0);
  // Wide seas scroll sideways on small screens: a redraw keeps where they were.
  const scrolled = new Map([...app.querySelectorAll(".board-scroll")].map((el) => [el.dataset.scroll, el.scrollLeft]));
  app.replaceChildren(renderHeader(), screen, S.rulesOpen ? renderRules() : h("span"));
  const newScreen = showingScreen(screenKey());
  for (const el of app.querySelectorAll(".board-scroll")) {
    if (scrolled.has(el.dataset.scroll)) el.scrollLeft = scrolled.get(el.dataset.scroll);
    else if (el.dataset.scroll === "placement") showOwnBlock(el);
  }
  // Keep keyboard focus where it was across the re-render.
  if (activeCell && activeCell.board !== undefined) {
    const again = app.querySelector(`.board[data-board="${activeCell.board}"] .cell[data-col="${activeCell.col}"][data-row="${activeCell.row}"]`);
    if (again) {
      again.tabIndex = 0;
      again.focus({ preventScroll: newScreen });
    }
  } else if (activeId) {
    const again = document.getElementById(activeId);
    if (again && again !== document.activeElement) again.focus({ preventScroll: newScreen });
  }
  // Every screen starts at its top (its title, the room code and the invite
  // link), wherever the last one was scrolled to.
  if (newScreen) window.scrollTo(0, 0);
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && S.rulesOpen) closeRules();
});

window.addEventListener("popstate", () => {
  // Back and forward move between the pages the address names.
  const replayId = replayIdFromPath();
  if (replayId !== null) {
    if (S.replay?.id !== replayId) openReplay(replayId);
    return;
  }
  if (S.replay) closeReplay();
  const board = leaderboardFromHash();
  if (board && !S.room) {
    openLeaderboard(board);
    return;
  }
  if (!codeFromPath() && S.room) goHome();
  else {
    S.page = "home";
    render();
    askOpenRooms();
  }
});

registerHooks({ render, goHome });

async function main() {
  await setLanguage(initialLanguage(), false);
  S.nickname = S.nickname.trim();
  if (nicknameProblem(S.nickname)) {
    // A first visit still needs a name for the hello; the player can change it.
    S.nickGenerated = true;
    S.nickname = `${t("default_nickname")} ${100 + Math.floor(Math.random() * 900)}`;
    localStorage.setItem(NICK_KEY, S.nickname);
  }
  const link = connect({
    nickname: S.nickname,
    lang: language(),
    onFrame,
    onStatus: (status) => {
      S.status = status;
      render();
    },
  });
  const replayId = replayIdFromPath();
  const board = leaderboardFromHash();
  const invited = codeFromPath();
  if (invited && !new URLSearchParams(location.search).has("watch") && !knownRooms().includes(invited)) {
    // An invitation: the guest is asked for a name before taking a seat,
    // the remembered one offered (a first visit's made-up one is not).
    S.invite = invited;
    if (S.nickGenerated) S.nickDraft = "";
  }
  if (replayId !== null) openReplay(replayId);
  else if (board) openLeaderboard(board);
  else render();
  if (S.invite) document.getElementById("nick")?.focus();
  link.open();
}

main();
