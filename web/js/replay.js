// The replay of a finished game at /g/<id> (docs/protocol.md "Replays"): the
// server rebuilds the game from its stored command log and answers
// GET /api/games/<id> with the all-seeing view before the first command and
// after every one. This page steps through those views — buttons, a slider,
// the arrow keys and autoplay — with the boards, the list of moves, the events
// of the move in view, and the game's statistics and heat maps.

import { render } from "./hooks.js";
import { S } from "./state.js";
import { decorateBlocks } from "./view.js";
import { t, shipName, dateTime, plural } from "./i18n.js";
import { buildBoard, hullMap, cellLabel, boardScroller } from "./board.js";
import { h } from "./dom.js";
import { eventsWords, commandWords, watersPhrase } from "./words.js";
import { statsTable, heatMaps } from "./stats.js";

/** Autoplay speeds: milliseconds per move. */
const SPEEDS = [1400, 700, 350, 120];

let autoplay = null;

/** The game id of a `/g/<id>` address, or null. */
export function replayIdFromPath() {
  const match = location.pathname.match(/^\/g\/(\d+)\/?$/);
  return match ? Number(match[1]) : null;
}

/** Opens the replay of game `id`: the address becomes /g/<id> and the game is fetched. */
export function openReplay(id) {
  stopAutoplay();
  S.replay = { id, data: null, error: null, step: 0, speed: 1 };
  const path = `/g/${id}`;
  if (location.pathname !== path) history.pushState({}, "", path);
  document.title = `${t("app_name")} · ${t("replay")} ${id}`;
  render();
  load(S.replay);
}

/** Leaves the replay page (its autoplay stops). */
export function closeReplay() {
  stopAutoplay();
  S.replay = null;
}

async function load(replay) {
  try {
    const response = await fetch(`/api/games/${replay.id}`);
    if (response.status === 404) replay.error = "replay_not_found";
    else if (response.status === 429) replay.error = "err.rate_limited";
    else if (!response.ok) replay.error = "replay_failed";
    else {
      replay.data = await response.json();
      // Like a film, a replay starts at the beginning (the statistics below show the end).
      replay.step = 0;
    }
  } catch {
    replay.error = "replay_failed";
  }
  if (S.replay === replay) render();
}

// ------------------------------------------------------------ stepping

function lastStep() {
  return S.replay.data.steps.length;
}

function viewAt(step) {
  const data = S.replay.data;
  return step === 0 ? data.initial : data.steps[step - 1].view;
}

function goTo(step, { keepPlaying = false } = {}) {
  if (!S.replay?.data) return;
  S.replay.step = Math.max(0, Math.min(lastStep(), step));
  if (!keepPlaying) stopAutoplay();
  render();
}

function stopAutoplay() {
  clearInterval(autoplay);
  autoplay = null;
}

function toggleAutoplay() {
  if (autoplay) {
    stopAutoplay();
    render();
    return;
  }
  // Autoplay from the end starts again from the beginning.
  if (S.replay.step >= lastStep()) S.replay.step = 0;
  startAutoplay();
  render();
}

function startAutoplay() {
  stopAutoplay();
  autoplay = setInterval(() => {
    if (!S.replay?.data) return stopAutoplay();
    if (S.replay.step >= lastStep()) {
      stopAutoplay();
      render();
      return;
    }
    goTo(S.replay.step + 1, { keepPlaying: true });
  }, SPEEDS[S.replay.speed]);
}

document.addEventListener("keydown", (e) => {
  if (!S.replay?.data || S.rulesOpen) return;
  // The slider and form fields handle their own keys.
  if (e.target.closest?.("input, select, textarea")) return;
  const step = S.replay.step;
  const moves = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: lastStep() };
  if (e.key in moves) {
    e.preventDefault();
    goTo(moves[e.key]);
  } else if (e.key === "p" || e.key === "P") {
    toggleAutoplay();
  }
});

// ------------------------------------------------------------ words

/** Names of the replay's seats: nicknames, bots by level (twins by seat number too). */
function seatNameOf(data) {
  return (seat) => {
    const info = data.seats.find((s) => s.seat === seat);
    if (!info || info.kind === "open") return t("seat_n", { n: seat + 1 });
    if (info.kind === "bot") {
      const name = t("bot_named", { level: t(`level.${info.level || "medium"}`) });
      const twins = data.seats.filter((s) => s.kind === "bot" && s.level === info.level).length > 1;
      return twins ? `${name} ${seat + 1}` : name;
    }
    return info.nickname || t("seat_n", { n: seat + 1 });
  };
}

function shipTypeName(id) {
  const generic = /^ship(\d+)$/.exec(id);
  return generic ? plural("ship.generic", Number(generic[1])) : shipName(id);
}

