// Moderation among strangers (docs/protocol.md "Blocks and reports"): a
// person blocks or reports another by seat, from the "⋯" beside their name
// (the lobby's seats, the battle's boards and fleets, the end screen) or from
// one of their chat lines; the blocks list with Unblock is the account
// panel's (account.js, for guests too: blocks are the person's). And what the
// operators' sanctions look like here: a ban closes the link (4006) and the
// page says so, trying again only once a minute; a mute refuses chat lines.

import { dateTime, errorText, t } from "./i18n.js";
import { h } from "./dom.js";
import { render } from "./hooks.js";
import { getLink, send } from "./link.js";
import { announce, toast } from "./notify.js";
import { S, mySeat } from "./state.js";

/** What a report may say it is about (the server's REPORT_REASONS). */
export const REPORT_REASONS = ["abuse", "spam", "cheating", "other"];

/** A report's note has at most this many characters (docs/protocol.md). */
const MAX_NOTE_CHARS = 500;

/** The frames whose refusals the dialog (or the blocks list) shows. */
const MODERATION_REQUESTS = new Set(["block", "report", "unblock", "blocks"]);

/**
 * The dialog and what it knows. `target` is the person it speaks of
 * ({ seat, name, code }) while it is open, else null; `mode` its step:
 * "menu", "block" (the confirmation) or "report".
 */
const M = {
  target: null,
  mode: "menu",
  reason: "abuse",
  note: "",
  // The request on its way ("block", "report"), else null.
  busy: null,
  // What went wrong last, shown in the dialog.
  problem: null,
  // The id of the button that opened the dialog: it gets the focus back.
  returnFocus: null,
  // The person's blocks (`blocks` frame), once the server has said.
  blocks: null,
  // How many `blocks` questions are still unanswered: their answers come
  // before the answer to a block sent after them (the connection answers them
  // itself, the room the block).
  asked: 0,
  // The unblock on its way: the player id, else null.
  unblocking: null,
  // Blocked here: "code:seat" → player id, so the seat shows it and offers Unblock.
  blockedSeats: new Map(),
  // The operators' ban, once the server said so: { until } (unix ms, or null when unknown or for good).
  ban: null,
};

// ------------------------------------------------------------ who

/** The person in `seat` of the room, when it is another person than this one; else null. */
function otherPerson(seat) {
  if (seat === null || seat === undefined || seat === mySeat()) return null;
  const info = S.room?.seats?.find((s) => s.seat === seat);
  return info && info.kind === "person" ? info : null;
}

function seatKey(seat) {
  return `${S.room?.code}:${seat}`;
}

/** Whether this person blocked the one in `seat` (as far as this page knows). */
export function seatBlocked(seat) {
  const player = M.blockedSeats.get(seatKey(seat));
  return player !== undefined && (M.blocks || []).some((b) => b.player === player);
}

// ------------------------------------------------------------ elsewhere on the page

/**
 * The "⋯" beside another person's name: opens the dialog to block or report
 * them. Null for the own seat, bots and open seats. With a "Blocked" tag when
 * this person blocked them here. `place` names where it is (its id is
 * "person-<place>-<seat>", so the focus comes back to it after a redraw).
 */
export function personButton(seat, place) {
  const person = otherPerson(seat);
  if (!person) return null;
  const name = person.nickname || t("seat_n", { n: seat + 1 });
  return h(
    "span",
    { class: "person-actions" },
    seatBlocked(seat) ? h("span", { class: "tag blocked-tag", dataset: { seat: String(seat) } }, `🚫 ${t("blocked_tag")}`) : null,
    h(
      "button",
      {
        class: "person-button",
        type: "button",
        title: t("person_actions", { name }),
        "aria-label": t("person_actions", { name }),
        "aria-haspopup": "dialog",
        id: `person-${place}-${seat}`,
        dataset: { seat: String(seat) },
        onclick: (e) => {
          e.stopPropagation();
          openModeration(seat, "menu", { from: `person-${place}-${seat}` });
        },
      },
      "⋯",
    ),
  );
}

