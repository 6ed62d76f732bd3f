// The "Your name at sea" field of the home page and of an invitation: the name
// is checked in the page (nickname.js) and told to the server with a fresh hello.

import { language, t } from "./i18n.js";
import { h } from "./dom.js";
import { MAX_NICKNAME_CHARS, nicknameProblem } from "./nickname.js";
import { getLink } from "./link.js";
import { NICK_KEY, S } from "./state.js";

/** Whether the name field holds a name the server takes; if not, the field says why. */
export function nicknameOk() {
  const problem = nicknameProblem(S.nickDraft ?? S.nickname);
  if (problem) {
    S.nickProblem = problem;
    showNickProblem();
    document.getElementById("nick")?.focus();
    return false;
  }
  return true;
}

/**
 * A name typed in the field: kept (and told with a fresh hello) when the
 * server would take it; otherwise the last good name stays in use and the
 * field says what is wrong.
 */
export function setNickname(text) {
  const problem = nicknameProblem(text);
  S.nickDraft = problem ? text : null;
  S.nickProblem = problem;
  if (!problem && text.trim() !== S.nickname) {
    S.nickGenerated = false;
    S.nickname = text.trim();
    localStorage.setItem(NICK_KEY, S.nickname);
    getLink().reconnectAs(S.nickname, language());
  }
  showNickProblem();
}

function nicknameError(problem) {
  const said = t(problem, { max: MAX_NICKNAME_CHARS });
  return S.nickGenerated ? said : `${said} ${t("nick_kept", { name: S.nickname })}`;
}

/**
 * Shows (or clears) the name field's complaint in place: a redraw between the
 * press and the release of a button would swallow its click.
 */
function showNickProblem() {
  const error = document.getElementById("nick-error");
  if (!error) return;
  error.hidden = !S.nickProblem;
  error.textContent = S.nickProblem ? nicknameError(S.nickProblem) : "";
  document.getElementById("nick")?.setAttribute("aria-invalid", S.nickProblem ? "true" : "false");
}

/** The "Your name at sea" field and, under it, what is wrong with the name typed. */
export function nicknameField() {
  const error = h("p", { id: "nick-error", class: "field-error", "aria-live": "polite", hidden: !S.nickProblem }, S.nickProblem ? nicknameError(S.nickProblem) : "");
  const input = h("input", {
    id: "nick",
    class: "text-input",
    maxlength: String(MAX_NICKNAME_CHARS),
    autocomplete: "nickname",
    placeholder: t("nickname_placeholder"),
    value: S.nickDraft ?? S.nickname,
    "aria-invalid": S.nickProblem ? "true" : "false",
    "aria-describedby": "nick-error",
    oninput: (e) => {
      S.nickDraft = e.target.value;
      // A fixed name clears the complaint at once (without a redraw under the caret).
      if (S.nickProblem && !nicknameProblem(e.target.value)) {
        S.nickProblem = null;
        showNickProblem();
      }
    },
    onchange: (e) => setNickname(e.target.value),
  });
  return [h("label", { class: "nick-label", for: "nick" }, t("nickname")), input, error];
}
