// The rules in a dialog over any screen, with the board's marks drawn in the text.

import { entry, t } from "./i18n.js";
import { h } from "./dom.js";
import { render } from "./hooks.js";
import { S } from "./state.js";

export function openRules() {
  S.rulesOpen = true;
  render();
  requestAnimationFrame(() => document.getElementById("rules-close")?.focus());
}

export function renderRules() {
  const sections = entry("rules_page") || [];
  return h(
    "div",
    {
      class: "modal-backdrop",
      onclick: (e) => {
        if (e.target === e.currentTarget) closeRules();
      },
    },
    h(
      "div",
      { class: "modal card", role: "dialog", "aria-modal": "true", "aria-labelledby": "rules-title" },
      h("div", { class: "modal-head" }, h("h1", { id: "rules-title" }, "📖 ", t("rules")), h("button", { class: "icon-button", type: "button", id: "rules-close", "aria-label": t("close"), onclick: closeRules }, "✕")),
      h(
        "div",
        { class: "rules-body" },
        sections.map((section) => h("section", {}, h("h2", {}, section.title), (section.text || []).map((p) => h("p", {}, withMarks(p))))),
        h("h2", {}, t("legend")),
        h(
          "ul",
          { class: "legend" },
          ["miss", "hit", "sunk", "water", "hit_unknown_owner", "volley_unknown", "scan_ship", "scan_empty"].map((key) => h("li", {}, markSymbol(key, false), t(`mark.${key}`))),
        ),
      ),
    ),
  );
}

/**
 * A mark of the board drawn with the board's own styles (a cell of its
 * classes), so that the rules show exactly what the board draws. Sunk cells
 * are parts of a known hull, as on the board. `inline`: inside a sentence,
 * named for screen readers; else beside its name, hidden from them.
 */
function markSymbol(key, inline) {
  const named = inline ? { role: "img", "aria-label": t(`mark.${key}`) } : { "aria-hidden": "true" };
  return h("span", { class: `cell legend-cell m-${key} ${key === "sunk" ? "hull" : ""} ${inline ? "inline-mark" : ""}`, dataset: { mark: key }, ...named }, h("span", { class: "glyph" }));
}

const MARKS_IN_TEXT = new Set(["miss", "hit", "sunk", "water", "hit_unknown_owner", "volley_unknown", "scan_ship", "scan_empty"]);

/** A rules paragraph with its {miss}, {hit}, … drawn as the board's marks. */
function withMarks(text) {
  return text.split(/\{(\w+)\}/).map((part, i) => (i % 2 === 0 ? part : MARKS_IN_TEXT.has(part) ? markSymbol(part, true) : `{${part}}`));
}

function closeRules() {
  S.rulesOpen = false;
  render();
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && S.rulesOpen) closeRules();
});
