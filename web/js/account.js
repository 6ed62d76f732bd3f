// The account panel (docs/protocol.md "Accounts"): a dialog over any screen,
// opened from the header (👤) and the home page. A guest creates an account
// with a passkey, signs in with one, with a recovery code or with a code that
// a signed-in device shows; an account sees its passkeys and sessions, adds a
// passkey, shows a code for another device, approves a device (another
// browser, or the terminal's `broadside play --login`), signs out here or
// everywhere else. Guests and accounts alike see whom they block, and unblock
// them (blocks are the person's, docs/protocol.md "Blocks and reports").
//
// The passkey ceremonies run in the browser (navigator.credentials) with the
// options the server sends; the server checks every answer. A new session's
// token replaces the stored one and the link says hello again with it.

import { dateTime, errorText, plural, t } from "./i18n.js";
import { h } from "./dom.js";
import { render } from "./hooks.js";
import { getLink, send } from "./link.js";
import { askBlocks, blockList, sanctionText, unblock, unblocking } from "./moderation.js";
import { nicknameProblem } from "./nickname.js";
import { announce, toast } from "./notify.js";
import { S } from "./state.js";

/** Usernames have 3 to 24 characters, with the nickname rules (docs/protocol.md). */
const MIN_USERNAME_CHARS = 3;

/** The frames whose refusals the panel shows (and no toast elsewhere). */
const ACCOUNT_REQUESTS = new Set([
  "create_account", "passkey_created", "sign_in", "passkey_asserted", "recover", "account", "add_passkey",
  "sign_out", "sign_out_everywhere", "link_offer", "link_redeem", "link_approve",
]);

/**
 * What the panel shows and what its fields hold between redraws. `mode` is
 * the panel's step: for a guest "menu", "create", "sign_in", "recover",
 * "redeem"; for an account "menu", "offer", "approve", "everywhere".
 */
const A = {
  mode: "menu",
  username: "",
  recoveryCode: "",
  linkCode: "",
  approveCode: "",
  // The request on its way (a frame type, or "passkey" while the browser asks for the passkey), else null.
  busy: null,
  // What went wrong last: the text shown in the panel, else null.
  problem: null,
  // The server's `account` frame, once it has said.
  info: null,
  // The ten recovery codes, shown once right after the account is made.
  recoveryCodes: null,
  recoveryCopied: false,
  // The link code this device offers: { code, expiresAt }.
  offer: null,
  // A short note of what just happened (an i18n key), shown at the top.
  done: null,
};

/** Opens the panel (at `mode`, when given). */
export function openAccount(mode = "menu") {
  S.accountOpen = true;
  setMode(mode);
  if (S.username) send({ type: "account" });
  askBlocks();
  render();
  focusFirst();
}

function closeAccount() {
  S.accountOpen = false;
  S.signedOutElsewhere = false;
  A.done = null;
  A.problem = null;
  A.mode = "menu";
  render();
  document.getElementById("header-account")?.focus();
}

function setMode(mode) {
  A.mode = mode;
  A.problem = null;
  A.busy = null;
  if (mode !== "menu") A.done = null;
}

/** Puts the focus on the panel's first field (or its first button) after the redraw. */
function focusFirst() {
  requestAnimationFrame(() => {
    const panel = document.getElementById("account-panel");
    const first = panel?.querySelector("input:not([readonly])") || panel?.querySelector(".account-body button");
    (first || document.getElementById("account-close"))?.focus();
  });
}

function go(mode) {
  setMode(mode);
  render();
  focusFirst();
}

// ------------------------------------------------------------ frames

/** The `welcome` frame: whose session this is. */
export function onWelcome(frame) {
  S.username = frame.username || null;
  if (!S.username) A.info = null;
  if (S.accountOpen && S.username) send({ type: "account" });
  // Another person's blocks, or the same again after a reconnection.
  if (S.accountOpen) askBlocks();
}

/**
 * This browser's person changes (signed in, signed out): what the page knew
 * of the last one's games goes until the new welcome's answers come.
 */
function forgetPerson() {
  A.info = null;
  A.recoveryCodes = null;
  A.offer = null;
  S.history = null;
  S.myGames = null;
}

