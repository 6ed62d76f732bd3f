// Broadside in the browser: the home page, the room, placement, battle and the end.
//
// The server is authoritative. This client renders the view frames it receives
// and sends intents; it never decides what is legal (placement previews ask the
// server with check_layout, shots are refused by the server with an error code).

import { Link } from "./net.js";
import { t, entry, setLanguage, initialLanguage, LANGUAGES, language, shipName, errorText } from "./i18n.js";
import { buildBoard, hullMap, buildShip, cellLabel } from "./board.js";
import { h } from "./dom.js";
import { renderPlacement, resetPlacement } from "./placement.js";
import { Sound } from "./sound.js";

const NICK_KEY = "broadside.nickname";
const PRESETS = ["classic", "hasbro", "italia", "brasil"];
const LEVELS = ["easy", "medium", "hard", "expert"];

/** Everything the page knows. Rendering reads it; frames and clicks change it. */
export const S = {
  nickname: localStorage.getItem(NICK_KEY) || "",
  status: "connecting",
  room: null,
  view: null,
  previousView: null,
  deadline: null,
  deadlineTotal: null,
  log: [],
  chat: [],
  unreadChat: 0,
  myGames: null,
  homePreset: localStorage.getItem("broadside.preset") || "classic",
  homeLevel: localStorage.getItem("broadside.level") || "medium",
  joinCode: "",
  rulesOpen: false,
  cursor: null,
  hover: null,
  volley: [],
  salvo: {},
  special: null,
  bombardAxis: "row",
  pendingJoin: null,
  copied: false,
  sideTab: "log",
  lastPhase: null,
};

const app = document.getElementById("app");
const live = document.getElementById("live");
export const sound = new Sound();

let link;

// ---------------------------------------------------------------- helpers

export function announce(text) {
  // Clearing first makes screen readers repeat an identical message.
  live.textContent = "";
  requestAnimationFrame(() => {
    live.textContent = text;
  });
}

let toastTimer;
export function toast(text, kind = "info") {
  let el = document.getElementById("toast");
  if (!el) {
    el = h("div", { id: "toast", role: "status" });
    document.body.append(el);
  }
  el.textContent = text;
  el.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 3200);
}

export function send(frame) {
  link.send(frame);
}

export function getLink() {
  return link;
}

export function mySeat() {
  return S.room?.you?.seat ?? null;
}

function isHost() {
  return S.room && S.room.you && S.room.you.seat !== null && S.room.host === S.room.you.seat;
}

export function seatName(seat) {
  if (seat === mySeat()) return t("you");
  const info = S.room?.seats?.find((s) => s.seat === seat);
  if (!info) return t("seat_n", { n: seat + 1 });
  if (info.kind === "bot") return info.nickname || t("bot_named", { level: t(`level.${info.level || "medium"}`) });
  return info.nickname || t("seat_n", { n: seat + 1 });
}

export function rules() {
  return S.room?.rules;
}

export function label(at) {
  const axis = S.view?.letter_axis || rules()?.letter_axis || "rows";
  return cellLabel(axis, at[0], at[1]);
}

function presetName(id) {
  return t(`preset.${id}`);
}

function shipTypeName(id) {
  const type = rules()?.catalogue?.find((c) => c.id === id);
  if (type && /^ship\d+$/.test(id)) return t("ship.generic", { n: type.shape.cells.length });
  return shipName(id, type?.name);
}

export { shipTypeName };

// ---------------------------------------------------------------- frames

function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      S.nickname = frame.nickname || S.nickname;
      if (S.nickname) localStorage.setItem(NICK_KEY, S.nickname);
      rejoin();
      send({ type: "my_games" });
      break;
    case "room":
      onRoom(frame.room);
      break;
    case "state":
      onState(frame);
      break;
    case "chat":
      S.chat.push(frame);
      if (frame.seat !== mySeat()) {
        S.unreadChat += S.sideTab === "chat" ? 0 : 1;
        announce(`${frame.from}: ${frame.text}`);
      }
      break;
    case "left":
    case "pong":
      return;
    case "games":
      S.myGames = frame.games || [];
      break;
    case "error":
      onError(frame);
      break;
    default:
      break;
  }
  render();
}

function rejoin() {
  const code = S.room?.code || codeFromPath();
  if (code) {
    const as = S.room?.you?.spectator || new URLSearchParams(location.search).has("watch") ? "spectator" : "player";
    S.pendingJoin = code;
    send({ type: "join_room", code, as });
  }
}

function codeFromPath() {
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  return match ? match[1].toUpperCase() : null;
}

