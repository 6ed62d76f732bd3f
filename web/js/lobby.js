// The lobby of a room: the invitation, the seats, the room's rules and the
// host's options; and the short wait of a bot game on its way to its first screen.

import { plural, t } from "./i18n.js";
import { accountNeededNote } from "./account.js";
import { h } from "./dom.js";
import { buildShip } from "./board.js";
import { renderChat } from "./chat.js";
import { numberField, toggle } from "./fields.js";
import { goHome, render } from "./hooks.js";
import { send } from "./link.js";
import { personButton } from "./moderation.js";
import { toast } from "./notify.js";
import { ratingChip } from "./public.js";
import { LEVELS, PRESETS, S, presetName, seatName, shipTypeName } from "./state.js";

function isHost() {
  return S.room && S.room.you && S.room.you.seat !== null && S.room.host === S.room.you.seat;
}

function optionsOf(room) {
  return { ...(room.setup?.options || {}) };
}

function setOptions(change, extra = {}) {
  const room = S.room;
  const options = { ...optionsOf(room), ...change };
  for (const [key, value] of Object.entries(options)) if (value === undefined || value === null) delete options[key];
  send({
    type: "set_options",
    preset: extra.preset ?? room.preset,
    seats: extra.seats ?? room.seats.length,
    options: extra.preset && extra.preset !== room.preset ? {} : options,
    teams: teamsFor(extra, room),
  });
}

/** Teams survive an options change while the seat count stays; a new count rebalances them. */
function teamsFor(extra, room) {
  if (extra.teams !== undefined) return extra.teams;
  const current = room.setup?.teams || null;
  const seats = extra.seats ?? room.seats.length;
  if (!current) return null;
  if (seats < 4) return null;
  return current.length === seats ? current : balancedTeams(seats);
}

/** Two teams, seats alternating, so each team has the same size (R-8.1). */
function balancedTeams(seats) {
  return Array.from({ length: seats }, (_, i) => i % 2);
}

function describeRules(r) {
  const lines = [];
  lines.push(t("desc_board", { cols: r.board.cols, rows: r.board.rows }));
  const counts = new Map();
  for (const index of r.fleet) counts.set(index, (counts.get(index) || 0) + 1);
  const fleet = [...counts.entries()].map(([index, n]) => `${n} × ${shipTypeName(r.catalogue[index].id)} (${r.catalogue[index].shape.cells.length})`);
  if (r.fleet.length) lines.push(t("desc_fleet", { fleet: fleet.join(", ") }));
  else lines.push(plural("desc_space", r.credits, { credits: r.credits }));
  const seats = S.room?.seats?.length || r.seats || 2;
  if (seats > 2) lines.push(plural(r.salvo === "focus" ? "desc_salvo_focus" : "desc_salvo_spread", r.shots_per_opponent));
  if (seats > 2) lines.push(r.round_seconds ? plural("desc_round_timer", r.round_seconds) : t("desc_no_round_timer"));
  if (r.has_teams) lines.push(t("desc_teams", { teams: teamList(r.teams) }));
  if (r.mode === "shared_sea") lines.push(t("desc_shared"));
  if (r.preset === "brasil") lines.push(plural(r.report === "per_volley" ? "desc_hard" : "desc_easy", r.shots_per_turn));
  else lines.push(t(r.hit_again ? "desc_hit_again" : "desc_one_shot"));
  lines.push(t(r.ships_may_touch ? "desc_may_touch" : "desc_no_touch"));
  lines.push(t(r.water_ring ? "desc_ring_on" : "desc_ring_off"));
  if (r.specials) lines.push(t("desc_specials", { wide: r.wide_uses, bombard: r.bombard_uses, radar: r.radar_uses }));
  lines.push(r.turn_seconds ? plural("desc_turn_timer", r.turn_seconds) : t("desc_no_turn_timer"));
  lines.push(r.place_seconds ? plural("desc_place_timer", r.place_seconds) : t("desc_no_place_timer"));
  return lines;
}

