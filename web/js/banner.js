// The turn banner of placement, the shop and the battle, with its clock.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { S, presetName } from "./state.js";

function clockText() {
  if (!S.deadline) return "";
  const left = Math.max(0, S.deadline - Date.now());
  const seconds = Math.ceil(left / 1000);
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

function clockFraction() {
  if (!S.deadline || !S.deadlineTotal) return 1;
  return Math.max(0, Math.min(1, (S.deadline - Date.now()) / S.deadlineTotal));
}

function updateClock() {
  for (const el of document.querySelectorAll("[data-clock]")) {
    el.textContent = clockText();
    const fraction = clockFraction();
    const bar = el.parentElement?.querySelector(".clock-bar > span");
    if (bar) bar.style.width = `${fraction * 100}%`;
    el.closest(".banner")?.classList.toggle("hurry", Boolean(S.deadline) && S.deadline - Date.now() < 10000);
  }
}

setInterval(updateClock, 250);

export function banner(text, mine, extra) {
  return h(
    "div",
    { class: `banner ${mine ? "mine" : "theirs"}`, id: "turn-banner", role: "status" },
    h("div", { class: "banner-text" }, h("span", { class: "banner-icon", "aria-hidden": "true" }, mine ? "🎯" : "⏳"), h("strong", { id: "turn-text" }, text), extra || null),
    S.deadline
      ? h(
          "div",
          { class: "clock", title: t("time_left") },
          h("span", { class: "clock-icon", "aria-hidden": "true" }, "⏱"),
          h("span", { class: "clock-text", "data-clock": "1", "aria-label": t("time_left") }, clockText()),
          h("div", { class: "clock-bar", "aria-hidden": "true" }, h("span", { style: { width: `${clockFraction() * 100}%` } })),
        )
      : null,
  );
}

/**
 * The screen's main heading, for screen readers and the page's outline: which
 * screen this is and of which game (the banner beside it changes every turn).
 */
export function screenHeading(key) {
  return h("h1", { class: "sr-only", id: "screen-title" }, `${t(key)} · ${presetName(S.room?.preset || "classic")}`);
}