/** The frames of accounts; the caller redraws. */
export function onAccountFrame(frame) {
  switch (frame.type) {
    case "passkey_create":
      createPasskey(frame.options);
      break;
    case "passkey_request":
      usePasskey(frame.options);
      break;
    case "account":
      onAccount(frame);
      break;
    case "signed_in":
      onSignedIn(frame);
      break;
    case "signed_out":
      A.busy = null;
      forgetPerson();
      S.username = null;
      setMode("menu");
      A.done = "account_signed_out";
      announce(t("account_signed_out"));
      getLink().forgetToken();
      break;
    case "link_code":
      A.busy = null;
      A.offer = { code: frame.code, expiresAt: Date.now() + frame.expires_in_ms };
      announce(t("link_offer_title"));
      break;
    case "link_approved":
      A.busy = null;
      A.approveCode = "";
      setMode("menu");
      A.done = "link_approved";
      announce(t("link_approved"));
      break;
    default:
      break;
  }
}

function onAccount(frame) {
  const was = A.busy;
  A.info = frame;
  S.username = frame.username;
  A.busy = null;
  A.problem = null;
  if (frame.recovery_codes) {
    // The account was just made: its recovery codes are shown this once.
    A.recoveryCodes = frame.recovery_codes;
    A.recoveryCopied = false;
    // A lobby seat taken as a guest becomes the account's when joined again
    // (docs/protocol.md: a rated room seats accounts only).
    if (S.room && !S.room.started && S.room.you && !S.room.you.spectator) send({ type: "join_room", code: S.room.code, as: "player" });
    A.mode = "menu";
    A.done = "account_created";
    S.accountOpen = true;
    announce(t("account_created"));
    requestAnimationFrame(() => document.getElementById("recovery-codes-title")?.focus());
  } else if (was === "sign_out_everywhere") {
    A.mode = "menu";
    A.done = "everywhere_done";
    announce(t("everywhere_done"));
  } else if (was === "add_passkey" || was === "passkey") {
    A.done = "passkey_added";
    announce(t("passkey_added"));
  }
}

function onSignedIn(frame) {
  A.busy = null;
  forgetPerson();
  A.username = "";
  A.recoveryCode = "";
  A.linkCode = "";
  S.username = frame.username;
  S.signedOutElsewhere = false;
  setMode("menu");
  A.done = "signed_in_as";
  announce(t("signed_in_as", { name: frame.username }));
  // The new session's token replaces this one; the link says hello with it.
  getLink().useToken(frame.token);
}

/** A refused frame: the panel's own are shown in it. Returns true when handled. */
export function onAccountError(frame) {
  if (frame.code === "account_needed") {
    S.accountNeeded = true;
    return false;
  }
  if (!ACCOUNT_REQUESTS.has(frame.request)) return false;
  A.busy = null;
  // A banned person's sign-in is refused with until when.
  A.problem = frame.code === "banned" ? sanctionText(frame) : errorText(frame.code, frame.message);
  if (frame.code === "link_code_invalid" && frame.request === "link_offer") A.offer = null;
  if (!S.accountOpen) toast(A.problem, "error");
  announce(A.problem);
  return true;
}

/**
 * The connection was closed with 4005: this session was ended on another
 * device. The link has forgotten the token and connects again as a guest.
 */
export function sessionEnded() {
  S.username = null;
  forgetPerson();
  S.signedOutElsewhere = true;
  S.accountOpen = true;
  setMode("menu");
  announce(t("signed_out_elsewhere"));
  render();
}

// ------------------------------------------------------------ passkeys

async function createPasskey(options) {
  if (!passkeysWork()) return;
  A.busy = "passkey";
  render();
  try {
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options);
    const credential = await navigator.credentials.create({ publicKey });
    A.busy = A.info ? "add_passkey" : "passkey_created";
    send({ type: "passkey_created", credential: credential.toJSON() });
  } catch (error) {
    passkeyRefused(error);
  }
  render();
}

async function usePasskey(options) {
  if (!passkeysWork()) return;
  A.busy = "passkey";
  render();
  try {
    const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
    const credential = await navigator.credentials.get({ publicKey });
    A.busy = "passkey_asserted";
    send({ type: "passkey_asserted", credential: credential.toJSON() });
  } catch (error) {
    passkeyRefused(error);
  }
  render();
}

