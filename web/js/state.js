// The store: everything the page knows (the state object S), the one way it
// changes (dispatch), and the readers of the room the page is in: whose seat
// is whose, the room's rules, names of seats, presets and ship types.
//
// As in the terminal client's loop, a change is a message: a frame from the
// server, the link's status, a step back in the browser's history, a
// person's move of a ship in placement, a shot or a tab chosen in battle. `dispatch` hands it to the update
// (app.js registers it: the entry knows every module's handlers, and no
// module may import the entry), which changes S; then the page is drawn
// again from S, as a patch of the page (dom.js).

import { plural, shipName, t } from "./i18n.js";
import { cellLabel } from "./board.js";

export const NICK_KEY = "broadside.nickname";

export const PRESETS = ["classic", "hasbro", "italia", "brasil", "shared", "space"];

export const LEVELS = ["easy", "medium", "hard", "expert", "admiral"];

/** Everything the page knows. Rendering reads it; messages (dispatch) change it. */
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
  salvoAction: null,
  // The cells chosen for the reserve's fighters while the person picks them, else null.
  reserve: null,
  // The cells of a reserve on its way to the server, so a refusal can say what went wrong.
  reserveSent: null,
  // The seat's round in which the person last sent a salvo: a round resolved
  // without one ran out of time.
  salvoSentRound: null,
  laserEnd: "top",
  tab: null,
  roundSummary: null,
  special: null,
  bombardAxis: "row",
  pendingJoin: null,
  copied: false,
  sideTab: "log",
  lastPhase: null,
  // The quick match while the person waits for one (public.js), else null.
  matching: null,
  // The open public rooms of the home page's list, once the server has said.
  openRooms: null,
  // The person's finished games (`history`), once the server has said.
  history: null,
  // Which page shows when no room and no replay does: "home" or "leaderboard".
  page: "home",
  // The leaderboard page's preset and players (null until they arrive).
  leaderboard: null,
  // The replay page's game (replay.js), else null.
  replay: null,
  // The statistics of the finished game in view (the finished state frame's `stats`).
  stats: null,
  // Why the last rematch offer was withdrawn (the server's rematch_declined frame), until a new one.
  rematchNote: null,
  // Whether "Play a friend" makes the room public (listed) and rated.
  homePublic: false,
  homeRated: false,
  // The name field's text while it differs from the name in use (null when
  // it does not), and what is wrong with it (an i18n key, else null).
  nickDraft: null,
  nickProblem: null,
  // A bot game made with "Play vs bot" starts as soon as its room exists
  // (true until then), and the code of the room while its start is on the way.
  autoStart: false,
  starting: null,
  // The room of an invitation link while the guest chooses a name, and
  // whether they have (the join is on its way).
  invite: null,
  inviteAccepted: false,
  // Whether the name in use was made up by the page on a first visit.
  nickGenerated: false,
  // The account's username when this session is an account's (`welcome`), else null (a guest).
  username: null,
  // Whether the account panel (account.js) is open over the screen.
  accountOpen: false,
  // Whether this device's session was just ended on another device (closed with 4005).
  signedOutElsewhere: false,
  // Whether a guest asked for rated play (a rated switch, or `account_needed`): the way to an account is shown.
  accountNeeded: false,
  // The placement screen's state (placement.js), fresh for each game.
  placement: { ...newPlacement(), previewSerial: 0 },
};

/** The placement screen's state at the start of a game (placement.js keeps its preview's count). */
export function newPlacement() {
  return {
    // The layout not sent yet: fleet index → { type, at, rot }.
    placed: new Map(),
    // The fleet index picked for ↻ Rotate and R, else null.
    selected: null,
    // The ship dragged with the pointer (with its ghost), else null.
    drag: null,
    // The ship carried with the keyboard ({ index, rot, at, previous }), else null.
    carry: null,
    // The line under the board ({ ok, text }), else null.
    hint: null,
    // Whether Ready was just sent (a second click meanwhile sends nothing).
    sending: false,
    // The server's answers about layouts, by the layout's JSON, so a drag does not ask twice.
    answers: new Map(),
    // What the board shows of the ship in hand (dragged, or carried): its lit
    // cells and the hint under the board, drawn again by a redraw while the
    // ship is held (a frame: someone got ready), so the preview does not
    // vanish under the pointer.
    inHand: null,
    // The rotation each docked ship will have when taken out, by fleet index.
    dockRot: new Map(),
  };
}

const store = { update: () => true, render: () => {} };
// Whether a message is being handled, and whether the page is to be drawn
// once it has been.
let updating = false;
let redrawAfter = false;

/** Called once by app.js with the update of the state and the render of the page. */
export function startStore({ update, render }) {
  Object.assign(store, { update, render });
}

/**
 * The one way in for a change: `message.type` says what happened. The
 * update changes S and says whether the page shows it (false: nothing to
 * draw, as for a pong); the page is then drawn once. A message sent while
 * another is handled is handled at once, and drawn with it.
 */
export function dispatch(message) {
  const outer = !updating;
  if (outer) redrawAfter = false;
  updating = true;
  try {
    if (store.update(message) !== false) redrawAfter = true;
  } finally {
    if (outer) updating = false;
  }
  if (outer && redrawAfter) {
    redrawAfter = false;
    store.render();
  }
}

/** Draws the page again from S: at once, or after the message being handled. */
export function redraw() {
  if (updating) redrawAfter = true;
  else store.render();
}

/** A value the page stored as JSON, or `fallback` when there is none (or it is garbled). */
export function stored(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

export function mySeat() {
  return S.room?.you?.seat ?? null;
}

export function seatName(seat) {
  if (seat === mySeat()) return t("you");
  const info = S.room?.seats?.find((s) => s.seat === seat);
  if (!info) return t("seat_n", { n: seat + 1 });
  if (info.kind === "bot") {
    const name = info.nickname || t("bot_named", { level: t(`level.${info.level || "medium"}`) });
    // Two bots of one level would share a name: the seat number tells them apart.
    const twins = S.room.seats.filter((s) => s.kind === "bot" && s.level === info.level).length > 1;
    return twins ? `${name} ${seat + 1}` : name;
  }
  return info.nickname || t("seat_n", { n: seat + 1 });
}

export function rules() {
  return S.room?.rules;
}

export function label(at) {
  const axis = S.view?.letter_axis || rules()?.letter_axis || "rows";
  return cellLabel(axis, at[0], at[1]);
}

export function presetName(id) {
  return t(`preset.${id}`);
}

export function shipTypeName(id) {
  const type = rules()?.catalogue?.find((c) => c.id === id);
  if (type && /^ship\d+$/.test(id)) return plural("ship.generic", type.shape.cells.length);
  return shipName(id, type?.name);
}
