// The room's chat: the lobby's card and the side panel's tab, and how far it
// has been read (kept across reloads, so no message counts as unread twice).
// A line from another seated person can be reported from the line (moderation.js).

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { send } from "./link.js";
import { reportLineButton } from "./moderation.js";
import { S, mySeat, seatName, stored } from "./state.js";

// How far each room's chat has been read: the time of the last message shown,
// by room code, so a reload counts no message twice.
const CHAT_READ_KEY = "broadside.chat_read";

export function chatRead() {
  const read = stored(CHAT_READ_KEY, {});
  return typeof read === "object" ? read : {};
}

/** Whether the chat is on the screen: the lobby's card, or the side panel's tab in the battle and at the end. */
export function chatShown() {
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

/**
 * Whether this connection is a watcher of a running game: a spectator, or a
 * seat that is out. Its lines then reach only the other watchers.
 */
function watching() {
  const view = S.view;
  if (!S.room?.started || !view || view.phase === "finished") return false;
  const seat = mySeat();
  if (seat === null || seat === undefined) return true;
  return view.seats?.[seat]?.alive === false;
}

/** Why the running game no longer counts for ratings, if it was aborted. */
function abortedNote() {
  const aborted = S.room?.aborted;
  if (!aborted || !S.room?.setup?.rated) return null;
  const name = seatName(aborted.seat);
  return h("p", { class: "notice", id: "game-aborted" }, t("game_aborted", { name }));
}

export function renderChat(card) {
  const list = h(
    "ol",
    { class: "chat-list", "aria-live": "off" },
    S.chat.map((m) =>
      h(
        "li",
        { class: `${m.seat === mySeat() ? "mine" : ""}${m.watchers ? " watchers" : ""}` },
        h("b", {}, m.from || seatName(m.seat)),
        m.watchers ? h("small", { class: "watchers-tag" }, ` (${t("watchers_tag")})`) : null,
        " ",
        h("span", { class: "chat-text" }, m.text),
        reportLineButton(m),
      ),
    ),
  );
  const hint = watching() ? h("p", { class: "muted watchers-hint", id: "watchers-hint" }, `👁 ${t("watchers_hint")}`) : null;
  const input = h("input", { class: "text-input", id: "chat-input", maxlength: "300", placeholder: t("chat_placeholder"), "aria-label": t("chat") });
  const form = h(
    "form",
    {
      class: "chat-form",
      onsubmit: (e) => {
        e.preventDefault();
        // The field on the page: a redraw keeps the live one, not this render's.
        const field = e.currentTarget.querySelector("#chat-input");
        const text = field.value.trim();
        if (!text) return;
        send({ type: "chat", text });
        field.value = "";
        S.keepChatFocus = true;
      },
    },
    input,
    h("button", { class: "button small", type: "submit" }, t("send")),
  );
  const box = h("div", { class: "chat" }, abortedNote(), list, hint, form);
  markChatRead();
  requestAnimationFrame(() => {
    // The list on the page by then, which a redraw may have kept rather than this one.
    for (const shown of document.querySelectorAll(".chat-list")) shown.scrollTop = shown.scrollHeight;
    if (S.keepChatFocus) {
      document.getElementById("chat-input")?.focus();
      S.keepChatFocus = false;
    }
  });
  return card ? h("section", { class: "card chat-card" }, h("h2", {}, t("chat")), box) : box;
}