function onRoom(room) {
  const changedRoom = !S.room || S.room.code !== room.code;
  if (changedRoom) {
    S.log = [];
    S.chat = [];
    S.view = null;
    S.previousView = null;
    resetPlacement();
  }
  if (S.room && S.room.started && !room.started) {
    // A rematch took the room back to its lobby.
    S.view = null;
    S.previousView = null;
    S.log = [];
    resetPlacement();
  }
  S.room = room;
  S.pendingJoin = null;
  const path = `/r/${room.code}`;
  if (location.pathname !== path) history.pushState({}, "", path + location.search);
  document.title = `${t("app_name")} · ${room.code}`;
}

function onState(frame) {
  const view = frame.view;
  const before = S.view;
  if (before && before.phase === "finished" && view.phase !== "finished") {
    // A rematch: a fresh game in the same room.
    S.log = [];
    resetPlacement();
  }
  S.previousView = before;
  S.view = view;
  S.deadline = typeof frame.deadline_ms === "number" ? Date.now() + frame.deadline_ms : null;
  if (S.deadline) {
    const turnChanged = !before || before.phase !== view.phase || JSON.stringify(before.to_move) !== JSON.stringify(view.to_move);
    if (turnChanged || !S.deadlineTotal || frame.deadline_ms > S.deadlineTotal) S.deadlineTotal = frame.deadline_ms;
  }
  if (view.phase !== "battle") {
    S.special = null;
    S.volley = [];
    S.salvo = {};
  }
  if (before && JSON.stringify(before.to_move) !== JSON.stringify(view.to_move)) {
    S.volley = [];
    S.salvo = {};
  }
  for (const event of frame.events || []) logEvent(event);
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
  if (frame.request === "check_layout" || frame.request === "random_layout") {
    // The answer to a layout question: release whoever waits for it.
    link.failLayoutQuestion(frame.request);
    if (frame.request === "check_layout") return;
  }
  if (frame.code === "room_full" && S.pendingJoin) {
    // Every seat is taken: watch instead, which is what a late guest wants.
    const code = S.pendingJoin;
    S.pendingJoin = null;
    toast(t("room_full_watching"));
    send({ type: "join_room", code, as: "spectator" });
    return;
  }
  if (frame.code === "room_not_found" && S.pendingJoin) {
    S.pendingJoin = null;
    if (codeFromPath()) history.replaceState({}, "", "/");
  }
  toast(errorText(frame.code, frame.message), "error");
  announce(errorText(frame.code, frame.message));
}

// ---------------------------------------------------------------- the log in words

function logEvent(event) {
  const me = mySeat();
  let text = null;
  let kind = "info";
  switch (event.event) {
    case "ready":
      if (event.seat !== me) text = t("log_ready", { name: seatName(event.seat) });
      break;
    case "phase_changed":
      if (event.phase === "battle") {
        text = t("log_battle_begins");
        kind = "phase";
      }
      break;
    case "shot": {
      const result = event.result;
      const ship = event.ship ? shipTypeName(event.ship).toLowerCase() : null;
      const key = result === "miss" ? "miss" : result === "hit" ? (ship ? "hit_type" : "hit") : "sunk";
      // With three or more seats a cell label alone does not say whose waters.
      const many = (rules()?.seats || 2) > 2;
      text = t(event.shooter === me ? `log_you_${key}` : `log_other_${key}`, {
        name: seatName(event.shooter),
        cell: many ? `${label(event.at)} (${seatName(event.board)})` : label(event.at),
        ship: ship || "",
      });
      kind = result;
      if (event.board === me && result !== "miss") kind = "ouch";
      sound.play(result === "miss" ? "splash" : result === "hit" ? "hit" : "sunk");
      break;
    }
    case "volley": {
      const types = event.types_hit.map((id) => shipTypeName(id).toLowerCase()).join(", ");
      text = t(event.shooter === me ? "log_you_volley" : "log_other_volley", {
        name: seatName(event.shooter),
        cells: event.cells.map(label).join(" "),
        hits: event.hits,
        types: types || "—",
      });
      if (event.sunk.length) text += " " + t("log_volley_sunk", { ships: event.sunk.map((id) => shipTypeName(id).toLowerCase()).join(", ") });
      kind = event.hits ? "hit" : "miss";
      sound.play(event.hits ? "hit" : "splash");
      S.lastVolley = { ...event, mine: event.shooter === me };
      break;
    }
    case "sunk":
      text = event.owner === me
        ? t("log_your_ship_sunk", { ship: shipTypeName(event.ship).toLowerCase() })
        : t("log_ship_sunk", { ship: shipTypeName(event.ship).toLowerCase(), name: seatName(event.owner) });
      kind = event.owner === me ? "ouch" : "sunk";
      break;
    case "action_used":
      text = t("log_action", { name: seatName(event.seat), action: t(`special.${event.kind}`) });
      kind = "phase";
      break;
    case "scan": {
      const found = event.cells.filter((c) => c.ship).length;
      text = t("log_scan", { n: found });
      break;
    }
    case "resigned":
      text = event.seat === me ? t("log_you_resigned") : t("log_resigned", { name: seatName(event.seat) });
      kind = "phase";
      break;
    case "eliminated":
      text = event.seat === me ? t("log_you_eliminated") : t("log_eliminated", { name: seatName(event.seat) });
      kind = "phase";
      break;
    case "game_over":
      if (event.draw) text = t("log_draw");
      else if (event.winners.includes(me)) text = t("log_you_won");
      else text = t("log_game_over", { names: event.winners.map(seatName).join(", ") });
      kind = "phase";
      break;
    case "round_started":
      text = t("log_round", { round: event.round });
      break;
    default:
      break;
  }
  if (text) {
    text = text.charAt(0).toUpperCase() + text.slice(1);
    S.log.unshift({ text, kind, at: Date.now() });
    if (S.log.length > 300) S.log.pop();
    if (event.event !== "ready") announce(text);
  }
}