/** The "⚑" of a chat line from another seated person: reports them with the line as the note. */
export function reportLineButton(message) {
  const person = otherPerson(message.seat);
  if (!person) return null;
  const name = message.from || person.nickname;
  const id = `chat-report-${message.at || 0}-${message.seat}`;
  return h(
    "button",
    {
      class: "chat-report",
      type: "button",
      id,
      title: t("report_message", { name }),
      "aria-label": t("report_message", { name }),
      dataset: { seat: String(message.seat), at: String(message.at || "") },
      onclick: () => openModeration(message.seat, "report", { note: message.text, from: id }),
    },
    "⚑",
  );
}

// ------------------------------------------------------------ the dialog

/** Whether the dialog is open over the screen. */
export function moderationOpen() {
  return M.target !== null;
}

/**
 * Opens the dialog about the person in `seat`, at `mode` ("menu", "block",
 * "report"); `note` starts the report's note, `from` is the id of the button
 * that gets the focus back.
 */
export function openModeration(seat, mode = "menu", { note = "", from = null } = {}) {
  const person = otherPerson(seat);
  if (!person) return;
  M.target = { seat, name: person.nickname || t("seat_n", { n: seat + 1 }), code: S.room.code };
  M.mode = mode;
  M.reason = "abuse";
  M.note = [...note].slice(0, MAX_NOTE_CHARS).join("");
  M.busy = null;
  M.problem = null;
  M.returnFocus = from;
  // The list is known before the answer to a block, which then tells the new one.
  askBlocks();
  render();
  focusFirst();
}

function closeModeration() {
  const back = M.returnFocus;
  M.target = null;
  M.busy = null;
  M.problem = null;
  render();
  focusBack(back);
}

/** The focus goes back to the button that opened the dialog, if it is still there. */
function focusBack(id) {
  requestAnimationFrame(() => {
    if (id) document.getElementById(id)?.focus();
  });
}

function go(mode) {
  M.mode = mode;
  M.problem = null;
  render();
  focusFirst();
}

function focusFirst() {
  requestAnimationFrame(() => {
    const panel = document.getElementById("moderation-panel");
    const first = M.mode === "report" ? panel?.querySelector("#report-reason") : panel?.querySelector(".moderation-body button");
    (first || document.getElementById("moderation-close"))?.focus();
  });
}

function sendBlock() {
  M.busy = "block";
  M.problem = null;
  send({ type: "block", seat: M.target.seat });
  render();
}

function sendReport() {
  const note = M.note.trim();
  M.busy = "report";
  M.problem = null;
  const frame = { type: "report", seat: M.target.seat, reason: M.reason };
  if (note) frame.note = note;
  send(frame);
  render();
}

function backButton() {
  return h("button", { class: "button ghost", type: "button", id: "moderation-back", onclick: () => go("menu") }, `← ${t("back")}`);
}

function menuBody(name, blocked) {
  const player = M.blockedSeats.get(seatKey(M.target.seat));
  return [
    h("p", { id: "moderation-intro" }, t("moderation_intro", { name })),
    h(
      "div",
      { class: "account-actions" },
      blocked
        ? h("button", { class: "button", type: "button", id: "moderation-unblock", onclick: () => unblock(player) }, `↩ ${t("unblock_person", { name })}`)
        : h("button", { class: "button danger", type: "button", id: "moderation-block", onclick: () => go("block") }, `🚫 ${t("block_person", { name })}`),
      h("button", { class: "button", type: "button", id: "moderation-report", onclick: () => go("report") }, `⚑ ${t("report_person", { name })}`),
    ),
  ];
}

function blockBody(name) {
  return [
    h("h2", {}, t("block_person", { name })),
    h("p", { id: "block-explain" }, t("block_explain", { name })),
    h(
      "div",
      { class: "row-buttons" },
      h("button", { class: "button danger", type: "button", id: "block-confirm", disabled: Boolean(M.busy), onclick: sendBlock }, M.busy ? t("loading") : `🚫 ${t("block_yes", { name })}`),
      backButton(),
    ),
  ];
}