/** Whether this browser can use passkeys; if not the panel says so. */
function passkeysWork() {
  const ok = typeof PublicKeyCredential !== "undefined" && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function" && window.isSecureContext;
  if (!ok) {
    A.busy = null;
    A.problem = t("passkey_unsupported");
    announce(A.problem);
    render();
  }
  return ok;
}

function passkeyRefused(error) {
  A.busy = null;
  // NotAllowedError: the person closed the browser's passkey window (or it timed out).
  A.problem = error?.name === "NotAllowedError" ? t("passkey_cancelled") : `${t("passkey_browser_failed")} (${error?.name || error})`;
  announce(A.problem);
}

// ------------------------------------------------------------ sending

function request(frame, busy = frame.type) {
  A.busy = busy;
  A.problem = null;
  A.done = null;
  send(frame);
  render();
}

/** What is wrong with a username typed here (an i18n key), or null. */
function usernameProblem(text) {
  const problem = nicknameProblem(text);
  if (problem === "nick_empty" || (!problem && [...text.trim()].length < MIN_USERNAME_CHARS)) return "username_too_short";
  if (problem === "nick_too_long") return "username_too_long";
  return problem ? "username_hidden" : null;
}

function submitUsername(type) {
  const problem = usernameProblem(A.username);
  if (problem) {
    A.problem = t(problem);
    announce(A.problem);
    render();
    document.getElementById("account-username")?.focus();
    return;
  }
  request({ type, username: A.username.trim() });
}

/** A code as typed: letters and digits only, upper-case (link codes are 8 letters). */
function cleanCode(text) {
  return text.replace(/[^0-9a-z]/gi, "").toUpperCase();
}

function submitCode(type, text, field) {
  const code = cleanCode(text);
  if (!code) {
    A.problem = t("code_empty");
    render();
    document.getElementById(field)?.focus();
    return;
  }
  request({ type, code });
}

// ------------------------------------------------------------ drawing

function busyLabel(label) {
  return A.busy === "passkey" ? t("passkey_waiting") : A.busy ? t("loading") : label;
}

function field(id, labelText, key, { hint = null, autocomplete = "off", maxlength = null, code = false } = {}) {
  const hintId = hint ? `${id}-hint` : null;
  return h(
    "div",
    { class: "account-field" },
    h("label", { for: id }, labelText),
    h("input", {
      id,
      class: `text-input ${code ? "code-input" : ""}`,
      type: "text",
      autocomplete,
      autocapitalize: code ? "characters" : "off",
      spellcheck: "false",
      maxlength,
      value: A[key],
      "aria-describedby": hintId,
      oninput: (e) => {
        A[key] = e.target.value;
      },
    }),
    hint ? h("small", { class: "muted", id: hintId }, hint) : null,
  );
}

/** A form of the panel: its fields, a main button and Back. */
function form(id, onSubmit, fields, submitId, submitLabel) {
  return h(
    "form",
    {
      class: "account-form",
      id,
      onsubmit: (e) => {
        e.preventDefault();
        if (!A.busy) onSubmit();
      },
    },
    fields,
    h(
      "div",
      { class: "row-buttons" },
      h("button", { class: "button primary", type: "submit", id: submitId, disabled: Boolean(A.busy) }, busyLabel(submitLabel)),
      backButton(),
    ),
  );
}

function backButton() {
  return h("button", { class: "button ghost", type: "button", id: "account-back", onclick: () => go("menu") }, `← ${t("back")}`);
}

