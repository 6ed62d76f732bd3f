// Broadside in the browser: the entry of the page. It starts the link and the
// store (state.js), whose update is here: the server's frames and the other
// messages go through `dispatch` to the modules that keep them. It routes
// between the screens (home, lobby, shop, placement, battle, end, replay,
// leaderboard) and draws the page. No module imports this one: they redraw
// and go home through hooks.js, which this module fills at start-up.
//
// The server is authoritative. This client renders the view frames it receives
// and sends intents; it never decides what is legal (placement previews ask the
// server with check_layout, shots are refused by the server with an error code).

import { errorText, initialLanguage, language, setLanguage, t } from "./i18n.js";
import { h, patch } from "./dom.js";
import { nicknameProblem } from "./nickname.js";
import { areas, onActionArea } from "./abilities.js";
import { onAccountError, onAccountFrame, onWelcome, renderAccount, sessionEnded } from "./account.js";
import { renderBattle, updateBattle } from "./battle.js";
import { chatRead, chatShown } from "./chat.js";
import { rematchNoteText, renderEnd } from "./end.js";
import { onState } from "./game.js";
import { renderHeader } from "./header.js";
import { registerHooks } from "./hooks.js";
import { renderHome, renderInvite } from "./home.js";
import { connect, getLink, send } from "./link.js";
import { renderLobby, renderStarting } from "./lobby.js";
import { banned, moderationOpen, onBanned, onModerationError, onModerationFrame, onModerationWelcome, renderBanned, renderModeration } from "./moderation.js";
import { announce, showingScreen, toast } from "./notify.js";
import { renderPlacement, resetPlacement, updatePlacement } from "./placement.js";
import { askOpenRooms, leaderboardFromHash, onLeaderboard, onMatchError, onMatchFrame, onOpenRooms, openLeaderboard, renderLeaderboard, renderMatching, resumeMatching } from "./public.js";
import { closeReplay, openReplay, renderReplay, replayIdFromPath } from "./replay.js";
import { codeFromPath, knownRooms, onRoom, rejoin } from "./room.js";
import { renderRules } from "./rulebook.js";
import { renderShop, resetShop } from "./shop.js";
import { NICK_KEY, S, dispatch, mySeat, redraw, startStore } from "./state.js";
import { showOwnBlock } from "./view.js";

const app = document.getElementById("app");

// The tests reach the page's link through this module (newcomer.test.js).
export { getLink };

/**
 * The update of the store (state.js): what each message changes in S, and
 * whether the page is to be drawn again (false when nothing it shows changed).
 */
function update(message) {
  switch (message.type) {
    case "frame":
      return onFrame(message.frame);
    case "status":
      // A banned person's link is down and stays down (header.js: "net_banned").
      S.status = message.status === "offline" && banned() ? "banned" : message.status;
      return true;
    case "home":
      leaveForHome();
      return true;
    case "navigate":
      onNavigate();
      return true;
    case "placement":
      return updatePlacement(message);
    case "battle":
      return updateBattle(message);
    default:
      return false;
  }
}

/** A frame from the server. */
function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      S.nickname = frame.nickname || S.nickname;
      if (S.nickname) localStorage.setItem(NICK_KEY, S.nickname);
      onModerationWelcome();
      onWelcome(frame);
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
      return false;
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
      onOpenRooms(frame);
      break;
    case "leaderboard":
      onLeaderboard(frame);
      break;
    case "passkey_create":
    case "passkey_request":
    case "account":
    case "signed_in":
    case "signed_out":
    case "link_code":
    case "link_approved":
      onAccountFrame(frame);
      break;
    case "blocks":
    case "reported":
      onModerationFrame(frame);
      break;
    case "action_area":
      // abilities.js asks for a redraw when the area is on show.
      onActionArea(frame);
      return false;
    case "error":
      onError(frame);
      break;
    default:
      break;
  }
  return true;
}

