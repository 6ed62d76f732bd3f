// The space shop (docs/rules.md R-7.2): the catalogue with every ship drawn, its
// price, its limit and its ability; a cart with the credits left; the default
// fleet; and Buy. The client only adds up what it shows: whether a fleet may be
// bought (budget, the capital rule, limits, the fit on the field) is the
// engine's decision, and its refusals come back as translated error codes.

import { banner, screenHeading } from "./banner.js";
import { render } from "./hooks.js";
import { send } from "./link.js";
import { announce } from "./notify.js";
import { S, mySeat, rules, seatName, shipTypeName } from "./state.js";
import { t, plural } from "./i18n.js";
import { buildShip } from "./board.js";
import { h } from "./dom.js";

/** The default fleet of R-7.3, in its order; a poorer room takes the longest prefix it can pay. */
const DEFAULT_FLEET = [
  "dreadnought", "lancer", "lancer", "spirit", "spirit", "cruiser", "cruiser",
  "frigate", "frigate", "corvette", "scout", "fighter", "fighter", "fighter",
];

let cart = {};
let sent = false;
// Whether the page asks "buy with this much unspent?" before sending the order.
let confirming = false;

/** Past this share of the credits left unspent, Buy asks first (unspent credits are lost, R-7.2). */
const UNSPENT_TO_CONFIRM = 0.1;

export function resetShop() {
  cart = {};
  sent = false;
  confirming = false;
}

function catalogue() {
  return rules().catalogue.filter((c) => c.price > 0);
}

function spent() {
  return catalogue().reduce((n, c) => n + (cart[c.id] || 0) * c.price, 0);
}

function cells() {
  return catalogue().reduce((n, c) => n + (cart[c.id] || 0) * c.shape.cells.length, 0);
}

function capitals() {
  return catalogue().filter((c) => c.capital).reduce((n, c) => n + (cart[c.id] || 0), 0);
}

function defaultFleet() {
  const byId = new Map(catalogue().map((c) => [c.id, c]));
  const next = {};
  let money = rules().credits;
  for (const id of DEFAULT_FLEET) {
    const type = byId.get(id);
    if (!type || type.price > money) break;
    money -= type.price;
    next[id] = (next[id] || 0) + 1;
  }
  return next;
}

function change(id, delta) {
  const type = catalogue().find((c) => c.id === id);
  const now = cart[id] || 0;
  const next = Math.max(0, Math.min(type.limit, now + delta));
  if (next === 0) delete cart[id];
  else cart[id] = next;
  announce(plural("shop_cart_now", rules().credits - spent(), { ship: shipTypeName(id), n: next, left: rules().credits - spent() }));
  render();
}

/** Buy, or first the question when much of the money would be lost. */
function askBuy() {
  if (rules().credits - spent() > rules().credits * UNSPENT_TO_CONFIRM) {
    confirming = true;
    render();
    document.getElementById("buy-back")?.focus();
    return;
  }
  buy();
}

function closeConfirm() {
  confirming = false;
  render();
  document.getElementById("buy")?.focus();
}

/** The in-page question before buying with more than a tenth of the credits unspent. */
function confirmDialog() {
  const r = rules();
  return h(
    "div",
    {
      class: "modal-backdrop",
      onclick: (e) => {
        if (e.target === e.currentTarget) closeConfirm();
      },
      onkeydown: (e) => {
        if (e.key === "Escape") closeConfirm();
      },
    },
    h(
      "div",
      { class: "modal card confirm-dialog", id: "buy-confirm", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "buy-confirm-title", "aria-describedby": "buy-confirm-text" },
      h("h2", { id: "buy-confirm-title" }, t("shop_confirm_title")),
      h("p", { id: "buy-confirm-text" }, plural("shop_confirm_text", r.credits - spent(), { total: r.credits })),
      h(
        "div",
        { class: "row-buttons" },
        h("button", { class: "button", type: "button", id: "buy-back", onclick: closeConfirm }, t("shop_confirm_back")),
        h("button", { class: "button primary", type: "button", id: "buy-anyway", onclick: () => { confirming = false; buy(); } }, `🚀 ${t("shop_confirm_buy")}`),
      ),
    ),
  );
}

function buy() {
  const ships = {};
  for (const [id, n] of Object.entries(cart)) if (n > 0) ships[id] = n;
  sent = true;
  send({ type: "command", command: { cmd: "buy", ships } });
  setTimeout(() => {
    sent = false;
  }, 1500);
}