function teamList(teams) {
  const groups = new Map();
  teams.forEach((team, seat) => {
    if (!groups.has(team)) groups.set(team, []);
    groups.get(team).push(seatName(seat));
  });
  return [...groups.values()].map((names) => names.join(" + ")).join(" vs ");
}

/** Options of games of three or more, teams, the shared sea and space. */
function multiOptions(room, disabled) {
  const r = room.rules;
  const items = [];
  const seats = room.seats.length;
  if (seats > 2) {
    items.push(
      h(
        "fieldset",
        { class: "radio-row" },
        h("legend", {}, t("opt_salvo")),
        ["spread", "focus"].map((value) =>
          h("label", {}, h("input", { type: "radio", name: "salvo", value, checked: r.salvo === value, disabled, onchange: () => setOptions({ salvo: value }) }), " ", t(`opt_salvo_${value}`)),
        ),
      ),
    );
    items.push(
      h(
        "div",
        { class: "sub-options" },
        numberField("opt-per-opponent", t("opt_shots_per_opponent"), r.shots_per_opponent, 1, 10, (n) => setOptions({ shots_per_opponent: n }), disabled),
        numberField("opt-round", t("opt_round_seconds"), r.round_seconds, 0, 600, (n) => setOptions({ round_seconds: n }), disabled, t("seconds_zero_off")),
      ),
    );
  }
  if (seats >= 4) {
    items.push(
      toggle("opt-teams", t("opt_teams"), r.has_teams, (v) => setOptions({}, { teams: v ? balancedTeams(seats) : null }), disabled, r.has_teams ? teamList(r.teams) : t("opt_teams_hint")),
    );
  }
  if (r.mode === "space") {
    items.push(
      h(
        "div",
        { class: "sub-options" },
        numberField("opt-credits", t("opt_credits"), r.credits, 10, 2000, (n) => setOptions({ credits: n }), disabled),
        numberField("opt-shop", t("opt_shop_seconds"), r.shop_seconds, 0, 1200, (n) => setOptions({ shop_seconds: n }), disabled, t("seconds_zero_off")),
      ),
    );
  }
  items.push(toggle("opt-see-all", t("opt_spectators_see_all"), r.spectators_see_all, (v) => setOptions({ spectators_see_all: v }), disabled, t("opt_spectators_see_all_hint")));
  return items;
}

const CUSTOM_IDS = { 5: "carrier", 4: "battleship", 3: "cruiser", 2: "destroyer", 1: "submarine" };

