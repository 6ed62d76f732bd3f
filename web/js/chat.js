// The room's chat: the lobby's card and the side panel's tab, and how far it
// has been read (kept across reloads, so no message counts as unread twice).

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { send } from "./link.js";
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

export function renderChat(card) {
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
