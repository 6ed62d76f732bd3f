// Form controls the home page, the lobby and the leaderboard share: a switch,
// a number field and the presets as a group of radio buttons.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { PRESETS } from "./state.js";

export function toggle(id, labelText, checked, onChange, disabled, hint) {
  return h(
    "label",
    { class: `switch ${disabled ? "disabled" : ""}` },
    h("input", { type: "checkbox", id, checked, disabled, onchange: (e) => onChange(e.target.checked) }),
    h("span", { class: "switch-track", "aria-hidden": "true" }),
    h("span", { class: "switch-text" }, labelText, hint ? h("small", {}, hint) : null),
  );
}

export function numberField(id, labelText, value, min, max, onChange, disabled, suffix) {
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

/** The presets as a group of radio buttons: the home page's cards, the leaderboard's pills. */
export function presetChoice({ chosen, groupClass, itemClass, onPick, content }) {
  return h(
    "div",
    { class: groupClass, role: "radiogroup", "aria-label": t("choose_preset") },
    PRESETS.map((id) =>
      h(
        "button",
        {
          type: "button",
          role: "radio",
          "aria-checked": String(chosen === id),
          class: `${itemClass} ${chosen === id ? "chosen" : ""}`,
          dataset: { preset: id },
          onclick: () => onPick(id),
        },
        content(id),
      ),
    ),
  );
}