export function renderShop() {
  const view = S.view;
  // A seat's view says `ready` once its fleet is placed; in the shop, a seat
  // that has bought is one the phase no longer waits for.
  const bought = (seat) => !view.to_move.includes(seat.seat);
  const me = mySeat();
  const r = rules();
  const others = view.seats.filter((s) => s.seat !== me);
  const progress = h(
    "ul",
    { class: "ready-list" },
    others.map((seat) => h("li", { class: bought(seat) ? "is-ready" : "" }, bought(seat) ? "✓ " : "⏳ ", t(bought(seat) ? "shop_seat_bought" : "shop_seat_buying", { name: seatName(seat.seat) }))),
  );
  if (me === null) return h("main", { class: "game shop" }, screenHeading("screen_shop"), banner(t("watch_shop"), false), h("section", { class: "card" }, progress));
  if (bought(view.seats[me])) {
    const fleet = view.seats[me].fleet || {};
    return h(
      "main",
      { class: "game shop" },
    screenHeading("screen_shop"),
      banner(others.some((s) => !bought(s)) ? t("shop_waiting") : t("battle_soon"), false),
      h(
        "section",
        { class: "card shop-done", id: "shop-done" },
        h("h2", {}, "✓ ", t("shop_bought")),
        h("ul", { class: "fleet-list" }, Object.entries(fleet).map(([id, n]) => {
          const type = r.catalogue.find((c) => c.id === id);
          return h("li", {}, type ? buildShip(type.shape.cells, 12) : null, h("span", {}, `${n} × ${shipTypeName(id)}`));
        })),
        progress,
      ),
    );
  }
  const left = r.credits - spent();
  const fieldCells = r.board.cols * r.board.rows;
  const cards = catalogue().map((type) => {
    const n = cart[type.id] || 0;
    const capitalBlocked = type.capital && capitals() >= 1 && n === 0;
    const tooDear = type.price > left;
    return h(
      "li",
      { class: `shop-item ${n ? "in-cart" : ""} ${type.capital ? "capital" : ""}`, dataset: { type: type.id } },
      h("div", { class: "shop-shape" }, buildShip(type.shape.cells, 16)),
      h(
        "div",
        { class: "shop-info" },
        h("strong", {}, shipTypeName(type.id)),
        h("span", { class: "shop-price" }, plural("shop_price", type.price)),
        h("small", { class: "muted" }, plural("shop_cells_limit", type.shape.cells.length, { cells: type.shape.cells.length, limit: type.limit })),
        type.capital ? h("small", { class: "tag capital-tag" }, `★ ${t("shop_capital")}`) : null,
        type.ability ? h("small", { class: "tag ability-tag" }, `⚡ ${t(`special.${type.ability}`)} · ${t(`ability_desc.${type.ability}`)}`) : null,
      ),
      h(
        "div",
        { class: "stepper" },
        h("button", { type: "button", class: "button small", "aria-label": t("shop_less", { ship: shipTypeName(type.id) }), disabled: n === 0, dataset: { less: type.id }, onclick: () => change(type.id, -1) }, "−"),
        h("output", { class: "count", "aria-live": "polite" }, String(n)),
        h(
          "button",
          {
            type: "button",
            class: "button small",
            "aria-label": t("shop_more", { ship: shipTypeName(type.id) }),
            disabled: n >= type.limit || capitalBlocked || tooDear,
            title: capitalBlocked ? t("err.capital_limit") : n >= type.limit ? t("err.type_limit") : tooDear ? t("err.over_budget") : "",
            dataset: { more: type.id },
            onclick: () => change(type.id, 1),
          },
          "+",
        ),
      ),
    );
  });
  const ships = Object.values(cart).reduce((a, b) => a + b, 0);
  return h(
    "main",
    { class: "game shop" },
    screenHeading("screen_shop"),
    banner(t("shop_title"), true),
    h(
      "div",
      { class: "shop-layout" },
      h("section", { class: "card shop-card" }, h("h2", {}, "🛒 ", t("shop_catalogue")), h("p", { class: "muted small" }, t("shop_help")), h("ul", { class: "shop-list" }, cards)),
      h(
        "section",
        { class: "card cart-card" },
        h("h2", {}, t("shop_cart")),
        h("div", { class: `credits ${left < 0 ? "bad" : ""}`, id: "credits-left" }, h("span", {}, t("shop_credits_left")), h("strong", {}, `${left} / ${r.credits}`)),
        h("p", { class: "muted small", id: "shop-summary" }, t("shop_summary", { ships: plural("shop_ships_n", ships), cells: plural("shop_cells_n", cells()), field: plural("shop_cells_n", fieldCells) })),
        h("p", { class: `small ${capitals() > 1 ? "bad" : "muted"}` }, `★ ${t("shop_capital_rule")}`),
        h(
          "div",
          { class: "row-buttons" },
          h("button", { class: "button", type: "button", id: "default-fleet", onclick: () => { cart = defaultFleet(); announce(t("shop_default_done")); render(); } }, `⭐ ${t("shop_default")}`),
          h("button", { class: "button ghost", type: "button", id: "clear-cart", disabled: ships === 0, onclick: () => { cart = {}; render(); } }, `↺ ${t("clear")}`),
        ),
        h("button", { class: "button primary big", type: "button", id: "buy", disabled: ships === 0 || sent, onclick: askBuy }, `🚀 ${plural("shop_buy", ships)}`),
        progress,
      ),
    ),
    confirming ? confirmDialog() : null,
  );
}
