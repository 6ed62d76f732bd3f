// The page's header: the brand (home), the room code, the connection, the
// account, the leaderboard, the rules, the sound and the language.

import { LANGUAGES, language, setLanguage, t } from "./i18n.js";
import { h } from "./dom.js";
import { sound } from "./sound.js";
import { accountButton } from "./account.js";
import { goHome, render } from "./hooks.js";
import { openLeaderboard } from "./public.js";
import { openRules } from "./rulebook.js";
import { S } from "./state.js";

export function renderHeader() {
  const status = h("span", { class: `net net-${S.status}`, title: t(`net_${S.status}`) }, h("span", { class: "dot" }), h("span", { class: "net-text" }, t(`net_${S.status}`)));
  const current = LANGUAGES.find((l) => l.id === language()) || LANGUAGES[0];
  // On a phone the select is drawn as its flag and code (the full names do not
  // fit the header); it stays the real select, so the list shows every name.
  const langSelect = h(
    "label",
    { class: "lang-picker" },
    h("span", { class: "lang-short", "aria-hidden": "true" }, `${current.flag} ${current.id.toUpperCase()} ▾`),
    h(
      "select",
      {
        class: "lang",
        "aria-label": t("language"),
        onchange: async (e) => {
          await setLanguage(e.target.value, true);
          render();
        },
      },
      LANGUAGES.map((l) => h("option", { value: l.id, selected: l.id === language() }, `${l.flag} ${l.name}`)),
    ),
  );
  const soundButton = h(
    "button",
    {
      class: "icon-button",
      type: "button",
      "aria-pressed": String(!sound.muted),
      title: sound.muted ? t("sound_off") : t("sound_on"),
      "aria-label": sound.muted ? t("sound_off") : t("sound_on"),
      onclick: () => {
        sound.toggle();
        render();
      },
    },
    sound.muted ? "🔇" : "🔊",
  );
  const rulesButton = h("button", { class: "icon-button", type: "button", id: "rules-button", onclick: () => openRules(), title: t("rules"), "aria-label": t("rules") }, "📖");
  // The leaderboard is one click away wherever no game needs the person.
  const boardButton = S.room || S.matching
    ? null
    : h("button", { class: "icon-button", type: "button", id: "header-leaderboard", onclick: () => openLeaderboard(), title: t("leaderboard"), "aria-label": t("leaderboard") }, "🏆");
  const brand = h(
    "a",
    {
      class: "brand",
      href: "/",
      onclick: (e) => {
        e.preventDefault();
        goHome();
      },
    },
    h("span", { class: "brand-mark", "aria-hidden": "true" }, "⚓"),
    h("span", { class: "brand-name" }, t("app_name")),
  );
  const roomChip = S.room ? h("span", { class: "room-chip", title: t("room_code") }, `# ${S.room.code}`) : null;
  return h("header", { class: "top" }, brand, roomChip, h("div", { class: "spacer" }), status, accountButton(), boardButton, rulesButton, soundButton, langSelect);
}