function blockAt(view, at) {
  const size = view.board_size;
  return (view.blocks || []).findIndex((b) => {
    const [c0, r0] = Array.isArray(b.origin) ? b.origin : [b.origin.col, b.origin.row];
    return at[0] >= c0 && at[1] >= r0 && at[0] < c0 + size.cols && at[1] < r0 + size.rows;
  });
}

function context(view) {
  const name = seatNameOf(S.replay.data);
  const label = (at) => cellLabel(view.letter_axis, at[0], at[1]);
  const water = (board, at) => {
    if (view.mode !== "shared_sea") return watersPhrase({ name: name(board) });
    const index = blockAt(view, at);
    const block = view.blocks?.[index];
    return block && block.owner !== null && block.owner !== undefined ? watersPhrase({ name: name(block.owner) }) : watersPhrase({ block: index + 1 });
  };
  return { me: null, name, label, water, ship: shipTypeName, many: view.seats.length > 2, space: view.mode === "space" };
}

function resultIcons(events) {
  return events
    .filter((e) => e.event === "shot")
    .map((e) => (e.result === "miss" ? "💧" : e.result === "hit" ? "🔥" : "☠"))
    .join("");
}

// ------------------------------------------------------------ drawing

function changedCells(before, after, board) {
  const fresh = new Set();
  const old = before?.boards?.[board]?.rows;
  const now = after.boards[board].rows;
  if (!old) return fresh;
  for (let r = 0; r < now.length; r += 1) for (let c = 0; c < now[r].length; c += 1) if (old[r]?.[c] !== now[r][c]) fresh.add(`${c},${r}`);
  return fresh;
}

function replayBoards(view, before, name) {
  const shared = view.mode === "shared_sea";
  return view.boards.map((board, index) => {
    const rows = board.rows;
    const element = buildBoard({
      size: { cols: rows[0].length, rows: rows.length },
      axis: view.letter_axis,
      markAt: (c, r) => rows[r][c],
      hull: hullMap(shared ? view.ships : view.ships.filter((s) => s.owner === index)),
      id: `replay-${index}`,
      caption: shared ? t("shared_sea") : t("board_of", { name: name(index) }),
      fresh: changedCells(before, view, index),
    });
    if (shared) {
      // Everybody's blocks are known in a replay: each is named by its owner.
      decorateBlocks(element, {
        view,
        role: (i) => (view.blocks[i].empty || view.blocks[i].eliminated ? "out" : "foe"),
        title: (i) => {
          const b = view.blocks[i];
          if (b.empty) return t("block_empty");
          const who = b.owner === null || b.owner === undefined ? t("block_unknown") : name(b.owner);
          return `${i + 1} · ${b.eliminated ? `${who} ✝` : who}`;
        },
      });
    }
    const seat = view.seats[index];
    return h(
      "section",
      { class: `board-card ${seat && !seat.alive && !shared ? "out" : ""}` },
      h("h2", {}, shared ? t("shared_sea") : t("board_of", { name: name(index) })),
      shared ? boardScroller(element, "replay-sea") : element,
      !shared && seat ? h("p", { class: "board-note muted" }, t("afloat_n", { n: seat.ships_afloat, total: seat.ships_total })) : null,
    );
  });
}

function controls() {
  const replay = S.replay;
  const last = lastStep();
  const button = (id, text, label, onclick, disabled) => h("button", { class: "button", type: "button", id, title: label, "aria-label": label, disabled, onclick }, text);
  return h(
    "section",
    { class: "card replay-controls", "aria-label": t("replay_controls") },
    h(
      "div",
      { class: "replay-buttons" },
      button("replay-first", "⏮", t("replay_first"), () => goTo(0), replay.step === 0),
      button("replay-prev", "◀", t("replay_prev"), () => goTo(replay.step - 1), replay.step === 0),
      h(
        "button",
        { class: "button primary", type: "button", id: "replay-play", "aria-pressed": String(Boolean(autoplay)), onclick: toggleAutoplay },
        autoplay ? `⏸ ${t("replay_pause")}` : `▶ ${t("replay_play")}`,
      ),
      button("replay-next", "▶", t("replay_next"), () => goTo(replay.step + 1), replay.step === last),
      button("replay-last", "⏭", t("replay_last"), () => goTo(last), replay.step === last),
      h(
        "label",
        { class: "replay-speed" },
        h("span", {}, t("replay_speed")),
        h(
          "select",
          {
            class: "select small",
            id: "replay-speed",
            onchange: (e) => {
              replay.speed = Number(e.target.value);
              if (autoplay) startAutoplay();
            },
          },
          SPEEDS.map((_, i) => h("option", { value: String(i), selected: i === replay.speed }, ["½×", "1×", "2×", "5×"][i])),
        ),
      ),
    ),
    h("input", {
      type: "range",
      class: "replay-slider",
      id: "replay-slider",
      min: "0",
      max: String(last),
      value: String(replay.step),
      "aria-label": t("replay_slider"),
      "aria-valuetext": t("replay_position", { k: replay.step, n: last }),
      oninput: (e) => goTo(Number(e.target.value)),
    }),
    h("p", { class: "replay-position", id: "replay-position" }, t("replay_position", { k: replay.step, n: last }), h("span", { class: "muted" }, ` · ${t("replay_keys")}`)),
  );
}