function guestBody() {
  switch (A.mode) {
    case "create":
      return [
        h("h2", {}, t("account_create")),
        h("p", {}, t("account_create_hint")),
        form(
          "account-create-form",
          () => submitUsername("create_account"),
          field("account-username", t("username"), "username", { hint: t("username_rules"), autocomplete: "username webauthn", maxlength: "24" }),
          "account-create-submit",
          `🔑 ${t("account_create_button")}`,
        ),
      ];
    case "sign_in":
      return [
        h("h2", {}, t("sign_in")),
        h("p", {}, t("sign_in_hint")),
        form("account-sign-in-form", () => submitUsername("sign_in"), field("account-username", t("username"), "username", { autocomplete: "username webauthn", maxlength: "24" }), "account-sign-in-submit", `🔑 ${t("sign_in_button")}`),
      ];
    case "recover":
      return [
        h("h2", {}, t("recover")),
        h("p", {}, t("recover_hint")),
        form(
          "account-recover-form",
          () => {
            if (usernameProblem(A.username)) return submitUsername("recover");
            if (!cleanCode(A.recoveryCode)) return submitCode("recover", "", "account-recovery-code");
            request({ type: "recover", username: A.username.trim(), code: A.recoveryCode.trim() });
          },
          [
            field("account-username", t("username"), "username", { autocomplete: "username", maxlength: "24" }),
            field("account-recovery-code", t("recovery_code"), "recoveryCode", { hint: t("recovery_code_hint"), maxlength: "20", code: true }),
          ],
          "account-recover-submit",
          t("sign_in_button_plain"),
        ),
      ];
    case "redeem":
      return [
        h("h2", {}, t("redeem")),
        h("p", {}, t("redeem_hint")),
        form("account-redeem-form", () => submitCode("link_redeem", A.linkCode, "account-link-code"), field("account-link-code", t("link_code"), "linkCode", { maxlength: "12", code: true }), "account-redeem-submit", t("sign_in_button_plain")),
      ];
    default:
      return [
        h("p", { id: "account-guest" }, t("account_guest_intro")),
        h("ul", { class: "account-perks" }, ["account_perk_devices", "account_perk_rated", "account_perk_passkey"].map((key) => h("li", {}, t(key)))),
        h(
          "div",
          { class: "account-actions" },
          h("button", { class: "button primary", type: "button", id: "account-create", onclick: () => go("create") }, `✨ ${t("account_create")}`),
          h("button", { class: "button", type: "button", id: "account-sign-in", onclick: () => go("sign_in") }, `🔑 ${t("sign_in")}`),
          h("button", { class: "button ghost", type: "button", id: "account-redeem", onclick: () => go("redeem") }, `📱 ${t("redeem")}`),
          h("button", { class: "button ghost", type: "button", id: "account-recover", onclick: () => go("recover") }, `🧾 ${t("recover")}`),
        ),
        blocksSection(),
      ];
  }
}