// ---------------------------------------------------------------- header

function renderHeader() {
  const status = h("span", { class: `net net-${S.status}`, title: t(`net_${S.status}`) }, h("span", { class: "dot" }), h("span", { class: "net-text" }, t(`net_${S.status}`)));
  const langSelect = h(
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
  const rulesButton = h("button", { class: "icon-button", type: "button", onclick: () => openRules(), title: t("rules"), "aria-label": t("rules") }, "📖");
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
  return h("header", { class: "top" }, brand, roomChip, h("div", { class: "spacer" }), status, rulesButton, soundButton, langSelect);
}

function goHome() {
  if (S.room) send({ type: "leave" });
  S.room = null;
  S.view = null;
  S.log = [];
  S.chat = [];
  resetPlacement();
  history.pushState({}, "", "/");
  document.title = t("app_name");
  send({ type: "my_games" });
  render();
}

// ---------------------------------------------------------------- home

function nicknameOk() {
  const nick = S.nickname.trim();
  if (!nick) {
    toast(t("need_nickname"), "error");
    document.getElementById("nick")?.focus();
    return false;
  }
  return true;
}

function createRoom(withBot) {
  if (!nicknameOk()) return;
  send({
    type: "create_room",
    preset: S.homePreset,
    seats: 2,
    options: {},
    teams: null,
    bots: withBot ? [{ seat: 1, level: S.homeLevel }] : [],
  });
}

function joinCode(code, as = "player") {
  const clean = code.trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
  if (!clean) return;
  if (!nicknameOk()) return;
  S.pendingJoin = clean;
  send({ type: "join_room", code: clean, as });
}

function playerName(p) {
  if (typeof p === "string") return p;
  if (p.kind === "bot") return `🤖 ${t(`level.${p.level || "medium"}`)}`;
  if (p.kind === "open") return t("open_seat");
  return p.nickname || "?";
}

function renderHome() {
  const nickInput = h("input", {
    id: "nick",
    class: "text-input",
    maxlength: "24",
    autocomplete: "nickname",
    placeholder: t("nickname_placeholder"),
    value: S.nickname,
    oninput: (e) => {
      S.nickname = e.target.value;
    },
    onchange: (e) => {
      S.nickname = e.target.value.trim();
      localStorage.setItem(NICK_KEY, S.nickname);
      link.reconnectAs(S.nickname, language());
    },
  });
  const presets = h(
    "div",
    { class: "preset-picker", role: "radiogroup", "aria-label": t("choose_preset") },
    PRESETS.map((id) =>
      h(
        "button",
        {
          type: "button",
          role: "radio",
          "aria-checked": String(S.homePreset === id),
          class: `preset-card ${S.homePreset === id ? "chosen" : ""}`,
          dataset: { preset: id },
          onclick: () => {
            S.homePreset = id;
            localStorage.setItem("broadside.preset", id);
            render();
          },
        },
        h("span", { class: "preset-flag", "aria-hidden": "true" }, t(`preset_icon.${id}`)),
        h("strong", {}, presetName(id)),
        h("span", { class: "preset-blurb" }, t(`preset_blurb.${id}`)),
      ),
    ),
  );
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

  return h(
    "main",
    { class: "home" },
    h(
      "section",
      { class: "hero" },
      h("div", { class: "hero-waves", "aria-hidden": "true" }),
      h("h1", {}, t("app_name")),
      h("p", { class: "tagline" }, t("tagline")),
      h("label", { class: "nick-label", for: "nick" }, t("nickname")),
      nickInput,
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
      ),
      h(
        "div",
        { class: "card action" },
        h("div", { class: "action-icon", "aria-hidden": "true" }, "🤝"),
        h("h2", {}, t("play_friend")),
        h("p", { class: "muted" }, t("play_friend_hint")),
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
    h("section", { class: "card my-games" }, h("h2", {}, t("my_games")), games),
    h("section", { class: "home-rules" }, h("button", { class: "button ghost", type: "button", onclick: () => openRules() }, "📖 ", t("read_rules"))),
  );
}

// ---------------------------------------------------------------- lobby

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
    teams: null,
  });
}