function movesList(name) {
  const data = S.replay.data;
  const step = S.replay.step;
  const items = [
    h("li", {}, h("button", { type: "button", class: `move ${step === 0 ? "current" : ""}`, "aria-current": step === 0 ? "step" : null, dataset: { step: "0" }, onclick: () => goTo(0) }, `0. ${t("replay_start")}`)),
    ...data.steps.map((s, i) => {
      const ctx = context(s.view);
      return h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: `move ${step === i + 1 ? "current" : ""}`, "aria-current": step === i + 1 ? "step" : null, dataset: { step: String(i + 1) }, onclick: () => goTo(i + 1) },
          `${i + 1}. ${commandWords(s.command, { ...ctx, name })} `,
          h("span", { "aria-hidden": "true" }, resultIcons(s.events)),
        ),
      );
    }),
  ];
  const list = h("ol", { class: "replay-moves", id: "replay-moves" }, items);
  // Keep the move in view inside its own scrolling list (not the page).
  requestAnimationFrame(() => {
    // The list on the page by then, which a redraw may have kept rather than this one.
    const shown = document.getElementById("replay-moves");
    const current = shown?.querySelector(".move.current");
    if (!current) return;
    const top = current.offsetTop - shown.offsetTop;
    if (top < shown.scrollTop || top > shown.scrollTop + shown.clientHeight - current.offsetHeight) shown.scrollTop = top - shown.clientHeight / 2;
  });
  return list;
}

function stepEvents(view) {
  const step = S.replay.step;
  if (step === 0) return h("p", { class: "muted" }, t("replay_start_hint"));
  const s = S.replay.data.steps[step - 1];
  const ctx = context(view);
  const lines = eventsWords(s.events, ctx, { grouped: s.command.cmd === "ability" });
  return h(
    "div",
    { id: "replay-events" },
    h("h3", {}, commandWords(s.command, ctx)),
    lines.length ? h("ol", { class: "log" }, lines.map((line) => h("li", { class: `log-${line.kind}` }, line.text))) : h("p", { class: "muted" }, t("replay_no_events")),
  );
}

function outcome(view, name) {
  if (view.draw) return t("end_draw");
  const winners = view.winner || [];
  return winners.length ? t("end_winner", { name: winners.map(name).join(", ") }) : "";
}

export function renderReplay() {
  const replay = S.replay;
  if (!replay.data) {
    return h(
      "main",
      { class: "replay" },
      h(
        "section",
        { class: "card replay-head", id: "replay-status" },
        h("h1", {}, "🎞 ", t("replay")),
        replay.error ? h("p", { class: "bad", id: "replay-error" }, t(replay.error)) : h("p", { class: "muted waiting" }, h("span", { class: "spinner", "aria-hidden": "true" }), t("loading")),
        replay.error ? h("div", { class: "row-buttons center" }, h("button", { class: "button", type: "button", onclick: () => openReplay(replay.id) }, t("try_again"))) : null,
      ),
    );
  }
  const data = replay.data;
  const name = seatNameOf(data);
  const view = viewAt(replay.step);
  const before = replay.step > 0 ? viewAt(replay.step - 1) : null;
  const final = viewAt(lastStep());
  const players = data.seats.map((s) => name(s.seat)).join(" · ");
  const boards = replayBoards(view, before, name);
  return h(
    "main",
    { class: "replay game" },
    h(
      "section",
      { class: "card replay-head" },
      h("h1", {}, "🎞 ", t("replay_title", { preset: t(`preset.${data.preset}`) })),
      h("p", { class: "replay-players" }, players),
      h("p", { class: "muted" }, outcome(final, name), data.finished_ms ? ` · ${dateTime(data.finished_ms)}` : "", " · ", plural("moves_n", lastStep())),
    ),
    controls(),
    h(
      "div",
      { class: "play-area" },
      h("div", { class: `boards replay-boards boards-${boards.length}` }, boards),
      h(
        "aside",
        { class: "side card replay-side" },
        h("div", { class: "tab-body replay-now", "aria-live": "polite" }, stepEvents(view)),
        h("h3", { class: "replay-moves-title" }, t("replay_moves")),
        movesList(name),
      ),
    ),
    data.stats
      ? h(
          "section",
          { class: "card replay-stats" },
          h("h2", {}, t("stats_title")),
          statsTable(data.stats, final, name),
          heatMaps(data.stats, final, name, t("heat_title")),
        )
      : null,
  );
}
