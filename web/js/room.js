// The room the page is in: its address (/r/<code>), the rooms this browser has
// been in, joining by code, joining again after a reconnection, and the room frame.

import { t } from "./i18n.js";
import { send } from "./link.js";
import { nicknameOk } from "./nickfield.js";
import { resetPlacement } from "./placement.js";
import { resetShop } from "./shop.js";
import { S, stored } from "./state.js";

// The codes of the rooms this browser has been in (most recent last): a
// reload there goes straight back in, a new invitation asks for a name first.
const ROOMS_KEY = "broadside.rooms";

export function rejoin() {
  const code = S.room?.code || codeFromPath();
  // An invited guest joins once they have said under which name (renderInvite).
  if (code && !(S.invite === code && !S.inviteAccepted)) {
    const as = S.room?.you?.spectator || new URLSearchParams(location.search).has("watch") ? "spectator" : "player";
    S.pendingJoin = code;
    send({ type: "join_room", code, as });
  }
}

export function knownRooms() {
  const rooms = stored(ROOMS_KEY, []);
  return Array.isArray(rooms) ? rooms : [];
}

function rememberRoom(code) {
  const rooms = knownRooms().filter((known) => known !== code);
  rooms.push(code);
  localStorage.setItem(ROOMS_KEY, JSON.stringify(rooms.slice(-100)));
}

export function codeFromPath() {
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  return match ? match[1].toUpperCase() : null;
}

export function onRoom(room) {
  // Paired by the quick match, a bot accepted, or a room joined from the list.
  S.matching = null;
  S.page = "home";
  const changedRoom = !S.room || S.room.code !== room.code;
  if (changedRoom) {
    S.log = [];
    S.chat = [];
    S.unreadChat = 0;
    S.view = null;
    S.previousView = null;
    resetPlacement();
    resetShop();
  }
  if (S.room && S.room.started && !room.started) {
    // A rematch took the room back to its lobby.
    S.view = null;
    S.previousView = null;
    S.log = [];
    resetPlacement();
    resetShop();
  }
  // A new offer makes the last "declined" obsolete.
  if (room.rematch) S.rematchNote = null;
  S.room = room;
  S.pendingJoin = null;
  S.invite = null;
  S.inviteAccepted = false;
  if (changedRoom) rememberRoom(room.code);
  if (S.autoStart && !room.started && room.you?.seat === room.host && !room.seats.some((s) => s.kind === "open")) {
    // Nothing to choose in this lobby: the game starts (the server answers with its first state).
    S.autoStart = false;
    S.starting = room.code;
    send({ type: "start" });
  }
  const path = `/r/${room.code}`;
  if (location.pathname !== path) history.pushState({}, "", path + location.search);
  document.title = `${t("app_name")} · ${room.code}`;
}

export function joinCode(code, as = "player") {
  const clean = code.trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
  if (!clean) return;
  if (!nicknameOk()) return;
  S.pendingJoin = clean;
  send({ type: "join_room", code: clean, as });
}