function reportBody(name) {
  return [
    h("h2", {}, t("report_person", { name })),
    h("p", { id: "report-explain" }, t("report_explain", { name })),
    h(
      "form",
      {
        class: "account-form",
        id: "report-form",
        onsubmit: (e) => {
          e.preventDefault();
          if (!M.busy) sendReport();
        },
      },
      h(
        "div",
        { class: "account-field" },
        h("label", { for: "report-reason" }, t("report_reason")),
        h(
          "select",
          {
            class: "select",
            id: "report-reason",
            onchange: (e) => {
              M.reason = e.target.value;
            },
          },
          REPORT_REASONS.map((reason) => h("option", { value: reason, selected: reason === M.reason }, t(`reason.${reason}`))),
        ),
      ),
      h(
        "div",
        { class: "account-field" },
        h("label", { for: "report-note" }, t("report_note")),
        h("textarea", {
          class: "text-input",
          id: "report-note",
          rows: "4",
          maxlength: String(MAX_NOTE_CHARS),
          "aria-describedby": "report-note-hint",
          oninput: (e) => {
            M.note = e.target.value;
          },
        }, M.note),
        h("small", { class: "muted", id: "report-note-hint" }, t("report_note_hint", { n: MAX_NOTE_CHARS })),
      ),
      h(
        "div",
        { class: "row-buttons" },
        h("button", { class: "button primary", type: "submit", id: "report-submit", disabled: Boolean(M.busy) }, M.busy ? t("loading") : `⚑ ${t("report_send")}`),
        backButton(),
      ),
    ),
  ];
}

/** The dialog: over the screen, closed with ✕, Escape or a click beside it. */
export function renderModeration() {
  const { name, seat } = M.target;
  const blocked = seatBlocked(seat);
  let body;
  if (M.mode === "block" && !blocked) body = blockBody(name);
  else if (M.mode === "report") body = reportBody(name);
  else body = menuBody(name, blocked);
  return h(
    "div",
    {
      class: "modal-backdrop",
      onclick: (e) => {
        if (e.target === e.currentTarget) closeModeration();
      },
    },
    h(
      "div",
      { class: "modal card moderation-panel", id: "moderation-panel", role: "dialog", "aria-modal": "true", "aria-labelledby": "moderation-title", dataset: { mode: M.mode, seat: String(seat) } },
      h(
        "div",
        { class: "modal-head" },
        h("h1", { id: "moderation-title" }, `🛡 ${name}`),
        h("button", { class: "icon-button", type: "button", id: "moderation-close", "aria-label": t("close"), onclick: closeModeration }, "✕"),
      ),
      h(
        "div",
        { class: "account-body moderation-body" },
        M.problem ? h("p", { class: "notice error", id: "moderation-problem", role: "alert" }, `⚠ ${M.problem}`) : null,
        body,
      ),
    ),
  );
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && M.target && !S.rulesOpen) closeModeration();
});

// ------------------------------------------------------------ the blocks list (account panel)

/** Asks the server for the person's blocks (the account panel, the dialog). */
export function askBlocks() {
  M.asked += 1;
  send({ type: "blocks" });
}

/** The person's blocks ({ player, name }), or null until the server has said. */
export function blockList() {
  return M.blocks;
}

/** Whether an unblock is on its way. */
export function unblocking() {
  return M.unblocking;
}

/** Lifts a block (a player id of the `blocks` frame). */
export function unblock(player) {
  if (player === undefined || player === null) return;
  M.unblocking = player;
  send({ type: "unblock", player });
  render();
}

// ------------------------------------------------------------ frames

/** A new person on this link (welcome): their blocks are asked for again when needed. */
export function onModerationWelcome() {
  M.blocks = null;
  M.asked = 0;
  M.blockedSeats.clear();
  M.unblocking = null;
  if (M.ban) {
    // The ban was lifted: the page is back.
    M.ban = null;
    announce(t("net_online"));
  }
}

/** The frames of moderation (`blocks`, `reported`); the caller redraws. */
export function onModerationFrame(frame) {
  if (frame.type === "blocks") onBlocks(frame.players || []);
  else if (frame.type === "reported") {
    M.busy = null;
    M.target = null;
    toast(t("report_thanks"), "info");
    announce(t("report_thanks"));
    restoreFocus();
  }
}

function restoreFocus() {
  focusBack(M.returnFocus);
}