function toggle(id, labelText, checked, onChange, disabled, hint) {
  return h(
    "label",
    { class: `switch ${disabled ? "disabled" : ""}` },
    h("input", { type: "checkbox", id, checked, disabled, onchange: (e) => onChange(e.target.checked) }),
    h("span", { class: "switch-track", "aria-hidden": "true" }),
    h("span", { class: "switch-text" }, labelText, hint ? h("small", {}, hint) : null),
  );
}

function numberField(id, labelText, value, min, max, onChange, disabled, suffix) {
  return h(
    "label",
    { class: "number-field" },
    h("span", {}, labelText),
    h("input", {
      type: "number",
      id,
      min: String(min),
      max: String(max),
      value: String(value),
      disabled,
      onchange: (e) => {
        const n = Math.max(min, Math.min(max, Number(e.target.value) || 0));
        onChange(n);
      },
    }),
    suffix ? h("small", {}, suffix) : null,
  );
}

function describeRules(r) {
  const lines = [];
  lines.push(t("desc_board", { cols: r.board.cols, rows: r.board.rows }));
  const counts = new Map();
  for (const index of r.fleet) counts.set(index, (counts.get(index) || 0) + 1);
  const fleet = [...counts.entries()].map(([index, n]) => `${n} × ${shipTypeName(r.catalogue[index].id)} (${r.catalogue[index].shape.cells.length})`);
  lines.push(t("desc_fleet", { fleet: fleet.join(", ") }));
  if (r.preset === "brasil") lines.push(t(r.report === "per_volley" ? "desc_hard" : "desc_easy", { n: r.shots_per_turn }));
  else lines.push(t(r.hit_again ? "desc_hit_again" : "desc_one_shot"));
  lines.push(t(r.ships_may_touch ? "desc_may_touch" : "desc_no_touch"));
  lines.push(t(r.water_ring ? "desc_ring_on" : "desc_ring_off"));
  if (r.specials) lines.push(t("desc_specials", { wide: r.wide_uses, bombard: r.bombard_uses, radar: r.radar_uses }));
  lines.push(r.turn_seconds ? t("desc_turn_timer", { n: r.turn_seconds }) : t("desc_no_turn_timer"));
  lines.push(r.place_seconds ? t("desc_place_timer", { n: r.place_seconds }) : t("desc_no_place_timer"));
  return lines;
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
  items.push(
    toggle(
      "opt-ring",
      t("opt_water_ring"),
      r.water_ring,
      (v) => setOptions({ water_ring: v }),
      disabled || r.ships_may_touch || r.report === "per_volley",
      t("opt_water_ring_hint"),
    ),
  );
  items.push(toggle("opt-specials", t("opt_specials"), r.specials, (v) => setOptions({ specials: v }), disabled, t("opt_specials_hint")));
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
  const spectators = typeof room.spectators === "number" ? h("p", { class: "muted" }, `👁 ${t("spectators_n", { n: room.spectators })}`) : null;
  return h(
    "main",
    { class: "lobby" },
    h(
      "section",
      { class: "card invite" },
      h("h1", {}, presetName(room.preset)),
      h("p", { class: "muted" }, t("invite_hint")),
      h("div", { class: "code-big", "aria-label": t("room_code") }, room.code.split("").map((ch) => h("span", {}, ch))),
      h("div", { class: "invite-row" }, h("input", { id: "invite-link", class: "text-input", readonly: true, value: link, onfocus: (e) => e.target.select() }), copy),
      room.you?.spectator ? h("p", { class: "badge" }, `👁 ${t("you_watch")}`) : null,
      h("div", { class: "row-buttons center" }, h("button", { class: "button small ghost", type: "button", id: "leave", onclick: goHome }, `← ${t("leave_room")}`)),
    ),
    h("section", { class: "card seats-card" }, h("h2", {}, t("seats")), seatCount, h("ul", { class: "seats" }, seats), spectators, start),
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

// ---------------------------------------------------------------- chat and side panel

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
      h("h3", {}, seatName(seat.seat), h("span", { class: "afloat" }, t("afloat_n", { n: seat.ships_afloat, total: seat.ships_total }))),
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
        id === "chat" && S.unreadChat ? h("span", { class: "unread" }, String(S.unreadChat)) : null,
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

// ---------------------------------------------------------------- the turn banner and clock

function clockText() {
  if (!S.deadline) return "";
  const left = Math.max(0, S.deadline - Date.now());
  const seconds = Math.ceil(left / 1000);
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

function clockFraction() {
  if (!S.deadline || !S.deadlineTotal) return 1;
  return Math.max(0, Math.min(1, (S.deadline - Date.now()) / S.deadlineTotal));
}

function updateClock() {
  for (const el of document.querySelectorAll("[data-clock]")) {
    el.textContent = clockText();
    const fraction = clockFraction();
    const bar = el.parentElement?.querySelector(".clock-bar > span");
    if (bar) bar.style.width = `${fraction * 100}%`;
    el.closest(".banner")?.classList.toggle("hurry", Boolean(S.deadline) && S.deadline - Date.now() < 10000);
  }
}
setInterval(updateClock, 250);

export function banner(text, mine, extra) {
  return h(
    "div",
    { class: `banner ${mine ? "mine" : "theirs"}`, id: "turn-banner", role: "status" },
    h("div", { class: "banner-text" }, h("span", { class: "banner-icon", "aria-hidden": "true" }, mine ? "🎯" : "⏳"), h("strong", { id: "turn-text" }, text), extra || null),
    S.deadline
      ? h(
          "div",
          { class: "clock", title: t("time_left") },
          h("span", { class: "clock-icon", "aria-hidden": "true" }, "⏱"),
          h("span", { class: "clock-text", "data-clock": "1", "aria-label": t("time_left") }, clockText()),
          h("div", { class: "clock-bar", "aria-hidden": "true" }, h("span", { style: { width: `${clockFraction() * 100}%` } })),
        )
      : null,
  );
}

// ---------------------------------------------------------------- battle

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

function boardMark(board, col, row) {
  return S.view.boards[board].rows[row][col];
}

/** Cells the viewer may still aim at, as the view shows them: unknown or scanned-ship. */
function looksTargetable(mark) {
  return mark === "~" || mark === "!";
}

function myTurn() {
  const me = mySeat();
  return me !== null && S.view.phase === "battle" && S.view.to_move.includes(me);
}

function perVolley() {
  return rules().report === "per_volley";
}

function areaOf(kind, board, col, row) {
  const size = S.view.board_size;
  const cells = [];
  if (kind === "wide" || kind === "radar") {
    for (let dr = -1; dr <= 1; dr += 1) for (let dc = -1; dc <= 1; dc += 1) {
      const c = col + dc;
      const r = row + dr;
      if (c >= 0 && r >= 0 && c < size.cols && r < size.rows) cells.push([c, r]);
    }
  } else if (kind === "bombard") {
    if (S.bombardAxis === "row") for (let c = 0; c < size.cols; c += 1) cells.push([c, row]);
    else for (let r = 0; r < size.rows; r += 1) cells.push([col, r]);
  } else {
    cells.push([col, row]);
  }
  return cells;
}

function fireAt(board, col, row) {
  if (!myTurn()) {
    toast(t("err.not_your_turn"), "error");
    return;
  }
  const mark = boardMark(board, col, row);
  if (S.special) {
    const kind = S.special;
    let action;
    if (kind === "bombard") action = { kind, board, line: S.bombardAxis === "row" ? { row } : { column: col } };
    else action = { kind, board, center: [col, row] };
    send({ type: "command", command: { cmd: "ability", action } });
    S.special = null;
    return;
  }
  if (perVolley()) {
    const key = `${col},${row}`;
    const index = S.volley.findIndex(([c, r]) => `${c},${r}` === key);
    if (index >= 0) S.volley.splice(index, 1);
    else if (looksTargetable(mark) && S.volley.length < rules().shots_per_turn) S.volley.push([col, row]);
    else if (!looksTargetable(mark)) toast(t("err.not_targetable"), "error");
    announce(t("volley_count", { n: S.volley.length, total: rules().shots_per_turn }));
    render();
    return;
  }
  if (S.view.salvo_round) {
    const list = (S.salvo[board] = S.salvo[board] || []);
    const index = list.findIndex(([c, r]) => c === col && r === row);
    if (index >= 0) list.splice(index, 1);
    else if (looksTargetable(mark) && list.length < rules().shots_per_opponent) list.push([col, row]);
    render();
    return;
  }
  send({ type: "command", command: { cmd: "fire", target: { board, at: [col, row] } } });
}

function submitVolley() {
  send({ type: "command", command: { cmd: "volley", cells: S.volley } });
  S.volley = [];
}

function submitSalvo() {
  const shots = [];
  for (const [board, cells] of Object.entries(S.salvo)) for (const at of cells) shots.push({ board: Number(board), at });
  send({ type: "command", command: { cmd: "salvo", shots, action: null } });
  S.salvo = {};
}

function targetBoards() {
  const me = mySeat();
  return S.view.boards.map((b, index) => ({ ...b, index })).filter((b) => b.owner !== me);
}

function renderTargetBoard(board, interactive) {
  const view = S.view;
  const sunkShips = view.ships.filter((s) => s.owner === board.index);
  const element = buildBoard({
    size: view.board_size,
    axis: view.letter_axis,
    markAt: (c, r) => boardMark(board.index, c, r),
    hull: hullMap(sunkShips),
    id: String(board.index),
    interactive,
    caption: t("board_of", { name: seatName(board.index) }),
    fresh: freshCells(board.index),
  });
  element.classList.add("target-board");
  if (interactive && myTurn()) element.classList.add("armed");
  const grid = element.querySelector(".grid");
  const selected = perVolley() ? S.volley : S.salvo[board.index] || [];
  for (const [c, r] of selected) grid.querySelector(`[data-col="${c}"][data-row="${r}"]`)?.classList.add("chosen");
  if (!interactive) return element;

  const cursor = S.cursor && S.cursor.board === board.index ? S.cursor : null;
  const focusCell = cursor ? grid.querySelector(`[data-col="${cursor.col}"][data-row="${cursor.row}"]`) : null;
  const first = focusCell || grid.querySelector(".cell");
  if (first) first.tabIndex = 0;
  if (focusCell) focusCell.classList.add("cursor");

  const preview = (col, row) => {
    for (const el of grid.querySelectorAll(".area")) el.classList.remove("area");
    if (!S.special) return;
    for (const [c, r] of areaOf(S.special, board.index, col, row)) grid.querySelector(`[data-col="${c}"][data-row="${r}"]`)?.classList.add("area");
  };
  const describe = (col, row) => {
    const mark = boardMark(board.index, col, row);
    const cellText = `${cellLabel(view.letter_axis, col, row)}`;
    const state = looksTargetable(mark) ? (myTurn() ? t("hover_fire") : t("hover_target_wait")) : t("hover_not_target", { what: t(`mark.${markKeyOf(mark)}`) });
    const info = document.getElementById(`hover-${board.index}`);
    if (info) {
      info.innerHTML = "";
      info.append(h("b", {}, cellText), " · ", state);
      info.classList.toggle("bad", !looksTargetable(mark));
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
    for (const el of grid.querySelectorAll(".area")) el.classList.remove("area");
  });
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
  grid.addEventListener("keydown", (e) => {
    const cell = e.target.closest(".cell");
    if (!cell) return;
    let col = Number(cell.dataset.col);
    let row = Number(cell.dataset.row);
    const size = view.board_size;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      col = Math.max(0, Math.min(size.cols - 1, col + moves[e.key][0]));
      row = Math.max(0, Math.min(size.rows - 1, row + moves[e.key][1]));
      S.cursor = { board: board.index, col, row };
      moveCursor(grid, col, row);
      describe(col, row);
      preview(col, row);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      S.cursor = { board: board.index, col, row };
      fireAt(board.index, col, row);
    } else if ((e.key === "r" || e.key === "R") && S.special === "bombard") {
      S.bombardAxis = S.bombardAxis === "row" ? "column" : "row";
      preview(col, row);
    }
  });
  return element;
}

function markKeyOf(mark) {
  return { "~": "unknown", "*": "ship", X: "hit", "?": "hit_unknown_owner", "#": "sunk", O: "miss", ".": "water", "-": "scan_empty", "!": "scan_ship", "+": "volley_unknown", "=": "no_target" }[mark] || "unknown";
}

function moveCursor(grid, col, row) {
  for (const el of grid.querySelectorAll(".cell")) {
    el.tabIndex = -1;
    el.classList.remove("cursor");
  }
  const target = grid.querySelector(`[data-col="${col}"][data-row="${row}"]`);
  if (target) {
    target.tabIndex = 0;
    target.classList.add("cursor");
    target.focus();
  }
}

function renderOwnBoard(seat) {
  const view = S.view;
  return buildBoard({
    size: view.board_size,
    axis: view.letter_axis,
    markAt: (c, r) => boardMark(seat, c, r),
    hull: hullMap(view.ships.filter((s) => s.owner === seat)),
    id: String(seat),
    caption: seat === mySeat() ? t("your_waters") : t("board_of", { name: seatName(seat) }),
    fresh: freshCells(seat),
  });
}

function specialsBar() {
  const view = S.view;
  const kinds = ["wide", "bombard", "radar"].filter((k) => view.abilities?.[k]);
  if (!kinds.length) return null;
  const turnShots = view.shots_this_turn || 0;
  return h(
    "div",
    { class: "specials", role: "group", "aria-label": t("specials") },
    h("span", { class: "specials-title" }, t("specials")),
    kinds.map((kind) => {
      const a = view.abilities[kind];
      const usable = a.ready && myTurn() && turnShots === 0;
      const locked = !a.ready && a.uses_left > 0 && kind === "bombard" && (view.round || 0) < 10;
      const note = a.uses_left === 0 ? t("no_uses") : locked ? t("unlocks_turn", { n: 10, now: view.round || 0 }) : t("uses_left", { n: a.uses_left });
      return h(
        "button",
        {
          type: "button",
          class: `special ${S.special === kind ? "active" : ""} ${locked ? "locked" : ""}`,
          id: `special-${kind}`,
          disabled: !usable,
          "aria-pressed": String(S.special === kind),
          onclick: () => {
            S.special = S.special === kind ? null : kind;
            if (S.special) announce(t(`special_hint.${kind}`));
            render();
          },
        },
        h("span", { class: "special-icon", "aria-hidden": "true" }, { wide: "💥", bombard: "✈️", radar: "📡" }[kind]),
        h("span", { class: "special-name" }, t(`special.${kind}`)),
        h("small", {}, locked ? `🔒 ${note}` : note),
      );
    }),
    S.special === "bombard"
      ? h(
          "button",
          {
            type: "button",
            class: "button small",
            onclick: () => {
              S.bombardAxis = S.bombardAxis === "row" ? "column" : "row";
              render();
            },
          },
          `↻ ${t(S.bombardAxis === "row" ? "bombard_row" : "bombard_column")}`,
        )
      : null,
    S.special ? h("span", { class: "special-hint" }, t(`special_hint.${S.special}`)) : null,
  );
}

function battleBanner() {
  const view = S.view;
  const me = mySeat();
  if (me === null) {
    const mover = view.to_move.map(seatName).join(", ");
    return banner(t("watching_turn", { name: mover }), false);
  }
  if (view.salvo_round) {
    const waiting = view.to_move.includes(me);
    return banner(waiting ? t("salvo_your_turn", { n: rules().shots_per_opponent }) : t("salvo_waiting"), waiting);
  }
  if (myTurn()) {
    let text = t("your_turn");
    if (rules().preset === "brasil" || rules().shots_per_turn > 1) {
      text = perVolley()
        ? t("volley_turn", { n: rules().shots_per_turn })
        : t("shots_turn", { k: (view.shots_this_turn || 0) + 1, n: rules().shots_per_turn });
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
    h("strong", {}, t("volley_summary", { cells: v.cells.map(label).join(" "), hits: v.hits, total: v.cells.length })),
    h("span", { class: "volley-dots", "aria-hidden": "true" }, v.cells.map((_, i) => h("span", { class: i < v.hits ? "dot-hit" : "dot-miss" }))),
    types ? h("span", {}, types) : null,
    v.sunk.length ? h("span", { class: "volley-sunk" }, t("log_volley_sunk", { ships: v.sunk.map((id) => shipTypeName(id)).join(", ") })) : null,
  );
}

function renderBattle() {
  const view = S.view;
  const me = mySeat();
  const targets = targetBoards();
  const ownBoard = me !== null
    ? h("section", { class: "board-card own" }, h("h2", {}, "🛡 ", t("your_waters")), renderOwnBoard(me), h("p", { class: "board-note muted" }, t("afloat_n", { n: view.seats[me].ships_afloat, total: view.seats[me].ships_total })))
    : null;
  const targetCards = targets.map((b) =>
    h(
      "section",
      { class: `board-card target ${myTurn() ? "armed" : ""}` },
      h("h2", {}, me === null ? "" : "🎯 ", t("board_of", { name: seatName(b.index) })),
      renderTargetBoard(b, me !== null && view.seats[me]?.alive),
      h("p", { class: "hover-info", id: `hover-${b.index}`, "aria-hidden": "true" }, t("hover_help")),
      volleySummary(b.index),
    ),
  );
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
    const total = Object.values(S.salvo).reduce((n, l) => n + l.length, 0);
    actions.push(h("button", { class: "button primary big", type: "button", id: "submit-salvo", onclick: submitSalvo }, `💥 ${t("submit_salvo", { n: total })}`));
  }
  const resign = me !== null && view.seats[me]?.alive
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
    { class: "game battle" },
    battleBanner(),
    h("div", { class: "action-bar" }, specialsBar(), actions, h("div", { class: "spacer" }), resign),
    h("div", { class: "play-area" }, h("div", { class: `boards boards-${targets.length + (ownBoard ? 1 : 0)}` }, targetCards, ownBoard), renderSide()),
  );
}

// ---------------------------------------------------------------- the end

function statsFor(seat) {
  // Shots at a board are all by its opponents; in a duel they are one player's.
  const view = S.view;
  const boards = view.boards.filter((b) => b.owner !== seat);
  let shots = 0;
  let hits = 0;
  for (const board of boards) {
    for (const row of board.rows) {
      for (const ch of row) {
        if (ch === "O") shots += 1;
        if (ch === "X" || ch === "#" || ch === "?") {
          shots += 1;
          hits += 1;
        }
        if (ch === "+") shots += 1;
      }
    }
  }
  const sunk = boards.reduce((n, b) => n + (view.seats[b.owner]?.sunk.length || 0), 0);
  return { shots, hits, accuracy: shots ? Math.round((100 * hits) / shots) : 0, sunk };
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
  const duel = view.seats.length === 2;
  const statRows = view.seats.map((seat) => {
    const s = statsFor(seat.seat);
    return h(
      "tr",
      { class: winners.includes(seat.seat) ? "winner" : "" },
      h("th", { scope: "row" }, winners.includes(seat.seat) ? "🏆 " : "", seatName(seat.seat)),
      h("td", {}, duel ? String(s.shots) : "—"),
      h("td", {}, duel ? String(s.hits) : "—"),
      h("td", {}, duel ? `${s.accuracy}%` : "—"),
      h("td", {}, String(s.sunk)),
      h("td", {}, `${seat.ships_afloat}/${seat.ships_total}`),
    );
  });
  const table = h(
    "table",
    { class: "stats" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), ["stat_shots", "stat_hits", "stat_accuracy", "stat_sunk", "stat_afloat"].map((k) => h("th", { scope: "col" }, t(k))))),
    h("tbody", {}, statRows),
  );
  const boards = view.boards.map((b, index) =>
    h("section", { class: "board-card" }, h("h2", {}, index === me ? t("your_waters") : t("board_of", { name: seatName(index) })), renderOwnBoard(index)),
  );
  return h(
    "main",
    { class: "game end" },
    h(
      "section",
      { class: `end-card card ${won ? "won" : view.draw ? "draw" : "lost"}`, id: "end-card" },
      h("div", { class: "end-emblem", "aria-hidden": "true" }, won ? "🏆" : view.draw ? "🤝" : me === null ? "⚓" : "🌊"),
      h("h1", { id: "end-title" }, title),
      me !== null ? h("p", { class: "muted" }, t("your_rounds", { n: view.round || 0 })) : null,
      table,
      h(
        "div",
        { class: "row-buttons center" },
        me !== null ? h("button", { class: "button primary big", type: "button", id: "rematch", onclick: () => { send({ type: "rematch" }); toast(t("rematch_asked")); } }, `🔁 ${t("rematch")}`) : null,
        h("button", { class: "button big", type: "button", id: "home", onclick: goHome }, `⚓ ${t("back_home")}`),
      ),
    ),
    h("div", { class: "play-area" }, h("div", { class: "boards reveal" }, boards), renderSide()),
  );
}