function onError(frame) {
  if (onModerationError(frame)) return;
  if (onMatchError(frame)) return;
  if (onAccountError(frame)) return;
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
  if (frame.request === "quick_match") {
    // Refused (busy, rate_limited…): nobody is waiting in the queue, so the
    // waiting screen must not stay; the toast says why.
    S.matching = null;
  }
  // A join refused because the server is busy: the invitation stays to try again.
  if (frame.code === "busy") S.pendingJoin = null;
  // Whether the toast is about the screen that comes next.
  let next = false;
  if ((frame.code === "room_not_found" || frame.code === "not_allowed") && S.pendingJoin) {
    S.pendingJoin = null;
    // An invitation to a room that is gone (or that a block between this
    // person and its host closes): the home page comes next.
    next = S.invite !== null;
    S.invite = null;
    S.inviteAccepted = false;
    if (codeFromPath()) history.replaceState({}, "", "/");
  }
  toast(errorText(frame.code, frame.message), "error", { next });
  announce(errorText(frame.code, frame.message));
}

/** Leaves the room (or the page on show) for the home page. */
function leaveForHome() {
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
  askOpenRooms();
}

/** Which screen the state shows: a new one starts without the old one's toasts. */
function screenKey() {
  if (banned()) return "banned";
  if (S.replay) return `replay:${S.replay.id}`;
  if (!S.room) return S.matching ? "matching" : S.page === "leaderboard" && S.leaderboard ? "leaderboard" : S.invite ? "invite" : "home";
  return `${S.room.code}:${S.room.started && S.view ? S.view.phase : "lobby"}`;
}

/**
 * Draws the page from the state: the header, the screen on show and the rules
 * if open. The page's elements are patched (dom.js), not replaced: what has
 * the focus, a scrolled box and a pressed button stay what they are. A screen
 * is keyed by screenKey, so another screen is drawn afresh.
 */
function render() {
  let screen;
  // Banned by the operators: the notice says so, in place of any screen.
  if (banned()) screen = renderBanned();
  else if (S.replay) screen = renderReplay();
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
  const key = screenKey();
  screen.patchKey = `screen:${key}`;
  patch(app, [renderHeader(), screen, S.rulesOpen ? renderRules() : h("span"), S.accountOpen ? renderAccount() : h("span"), moderationOpen() ? renderModeration() : h("span")]);
  const newScreen = showingScreen(key);
  // Placement on a wide sea starts with the own block in view; later
  // redraws keep the box, and where it was scrolled to.
  for (const el of app.querySelectorAll('.board-scroll[data-scroll="placement"]')) {
    if (el.ownBlockShown) continue;
    el.ownBlockShown = true;
    showOwnBlock(el);
  }
  // The focus never scrolls: the page keeps its place, and a redraw of the
  // end screen (the history's answer, a rematch offer) must not scroll down.
  const endScreen = S.room && S.view?.phase === "finished" && !S.replay && !banned();
  if (newScreen && banned()) {
    // The ban notice is read first.
    document.getElementById("banned-title")?.focus({ preventScroll: true });
  } else if (newScreen && endScreen) {
    // The game is over: the title says how, and a screen reader reads it first.
    document.getElementById("end-title")?.focus({ preventScroll: true });
  }
  // Every screen starts at its top (its title, the room code and the invite
  // link), wherever the last one was scrolled to.
  if (newScreen) window.scrollTo(0, 0);
}

/** Back or forward in the browser's history: the page the address names. */
function onNavigate() {
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
  if (!codeFromPath() && S.room) leaveForHome();
  else {
    S.page = "home";
    askOpenRooms();
  }
}

window.addEventListener("popstate", () => dispatch({ type: "navigate" }));

startStore({ update, render });
registerHooks({ render: redraw, goHome: () => dispatch({ type: "home" }) });

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
    onFrame: (frame) => dispatch({ type: "frame", frame }),
    onSessionEnded: sessionEnded,
    onBanned,
    onStatus: (status) => dispatch({ type: "status", status }),
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