function onBlocks(players) {
  const before = M.blocks;
  M.blocks = players;
  for (const [key, player] of M.blockedSeats) if (!players.some((b) => b.player === player)) M.blockedSeats.delete(key);
  if (M.asked > 0) {
    // The answer to a question: nothing was blocked or lifted.
    M.asked -= 1;
    return;
  }
  if (M.busy === "block" && M.target) {
    // The new entry of the list is the person just blocked.
    const known = new Set((before || []).map((b) => b.player));
    const added = players.find((b) => !known.has(b.player)) || players.find((b) => b.name === M.target.name);
    const { seat, name } = M.target;
    if (added) M.blockedSeats.set(seatKey(seat), added.player);
    // Their lines already shown go too: the server sends no more of them.
    S.chat = S.chat.filter((line) => line.seat !== seat);
    M.busy = null;
    M.target = null;
    toast(t("blocked_done", { name }), "info");
    announce(t("blocked_done", { name }));
    restoreFocus();
  }
  if (M.unblocking !== null) {
    const lifted = (before || []).find((b) => b.player === M.unblocking);
    M.unblocking = null;
    if (M.target) M.target = null;
    const text = t("unblocked_done", { name: lifted?.name || "" });
    toast(text, "info");
    announce(text);
  }
}

/**
 * A refused frame that moderation speaks of: a block or report (shown in the
 * dialog), a banned hello, a muted chat line, a join a block forbids. Returns
 * true when handled; the caller redraws.
 */
export function onModerationError(frame) {
  if (frame.code === "banned" && frame.request === "hello") {
    M.ban = { until: untilOf(frame.message) };
    M.target = null;
    S.accountOpen = false;
    announce(banText());
    return true;
  }
  if (frame.code === "muted") {
    const text = sanctionText(frame);
    toast(text, "error");
    announce(text);
    return true;
  }
  if (!MODERATION_REQUESTS.has(frame.request)) return false;
  if (frame.request === "blocks") M.asked = Math.max(0, M.asked - 1);
  const text = errorText(frame.code, frame.message);
  M.busy = null;
  M.unblocking = null;
  if (M.target) M.problem = text;
  else toast(text, "error");
  announce(text);
  return true;
}

/** The moment a sanction's message says it ends ("until 1764423000000 (unix ms)"), else null. */
function untilOf(message) {
  const match = /until (\d+)/.exec(message || "");
  return match ? Number(match[1]) : null;
}

/** A banned or muted refusal in words, with until when. */
export function sanctionText(frame) {
  const until = untilOf(frame.message);
  const text = errorText(frame.code, null);
  if (until === null) return text;
  return `${text} ${t(frame.code === "muted" ? "mute_until" : "ban_until", { when: dateTime(until) })}`;
}

// ------------------------------------------------------------ a ban

/** Whether the operators banned this person (the page shows the notice instead of a screen). */
export function banned() {
  return M.ban !== null;
}

/** The link was closed with 4006: the person is banned; the link tries again once a minute. */
export function onBanned() {
  if (!M.ban) M.ban = { until: null };
  M.target = null;
  S.accountOpen = false;
  announce(banText());
  render();
}

function banText() {
  const until = M.ban?.until;
  return `${t("banned_text")} ${until ? t("ban_until", { when: dateTime(until) }) : ""}`.trim();
}

/** The notice that replaces the screen while the person is banned. */
export function renderBanned() {
  const until = M.ban.until;
  return h(
    "main",
    { class: "banned" },
    h(
      "section",
      { class: "card banned-card", id: "banned-notice", role: "alert" },
      h("div", { class: "end-emblem", "aria-hidden": "true" }, "🚫"),
      h("h1", { id: "banned-title", tabindex: "-1" }, t("banned_title")),
      h("p", { id: "banned-text" }, t("banned_text")),
      until ? h("p", { id: "banned-until" }, h("strong", {}, t("ban_until", { when: dateTime(until) }))) : null,
      h("p", { class: "muted", id: "banned-retry-note" }, t("banned_retry_note")),
      h(
        "div",
        { class: "row-buttons center" },
        h(
          "button",
          {
            class: "button",
            type: "button",
            id: "banned-retry",
            disabled: S.status === "connecting",
            onclick: () => getLink().retryNow(),
          },
          S.status === "connecting" ? t("net_connecting") : `↻ ${t("banned_retry")}`,
        ),
      ),
    ),
  );
}
