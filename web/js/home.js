// The home page (the name, the presets, a bot game, a friend's room, a code to
// join, my games) and the page of an invitation link.

import { t } from "./i18n.js";
import { accountNeededNote, openAccount } from "./account.js";
import { h } from "./dom.js";
import { presetChoice, toggle } from "./fields.js";
import { render } from "./hooks.js";
import { getLink, send } from "./link.js";
import { nicknameField, nicknameOk, setNickname } from "./nickfield.js";
import { historyList, openLeaderboard, openRoomsCard, playNow } from "./public.js";
import { joinCode, rejoin } from "./room.js";
import { openRules } from "./rulebook.js";
import { LEVELS, S, presetName } from "./state.js";

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

export function renderHome() {
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
    // A room's code has 10 characters (docs/protocol.md).
    placeholder: "K7QM2PXWAB",
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
      h("div", { class: "play-now-row" }, playNowButton, h("p", { class: "play-now-hint" }, S.username ? t("play_now_hint") : t("play_now_hint_casual"))),
      // A guest's quick match is casual: said before the queue, with the way to an account.
      accountNeededNote("play-now-casual", "quick_match_casual", "quick_match_casual_short"),
    ),
    // A phone shows the presets as small tiles, and the chosen one's description here.
    h("section", { class: "card presets-card" }, h("h2", {}, t("choose_preset")), presets, h("p", { class: "preset-chosen-blurb muted" }, t(`preset_blurb.${S.homePreset}`))),
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
        toggle("home-rated", t("room_rated"), S.homeRated && Boolean(S.username), (v) => {
          // Rated play needs an account: a guest is shown the way to one instead.
          S.homeRated = v && Boolean(S.username);
          if (v && !S.username) {
            S.accountNeeded = true;
            render();
          }
        }, false, t("room_rated_hint")),
        S.accountNeeded ? accountNeededNote("home-rated-needs-account") : null,
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
      h("button", { class: "button ghost", type: "button", id: "open-account", onclick: () => openAccount() }, "👤 ", S.username ? t("account") : t("account_guest_title")),
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
export function renderInvite() {
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