// ---------------------------------------------------------------- rules page

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
        sections.map((section) => h("section", {}, h("h2", {}, section.title), (section.text || []).map((p) => h("p", {}, p)))),
        h("h2", {}, t("legend")),
        h(
          "ul",
          { class: "legend" },
          ["miss", "hit", "sunk", "water", "volley_unknown", "scan_ship", "scan_empty"].map((key) =>
            h("li", {}, h("span", { class: `cell legend-cell m-${key}` }, h("span", { class: "glyph" })), t(`mark.${key}`)),
          ),
        ),
      ),
    ),
  );
}

function closeRules() {
  S.rulesOpen = false;
  render();
}

// ---------------------------------------------------------------- render

function renderShop() {
  return h("main", { class: "game" }, banner(t("shop_unsupported"), false));
}

export function render() {
  const active = document.activeElement;
  const activeId = active?.id;
  const activeCell = active?.classList?.contains("cell") ? { board: active.closest(".board")?.dataset.board, col: active.dataset.col, row: active.dataset.row } : null;
  let screen;
  if (!S.room) screen = renderHome();
  else if (!S.room.started || !S.view) screen = renderLobby();
  else if (S.view.phase === "shop") screen = renderShop();
  else if (S.view.phase === "placement") screen = renderPlacement();
  else if (S.view.phase === "battle") screen = renderBattle();
  else screen = renderEnd();
  const phaseClass = S.view && S.room?.started ? `phase-${S.view.phase}` : S.room ? "phase-lobby" : "phase-home";
  document.body.className = `${phaseClass} preset-${S.room?.preset || S.homePreset}`;
  app.replaceChildren(renderHeader(), screen, S.rulesOpen ? renderRules() : h("span"));
  // Keep keyboard focus where it was across the re-render.
  if (activeCell && activeCell.board !== undefined) {
    const again = app.querySelector(`.board[data-board="${activeCell.board}"] .cell[data-col="${activeCell.col}"][data-row="${activeCell.row}"]`);
    if (again) {
      again.tabIndex = 0;
      again.focus();
    }
  } else if (activeId) {
    const again = document.getElementById(activeId);
    if (again && again !== document.activeElement) again.focus();
  }
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && S.rulesOpen) closeRules();
});

window.addEventListener("popstate", () => {
  if (!codeFromPath() && S.room) goHome();
});

async function main() {
  await setLanguage(initialLanguage(), false);
  if (!S.nickname.trim()) {
    // A first visit still needs a name for the hello; the player can change it.
    S.nickname = `${t("default_nickname")} ${100 + Math.floor(Math.random() * 900)}`;
    localStorage.setItem(NICK_KEY, S.nickname);
  }
  link = new Link({
    nickname: S.nickname,
    lang: language(),
    onFrame,
    onStatus: (status) => {
      S.status = status;
      render();
    },
  });
  render();
  link.open();
}

main();