function currentFleetEntries(r) {
  const counts = new Map();
  for (const index of r.fleet) {
    const len = r.catalogue[index].shape.cells.length;
    counts.set(len, (counts.get(len) || 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[0] - a[0]).map(([len, count]) => ({ len, count }));
}

function fleetOption(entries) {
  // Ids follow the usual names by length so the ships keep translated names.
  return entries.filter((e) => e.count > 0 && e.len > 0).map((e) => ({ id: CUSTOM_IDS[e.len] || `ship${e.len}`, len: e.len, count: e.count }));
}

function renderOptions(room) {
  const r = room.rules;
  const host = isHost();
  const disabled = !host;
  const o = optionsOf(room);
  const items = [];
  items.push(
    h(
      "label",
      { class: "number-field" },
      h("span", {}, t("opt_preset")),
      h(
        "select",
        { class: "select", id: "opt-preset", disabled, onchange: (e) => setOptions({}, { preset: e.target.value, seats: 2 }) },
        PRESETS.map((p) => h("option", { value: p, selected: p === room.preset }, presetName(p))),
      ),
    ),
  );
  if (room.preset !== "brasil") {
    items.push(toggle("opt-hit-again", t("opt_hit_again"), r.hit_again, (v) => setOptions({ hit_again: v }), disabled, t("opt_hit_again_hint")));
  } else {
    items.push(
      h(
        "fieldset",
        { class: "radio-row" },
        h("legend", {}, t("opt_report")),
        ["per_shot", "per_volley"].map((value) =>
          h(
            "label",
            {},
            h("input", { type: "radio", name: "report", value, checked: r.report === value, disabled, onchange: () => setOptions({ report: value }) }),
            " ",
            t(`opt_report_${value}`),
          ),
        ),
      ),
    );
  }
  items.push(toggle("opt-touch", t("opt_may_touch"), r.ships_may_touch, (v) => setOptions({ ships_may_touch: v }), disabled, t("opt_may_touch_hint")));
  // The shared sea never rings sunk ships with water (R-9.5).
  if (r.mode !== "shared_sea") items.push(
    toggle(
      "opt-ring",
      t("opt_water_ring"),
      r.water_ring,
      (v) => setOptions({ water_ring: v }),
      disabled || r.ships_may_touch || r.report === "per_volley",
      t("opt_water_ring_hint"),
    ),
  );
  // Space has its ships' abilities instead of the italia specials.
  if (r.mode !== "space") items.push(toggle("opt-specials", t("opt_specials"), r.specials, (v) => setOptions({ specials: v }), disabled, t("opt_specials_hint")));
  if (r.specials) {
    items.push(
      h(
        "div",
        { class: "sub-options" },
        numberField("opt-wide", t("special.wide"), r.wide_uses, 0, 20, (n) => setOptions({ wide_uses: n }), disabled, t("uses")),
        numberField("opt-bombard", t("special.bombard"), r.bombard_uses, 0, 20, (n) => setOptions({ bombard_uses: n }), disabled, t("uses")),
        numberField("opt-radar", t("special.radar"), r.radar_uses, 0, 20, (n) => setOptions({ radar_uses: n }), disabled, t("uses")),
      ),
    );
  }
  items.push(
    h(
      "div",
      { class: "sub-options" },
      numberField("opt-cols", t("opt_cols"), r.board.cols, 6, 26, (n) => setOptions({ cols: n }), disabled),
      numberField("opt-rows", t("opt_rows"), r.board.rows, 6, 26, (n) => setOptions({ rows: n }), disabled),
    ),
  );
  items.push(
    h(
      "div",
      { class: "sub-options" },
      numberField("opt-turn", t("opt_turn_seconds"), r.turn_seconds, 0, 600, (n) => setOptions({ turn_seconds: n }), disabled, t("seconds_zero_off")),
      numberField("opt-place", t("opt_place_seconds"), r.place_seconds, 0, 1200, (n) => setOptions({ place_seconds: n }), disabled, t("seconds_zero_off")),
    ),
  );
  items.push(...multiOptions(room, disabled));
  if (!r.fleet.length) return h("div", { class: "options" }, items);
  // Custom fleet: counts per ship length. Line ships only (R-10.2); brasil's
  // seaplane is kept unless the host asks for a custom fleet.
  const entries = currentFleetEntries(r);
  const fleetRows = entries.map((entry, i) =>
    h(
      "div",
      { class: "fleet-row" },
      h("span", { class: "fleet-len" }, buildShip(Array.from({ length: Math.min(entry.len, 8) }, (_, x) => [x, 0]), 12)),
      numberField(`opt-fleet-len-${i}`, t("length"), entry.len, 1, 26, (n) => {
        const next = entries.map((e, j) => (j === i ? { ...e, len: n } : e));
        setOptions({ fleet: fleetOption(mergeLengths(next)) });
      }, disabled),
      numberField(`opt-fleet-count-${i}`, t("count"), entry.count, 0, 40, (n) => {
        const next = entries.map((e, j) => (j === i ? { ...e, count: n } : e));
        setOptions({ fleet: fleetOption(next) });
      }, disabled),
    ),
  );
  items.push(
    h(
      "details",
      { class: "custom-fleet", open: o.fleet ? true : undefined },
      h("summary", {}, t("opt_custom_fleet")),
      fleetRows,
      host
        ? h(
            "div",
            { class: "row-buttons" },
            h("button", { class: "button small", type: "button", onclick: () => {
              const used = new Set(entries.map((e) => e.len));
              let len = 1;
              while (used.has(len) && len < 26) len += 1;
              setOptions({ fleet: fleetOption([...entries, { len, count: 1 }]) });
            } }, t("add_ship")),
            o.fleet || o.cols || o.rows ? h("button", { class: "button small ghost", type: "button", onclick: () => setOptions({ fleet: undefined, cols: undefined, rows: undefined }) }, t("reset_fleet")) : null,
          )
        : null,
    ),
  );
  return h("div", { class: "options" }, items);
}

function mergeLengths(entries) {
  const merged = new Map();
  for (const e of entries) merged.set(e.len, (merged.get(e.len) || 0) + e.count);
  return [...merged.entries()].map(([len, count]) => ({ len, count }));
}

export function renderLobby() {
  const room = S.room;
  const host = isHost();
  const link = `${location.origin}/r/${room.code}`;
  const copy = h(
    "button",
    {
      class: "button primary",
      type: "button",
      id: "copy-link",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(link);
        } catch {
          document.getElementById("invite-link")?.select();
        }
        S.copied = true;
        toast(t("copied"));
        render();
      },
    },
    S.copied ? `✓ ${t("copied")}` : `📋 ${t("copy_link")}`,
  );
  const seats = room.seats.map((seat) => {
    const icon = seat.kind === "bot" ? "🤖" : seat.kind === "person" ? "🧑‍✈️" : "🪑";
    const name = seat.kind === "open" ? t("open_seat") : seat.kind === "bot" ? seatName(seat.seat) : seat.nickname;
    const you = seat.seat === room.you?.seat;
    let control = null;
    if (host && seat.kind !== "person") {
      control = h(
        "select",
        {
          class: "select small",
          "aria-label": t("seat_n", { n: seat.seat + 1 }),
          onchange: (e) => {
            const value = e.target.value;
            if (value === "open") send({ type: "set_seat", seat: seat.seat, occupant: "open" });
            else send({ type: "set_seat", seat: seat.seat, occupant: "bot", level: value });
          },
        },
        h("option", { value: "open", selected: seat.kind === "open" }, t("open_seat")),
        LEVELS.map((l) => h("option", { value: l, selected: seat.kind === "bot" && seat.level === l }, `🤖 ${t(`level.${l}`)}`)),
      );
    }
    return h(
      "li",
      { class: `seat seat-${seat.kind} ${you ? "me" : ""}` },
      h("span", { class: "seat-icon", "aria-hidden": "true" }, icon),
      h(
        "span",
        { class: "seat-name" },
        name,
        you ? h("small", { class: "you-tag" }, ` (${t("you")})`) : null,
        seat.seat === room.host ? h("small", { class: "host-tag" }, ` ★ ${t("host")}`) : null,
      ),
      ratingChip(seat),
      seat.kind === "person"
        ? h("span", { class: `presence ${seat.connected ? "on" : "off"}` }, seat.connected ? t("online") : t("away"))
        : null,
      seat.kind === "person" && seat.ready ? h("span", { class: "tag ready-tag" }, `✓ ${t("lobby_ready")}`) : null,
      control,
      // Another person: block or report them (moderation.js).
      personButton(seat.seat, "seat"),
    );
  });
  const maxSeats = room.preset === "brasil" || room.preset === "italia" ? 2 : 6;
  const seatCount = host && maxSeats > 2
    ? h(
        "label",
        { class: "number-field" },
        h("span", {}, t("player_count")),
        h(
          "select",
          { class: "select small", id: "seat-count", onchange: (e) => setOptions({}, { seats: Number(e.target.value) }) },
          [2, 3, 4, 5, 6].map((n) => h("option", { value: n, selected: n === room.seats.length }, String(n))),
        ),
      )
    : null;
  const open = room.seats.some((s) => s.kind === "open");
  const start = host
    ? h(
        "button",
        { class: "button primary big", type: "button", id: "start", disabled: open, onclick: () => send({ type: "start" }) },
        open ? t("waiting_for_players") : `⚓ ${t("start")}`,
      )
    : h("p", { class: "muted waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("waiting_for_host"));
  const setup = room.setup || {};
  // A seated person who is not the host says when they are ready (a rated
  // game starts only once every person is).
  const mine = room.seats.find((s) => s.seat === room.you?.seat);
  const ready = mine && !host
    ? h(
        "button",
        {
          class: `button ${mine.ready ? "ghost" : "primary"}`,
          type: "button",
          id: "ready",
          "aria-pressed": mine.ready ? "true" : "false",
          onclick: () => send({ type: "ready", ready: !mine.ready }),
        },
        mine.ready ? t("unready_button") : `✓ ${t("ready_button")}`,
      )
    : null;
  const sameAddress = room.same_address ? h("p", { class: "notice", id: "same-address" }, `⚠ ${t("same_address")}`) : null;
  // The host decides whether strangers may find the room and whether it counts for ratings.
  const visibility = host
    ? h(
        "div",
        { class: "options room-visibility" },
        toggle("opt-public", t("room_public"), Boolean(setup.public), (v) => send({ type: "set_options", public: v }), false, t("room_public_hint")),
        toggle("opt-rated", t("room_rated"), Boolean(setup.rated), (v) => {
          // Rated play needs an account: a guest is shown the way to one instead of a refusal.
          if (v && !S.username) {
            S.accountNeeded = true;
            render();
          } else send({ type: "set_options", rated: v });
        }, false, t("room_rated_hint")),
        S.accountNeeded ? accountNeededNote("rated-needs-account") : null,
      )
    : null;
  const badges = [
    setup.public ? h("span", { class: "tag public-tag", id: "room-public" }, `🌐 ${t("room_public")}`) : null,
    setup.rated ? h("span", { class: "tag rated-tag", id: "room-rated" }, `🏅 ${t("rated")}`) : null,
  ].filter(Boolean);
  const spectators = typeof room.spectators === "number" ? h("p", { class: "muted" }, `👁 ${plural("spectators_n", room.spectators)}`) : null;
  return h(
    "main",
    { class: "lobby" },
    h(
      "section",
      { class: "card invite" },
      h("h1", {}, presetName(room.preset)),
      badges.length ? h("p", { class: "room-tags" }, badges) : null,
      h("p", { class: "muted" }, t("invite_hint")),
      h("div", { class: "code-big", "aria-label": t("room_code") }, room.code.split("").map((ch) => h("span", {}, ch))),
      h("div", { class: "invite-row" }, h("input", { id: "invite-link", class: "text-input", readonly: true, value: link, "aria-label": t("invite_link"), onfocus: (e) => e.target.select() }), copy),
      room.you?.spectator ? h("p", { class: "badge" }, `👁 ${t("you_watch")}`) : null,
      h("div", { class: "row-buttons center" }, h("button", { class: "button small ghost", type: "button", id: "leave", onclick: goHome }, `← ${t("leave_room")}`)),
    ),
    h("section", { class: "card seats-card" }, h("h2", {}, t("seats")), seatCount, h("ul", { class: "seats" }, seats), spectators, sameAddress, visibility, ready, start),
    h(
      "section",
      { class: "card options-card" },
      h("h2", {}, t("rules_of_room")),
      h("ul", { class: "rule-summary" }, describeRules(room.rules).map((line) => h("li", {}, line))),
      host ? h("h3", {}, t("change_options")) : null,
      host ? renderOptions(room) : null,
    ),
    renderChat(true),
  );
}

/** A bot game on its way from "Play vs bot" to its first screen. */
export function renderStarting() {
  return h(
    "main",
    { class: "starting" },
    h(
      "section",
      { class: "card invite" },
      h("h1", {}, presetName(S.room.preset)),
      h("p", { class: "muted waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("starting_game")),
    ),
  );
}