function minutes(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function offerLeft() {
  return A.offer ? A.offer.expiresAt - Date.now() : 0;
}

function countdownText() {
  const left = offerLeft();
  return left > 0 ? t("link_offer_left", { time: minutes(left) }) : t("link_offer_expired");
}

// The link code's countdown, drawn in place every half second.
setInterval(() => {
  const el = document.querySelector("[data-link-countdown]");
  if (!el || !A.offer) return;
  el.textContent = countdownText();
  if (offerLeft() <= 0 && !el.dataset.expired) render();
}, 500);

function recoveryCodesCard() {
  const codes = A.recoveryCodes;
  return h(
    "section",
    { class: "recovery-codes notice", id: "recovery-codes", "aria-labelledby": "recovery-codes-title" },
    h("h2", { id: "recovery-codes-title", tabindex: "-1" }, `⚠ ${t("recovery_codes_title")}`),
    h("p", {}, h("strong", {}, t("recovery_codes_save"))),
    h("p", { class: "small" }, t("recovery_codes_hint")),
    h("ol", { class: "recovery-list" }, codes.map((code) => h("li", {}, h("code", {}, code)))),
    h(
      "div",
      { class: "row-buttons" },
      h(
        "button",
        {
          class: "button",
          type: "button",
          id: "copy-recovery",
          onclick: async () => {
            try {
              await navigator.clipboard.writeText(codes.join("\n"));
              A.recoveryCopied = true;
              toast(t("copied"));
            } catch {
              // No clipboard (a permission refused): the codes stay on show to be copied by hand.
              toast(t("copy_failed"), "error");
            }
            render();
          },
        },
        A.recoveryCopied ? `✓ ${t("copied")}` : `📋 ${t("copy_codes")}`,
      ),
      h(
        "button",
        {
          class: "button primary",
          type: "button",
          id: "recovery-saved",
          onclick: () => {
            A.recoveryCodes = null;
            render();
            document.getElementById("account-name")?.focus();
          },
        },
        `✓ ${t("recovery_codes_saved")}`,
      ),
    ),
  );
}

function accountFacts() {
  const info = A.info;
  if (!info) return h("p", { class: "muted" }, t("loading"));
  return h(
    "dl",
    { class: "account-facts" },
    h("div", {}, h("dt", {}, t("account_since")), h("dd", {}, dateTime(info.created))),
    h("div", {}, h("dt", {}, t("account_sessions")), h("dd", { id: "account-sessions" }, plural("sessions_n", info.sessions))),
    h("div", {}, h("dt", {}, t("account_recovery_left")), h("dd", { id: "account-recovery-left" }, plural("recovery_left_n", info.recovery_codes_left))),
    h(
      "div",
      { class: "account-passkeys" },
      h("dt", {}, t("account_passkeys")),
      h(
        "dd",
        {},
        h(
          "ul",
          { id: "passkey-list" },
          (info.passkeys || []).map((key, index) =>
            h(
              "li",
              {},
              h("strong", {}, `🔑 ${t("passkey_n", { n: index + 1 })}`),
              " ",
              h("span", { class: "muted" }, t("passkey_created_at", { when: dateTime(key.created) })),
              " · ",
              h("span", { class: "muted" }, key.last_used ? t("passkey_used_at", { when: dateTime(key.last_used) }) : t("passkey_never_used")),
            ),
          ),
        ),
      ),
    ),
  );
}

function accountBody() {
  switch (A.mode) {
    case "offer": {
      const left = offerLeft();
      return [
        h("h2", {}, t("link_offer_title")),
        h("p", {}, t("link_offer_hint")),
        A.offer
          ? h(
              "div",
              { class: "link-offer" },
              h("div", { class: `code-big ${left > 0 ? "" : "expired"}`, id: "link-code", "aria-label": t("link_code"), dataset: { code: A.offer.code } }, A.offer.code.split("").map((ch) => h("span", {}, ch))),
              h("p", { class: "muted", id: "link-countdown", "data-link-countdown": "1", dataset: left > 0 ? {} : { expired: "1" } }, countdownText()),
            )
          : h("p", { class: "muted" }, t("loading")),
        h(
          "div",
          { class: "row-buttons" },
          A.offer && left <= 0 ? h("button", { class: "button primary", type: "button", id: "link-offer-again", onclick: () => request({ type: "link_offer" }) }, t("link_offer_again")) : null,
          backButton(),
        ),
      ];
    }
    case "approve":
      return [
        h("h2", {}, t("link_approve_title")),
        h("p", {}, t("link_approve_hint")),
        form("account-approve-form", () => submitCode("link_approve", A.approveCode, "account-approve-code"), field("account-approve-code", t("link_code"), "approveCode", { maxlength: "12", code: true }), "account-approve-submit", `✓ ${t("link_approve_button")}`),
      ];
    case "everywhere":
      return [
        h("h2", {}, t("sign_out_everywhere")),
        h("p", { id: "everywhere-question" }, t("sign_out_everywhere_confirm")),
        h(
          "div",
          { class: "row-buttons" },
          h("button", { class: "button danger", type: "button", id: "account-everywhere-confirm", disabled: Boolean(A.busy), onclick: () => request({ type: "sign_out_everywhere" }) }, busyLabel(t("sign_out_everywhere_button"))),
          backButton(),
        ),
      ];
    default:
      return [
        A.recoveryCodes ? recoveryCodesCard() : null,
        h("p", { class: "account-name" }, t("signed_in_as_label"), " ", h("strong", { id: "account-name", tabindex: "-1" }, S.username)),
        accountFacts(),
        h(
          "div",
          { class: "account-actions" },
          h("button", { class: "button", type: "button", id: "account-add-passkey", disabled: Boolean(A.busy), onclick: () => request({ type: "add_passkey" }) }, A.busy === "add_passkey" || A.busy === "passkey" ? busyLabel("") : `🔑 ${t("passkey_add")}`),
          h(
            "button",
            {
              class: "button",
              type: "button",
              id: "account-offer",
              onclick: () => {
                A.offer = null;
                go("offer");
                request({ type: "link_offer" });
              },
            },
            `📱 ${t("link_offer_button")}`,
          ),
          h("button", { class: "button", type: "button", id: "account-approve", onclick: () => go("approve") }, `✓ ${t("link_approve_title")}`),
          h("button", { class: "button ghost", type: "button", id: "account-sign-out", disabled: Boolean(A.busy), onclick: () => request({ type: "sign_out" }) }, `🚪 ${t("sign_out")}`),
          h("button", { class: "button ghost danger", type: "button", id: "account-everywhere", onclick: () => go("everywhere") }, `⛔ ${t("sign_out_everywhere")}`),
        ),
        blocksSection(),
      ];
  }
}

/** Whom this person blocks (from a room's "⋯", moderation.js), each with Unblock. */
function blocksSection() {
  const list = blockList();
  let body;
  if (list === null) body = h("p", { class: "muted" }, t("loading"));
  else if (!list.length) body = h("p", { class: "muted", id: "blocks-empty" }, t("blocks_empty"));
  else
    body = h(
      "ul",
      { class: "blocks-list", id: "blocks-list" },
      list.map((entry) =>
        h(
          "li",
          { dataset: { player: String(entry.player) } },
          h("span", { class: "blocked-name" }, `🚫 ${entry.name}`),
          h(
            "button",
            {
              class: "button small",
              type: "button",
              "aria-label": t("unblock_person", { name: entry.name }),
              disabled: unblocking() !== null,
              dataset: { player: String(entry.player) },
              onclick: () => unblock(entry.player),
            },
            unblocking() === entry.player ? t("loading") : t("unblock"),
          ),
        ),
      ),
    );
  return h(
    "section",
    { class: "blocks", id: "blocks", "aria-labelledby": "blocks-title" },
    h("h2", { id: "blocks-title" }, t("blocks_title")),
    h("p", { class: "muted small" }, t("blocks_hint")),
    body,
  );
}

/** The panel: a dialog over the screen, closed with ✕, Escape or a click beside it. */
export function renderAccount() {
  const notes = [
    S.signedOutElsewhere ? h("p", { class: "notice", id: "signed-out-elsewhere", role: "status" }, `👋 ${t("signed_out_elsewhere")}`) : null,
    A.done ? h("p", { class: "notice ok", id: "account-done", role: "status" }, A.done === "signed_in_as" ? t("signed_in_as", { name: S.username || "" }) : t(A.done)) : null,
    A.problem ? h("p", { class: "notice error", id: "account-problem", role: "alert" }, `⚠ ${A.problem}`) : null,
  ];
  return h(
    "div",
    {
      class: "modal-backdrop",
      onclick: (e) => {
        if (e.target === e.currentTarget) closeAccount();
      },
    },
    h(
      "div",
      { class: "modal card account-panel", id: "account-panel", role: "dialog", "aria-modal": "true", "aria-labelledby": "account-title", dataset: { mode: A.mode, signedIn: S.username ? "1" : "0" } },
      h(
        "div",
        { class: "modal-head" },
        h("h1", { id: "account-title" }, "👤 ", S.username ? t("account") : t("account_guest_title")),
        h("button", { class: "icon-button", type: "button", id: "account-close", "aria-label": t("close"), onclick: closeAccount }, "✕"),
      ),
      h("div", { class: "account-body" }, notes, S.username ? accountBody() : guestBody()),
      A.mode === "menu" ? h("div", { class: "row-buttons account-foot" }, h("button", { class: "button ghost", type: "button", id: "account-done-button", onclick: closeAccount }, t("close"))) : null,
    ),
  );
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && S.accountOpen && !S.rulesOpen) closeAccount();
});

