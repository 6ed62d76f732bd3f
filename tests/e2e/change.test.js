// Change frames in the browser (docs/protocol.md, "State and change"): the
// page's own module web/js/change.js follows a real server's `change` frames
// through whole games, and whenever it asks for the whole view again
// (`resync`) its copy must equal the view the server sends. Played inside a
// page over the page's own WebSocket, against bots, in the duel presets and a
// salvo game of three; the page's UI is not involved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileFixture, newPlayer } from "./harness.js";

const fixture = fileFixture();

/**
 * Plays one game inside the page by the protocol alone: places at random,
 * fires at cells its view shows `~` (a salvo's due shots in rounds of three),
 * and every few frames sends `resync` and compares its copy with the answer.
 * Resolves to what it saw.
 */
async function playThroughChanges(page, create) {
  return page.evaluate(async (create) => {
    const { ViewCopy } = await import("/js/change.js");
    // Views compared as the server means them: keys in any order, and a
    // field that is `null` the same as one left out (a change sends `null`
    // for a field the whole view omits).
    const canon = (value) => {
      if (Array.isArray(value)) return value.map(canon);
      if (value && typeof value === "object") {
        const out = {};
        for (const key of Object.keys(value).sort()) if (value[key] !== null && value[key] !== undefined) out[key] = canon(value[key]);
        return out;
      }
      return value;
    };
    const socket = new WebSocket(`ws://${location.host}/ws`);
    const inbox = [];
    let wake = null;
    socket.addEventListener("message", (m) => {
      inbox.push(JSON.parse(m.data));
      if (wake) wake();
    });
    const next = () => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no frame within 15 s")), 15000);
      const take = () => {
        if (!inbox.length) return;
        clearTimeout(timer);
        wake = null;
        resolve(inbox.shift());
      };
      wake = take;
      take();
    });
    await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
    const send = (frame) => socket.send(JSON.stringify(frame));
    const expect = async (type) => {
      for (;;) {
        const frame = await next();
        if (frame.type === type) return frame;
        if (frame.type === "error") throw new Error(`error while waiting for ${type}: ${JSON.stringify(frame)}`);
      }
    };
    send({ type: "hello", token: null, nickname: "Copier", lang: "en" });
    await expect("welcome");
    send(create);
    await expect("room");
    send({ type: "start" });

    const copy = new ViewCopy();
    const seen = { changes: 0, compared: 0, differences: [], outOfStep: 0, errors: [], phase: null, frames: 0 };
    let resyncAsked = false;
    let moveSent = false;
    const pick = (view, board, count, taken) => {
      const rows = view.boards[board].rows;
      const free = [];
      rows.forEach((row, r) => [...row].forEach((mark, c) => mark === "~" && !taken.has(`${board}:${c}:${r}`) && free.push([c, r])));
      const chosen = [];
      while (chosen.length < count && free.length) chosen.push(free.splice(Math.floor(Math.random() * free.length), 1)[0]);
      for (const [c, r] of chosen) taken.add(`${board}:${c}:${r}`);
      return chosen;
    };
    for (let frames = 0; frames < 6000; frames++) {
      const frame = await next();
      seen.frames += 1;
      if (frame.type === "error") {
        seen.errors.push(frame.code);
        moveSent = false;
        continue;
      }
      if (frame.type !== "state" && frame.type !== "change") continue;
      if (frame.type === "change") seen.changes += 1;
      if (frame.type === "state" && resyncAsked) {
        resyncAsked = false;
        seen.compared += 1;
        const mine = JSON.stringify(canon(copy.view));
        const theirs = JSON.stringify(canon(frame.view));
        if (mine !== theirs) seen.differences.push({ mine, theirs });
      }
      const state = copy.receive(frame);
      if (state === null) {
        seen.outOfStep += 1;
        continue;
      }
      const view = state.view;
      seen.phase = view.phase;
      if (view.phase === "finished") {
        if (seen.compared === 0 || frame.type === "change") {
          // One last comparison at the end.
          resyncAsked = true;
          send({ type: "resync" });
          continue;
        }
        break;
      }
      if (frame.type === "change" && seen.changes % 7 === 0 && !resyncAsked) {
        resyncAsked = true;
        send({ type: "resync" });
      }
      if (state.events.some((e) => e.seat === view.seat || e.shooter === view.seat)) moveSent = false;
      if (moveSent || !view.to_move.includes(view.seat)) continue;
      moveSent = true;
      if (view.phase === "placement") {
        send({ type: "command", command: { cmd: "place_random" } });
        continue;
      }
      const legal = view.legal_targets;
      if (!legal) {
        moveSent = false;
        continue;
      }
      const taken = new Set();
      if (view.salvo_round) {
        const shots = [];
        for (const waters of legal.waters) for (const [c, r] of pick(view, waters.board, waters.shots_due, taken)) shots.push({ board: waters.board, at: [c, r] });
        send({ type: "command", command: { cmd: "salvo", shots, action: null } });
      } else {
        const board = legal.waters[0].board;
        const [[c, r]] = pick(view, board, 1, taken);
        send({ type: "command", command: { cmd: "fire", target: { board, at: [c, r] } } });
      }
    }
    socket.close();
    return seen;
  }, create);
}

const games = [
  ["classic against a bot", { type: "create_room", preset: "classic", seats: 2, bots: [{ seat: 1, level: "easy" }] }],
  ["brasil (three shots a turn) against a bot", { type: "create_room", preset: "brasil", seats: 2, bots: [{ seat: 1, level: "easy" }] }],
  ["a salvo game of three", { type: "create_room", preset: "classic", seats: 3, bots: [{ seat: 1, level: "easy" }, { seat: 2, level: "easy" }] }],
];

for (const [name, create] of games) {
  test(`the page's copy of its view follows every change: ${name}`, async () => {
    const { context, page } = await newPlayer(fixture.chromium.browser);
    await page.goto(fixture.server.url);
    const seen = await playThroughChanges(page, create);
    await context.close();
    assert.equal(seen.phase, "finished", `the game ended (${JSON.stringify(seen)})`);
    assert.equal(seen.outOfStep, 0, "no change was out of step on one connection");
    assert.ok(seen.changes >= 20, `the server sent changes, not whole views (${seen.changes})`);
    assert.ok(seen.compared >= 3, `the copy was compared with the server's view (${seen.compared} times)`);
    assert.deepEqual(seen.differences, [], "the copy equals the server's whole view every time");
  });
}