// ------------------------------------------------------------ elsewhere on the page

/** The header's button: the username of an account, else "Sign in". */
export function accountButton() {
  return h(
    "button",
    {
      class: `icon-button account-button ${S.username ? "signed-in" : ""}`,
      type: "button",
      id: "header-account",
      title: S.username ? t("account") : t("account_guest_title"),
      "aria-label": S.username ? `${t("account")}: ${S.username}` : t("account_guest_title"),
      onclick: () => openAccount(),
    },
    h("span", { "aria-hidden": "true" }, "👤"),
    S.username ? h("span", { class: "account-button-name", "aria-hidden": "true" }, S.username) : null,
  );
}

/**
 * Why a guest's games are casual, with the way to an account: before a quick
 * match (the home page), and where a rated room was asked for.
 */
export function accountNeededNote(id, key = "rated_needs_account", shortKey = null) {
  if (S.username) return null;
  return h(
    "p",
    { class: "notice account-needed", id },
    "🏅 ",
    // A phone's first screen has room for the short words only (style.css).
    shortKey ? [h("span", { class: "note-long" }, t(key)), h("span", { class: "note-short" }, t(shortKey))] : t(key),
    " ",
    h("button", { class: "link-button", type: "button", onclick: () => openAccount() }, t("account_needed_link")),
  );
}
