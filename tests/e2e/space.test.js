// End-to-end tests of the space battle (R-7, issue 6): two people buy their
// fleets in the shop, place them, use every ability through the browser —
// laser, scanner, nuke and a reserve on cells they choose — and play on until
// the game ends by play. A capital ship is either a dreadnought (nuke) or a
// station (reserve), never both, so one person buys each.
//
// Until every ability has been used, the test keeps the fleets alive: each
// person's plain shots avoid the other person's ships (the test reads both
// pages; the pages themselves never see each other's fleets). Every page
// records the WebSocket frames it receives and sends; each game ends with the
// frame-inspection check of harness.js.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  fileFixture,
  newPlayer,
  openHome,
  chooseRules,
  waitForLobby,
  followInvite,
  fireOnce,
  shoot,
  recordFrames,
  recordSent,
  checkFrames,
  playSalvo,
  ownShipKeys,
} from "./harness.js";

const fixture = fileFixture();

/** A player whose frames, both ways, are recorded from the first one. */
async function recordedPlayer(name, options) {
  const player = await newPlayer(fixture.chromium.browser, options);
  player.name = name;
  player.frames = recordFrames(player.page);
  player.sent = recordSent(player.page);
  player.used = new Set();
  return player;
}

const COLS = 12;
const ROWS = 8;
const CREDITS = 200;

/**
 * Sets a number option in the lobby and waits until the room's rule summary
 * shows `shown` (a frame that redraws the lobby mid-typing loses the typing:
 * then it is typed again).
 */
async function setNumber(page, id, value, shown) {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await page.fill(`#${id}`, String(value));
    await page.locator(`#${id}`).press("Tab");
    const done = await page
      .waitForFunction((shown) => (document.querySelector(".rule-summary")?.textContent || "").includes(shown), shown, { timeout: 3000 })
      .then(() => true, () => false);
    if (done) return;
  }
  throw new Error(`the option ${id} did not become ${value}`);
}

/**
 * A room of `seats` for the host and one guest (the other seats bots), on a
 * smaller field with fewer credits so that the game ends sooner.
 */
async function spaceRoom(host, guest, seats) {
  await openHome(host.page, fixture.server.url, host.name);
  await chooseRules(host.page, "space");
  await host.page.click("#play-friend");
  await waitForLobby(host.page);
  if (seats > 2) {
    await host.page.selectOption("#seat-count", String(seats));
    await host.page.waitForFunction((n) => document.querySelectorAll(".seats li").length === n, seats);
    for (let seat = 2; seat < seats; seat += 1) {
      // Easy bots shoot at random and use no abilities: the people's capital ships live long enough.
      await host.page.selectOption(`.seats li:nth-child(${seat + 1}) select`, "easy");
      await host.page.waitForSelector(`.seats li:nth-child(${seat + 1}).seat-bot`);
    }
  }
  await setNumber(host.page, "opt-cols", COLS, `${COLS}×`);
  await setNumber(host.page, "opt-rows", ROWS, `${COLS}×${ROWS}`);
  await setNumber(host.page, "opt-credits", CREDITS, String(CREDITS));
  const invite = await host.page.inputValue("#invite-link");
  await openHome(guest.page, fixture.server.url, guest.name);
  await followInvite(guest.page, invite);
  await host.page.waitForSelector(".seats li:nth-child(2).seat-person");
  await host.page.waitForSelector("#start:not([disabled])");
  await host.page.click("#start");
}

/**
 * Buys a fleet ship by ship in the shop, capital ship first; the order must
 * spend every credit.
 */
async function buy(player, order, { screenshot } = {}) {
  const page = player.page;
  await page.waitForSelector(".shop #buy");
  assert.ok((await page.locator(".shop-item").count()) >= 9, "the whole catalogue is on sale");
  // Fewer credits shrink the default fleet to the longest prefix they pay:
  // dreadnought, lancer, lancer, spirit = 190 of 200.
  await page.click("#default-fleet");
  assert.match(await page.locator("#credits-left").innerText(), new RegExp(`\\b10 / ${CREDITS}\\b`));
  await page.click("#clear-cart");
  const [capital, ...rest] = order;
  await page.click(`[data-more="${capital}"]`);
  // The capital rule: one capital ship locks the other, though credits remain.
  const other = capital === "dreadnought" ? "station" : "dreadnought";
  assert.equal(await page.locator(`[data-more="${other}"]`).isDisabled(), true, `${other} is locked`);
  for (const id of rest) await page.click(`[data-more="${id}"]`);
  assert.match(await page.locator("#credits-left").innerText(), new RegExp(`\\b0 / ${CREDITS}\\b`));
  if (screenshot) await shoot(page, screenshot);
  await page.click("#buy");
}

async function placeBought(player, count) {
  const page = player.page;
  await page.waitForSelector(".placement #random", { timeout: 15000 });
  assert.equal(await page.locator(".dock-ship").count(), count, "the bought fleet waits in the dock");
  await page.click("#random");
  await page.waitForSelector("#ready:not([disabled])");
  await page.click("#ready");
}

async function states(page) {
  return page.evaluate(() => document.getElementById("app").dataset.states);
}

async function ready(page, kind) {
  return (await page.locator(`#special-${kind}:not([disabled])`).count()) > 0;
}

/** Whether a salvo is waiting for this page (three or more alive). */
async function salvoDue(page) {
  return (await page.locator("#submit-salvo").count()) > 0;
}

/** Cells of the target board in view whose mark is one of `marks`. */
async function cellsOf(page, marks) {
  return page.$$eval(
    ".target-board.armed .cell",
    (els, marks) => els.filter((el) => marks.some((m) => el.classList.contains(`m-${m}`))).map((el) => [Number(el.dataset.col), Number(el.dataset.row)]),
    marks,
  );
}

function cell(c, r) {
  return `.target-board.armed .cell[data-col='${c}'][data-row='${r}']`;
}

/** The areas the test expects, computed here on their own to check the server's answers. */
function expectedArea(kind, [c, r]) {
  const inside = ([x, y]) => x >= 0 && y >= 0 && x < COLS && y < ROWS;
  const cells = [];
  if (kind === "laser") for (let y = 0; y < ROWS; y += 1) cells.push([c, y]);
  if (kind === "scanner") for (let dy = -1; dy <= 1; dy += 1) for (let dx = -1; dx <= 1; dx += 1) cells.push([c + dx, r + dy]);
  if (kind === "nuke") for (let dy = -2; dy <= 2; dy += 1) for (let dx = -2; dx <= 2; dx += 1) if (Math.abs(dx) + Math.abs(dy) <= 2) cells.push([c + dx, r + dy]);
  return cells.filter(inside).length;
}

/**
 * Aims an ability at a cell through the UI: chooses it, hovers the cell and
 * checks the previewed area (the server's preview_action answer), then clicks.
 */
async function aim(player, kind, at, { screenshot } = {}) {
  const page = player.page;
  const asked = player.sent.filter((f) => f.type === "preview_action").length;
  await page.click(`#special-${kind}`);
  if (kind === "laser") {
    await page.click("#laser-end");
    assert.match(await page.locator("#laser-end").innerText(), /↑/);
  }
  await page.hover(cell(at[0], at[1]));
  const expected = expectedArea(kind, at);
  await page.waitForFunction((n) => document.querySelectorAll(".target-board .cell.area").length === n, expected).catch(async (error) => {
    const shown = await page.locator(".target-board .cell.area").count();
    throw new Error(`${kind} at ${at}: ${shown} cells previewed, ${expected} expected (${error.message})`);
  });
  assert.ok(player.sent.filter((f) => f.type === "preview_action").length > asked, "the preview was asked of the server");
  if (screenshot) await shoot(page, screenshot);
  const before = await states(page);
  const salvo = await salvoDue(page);
  await page.click(cell(at[0], at[1]));
  // In a duel the ability is the turn: wait for its answer before anything else.
  if (!salvo) await page.waitForFunction((before) => document.getElementById("app").dataset.states !== before, before);
}

/**
 * Chooses the reserve's three cells on the own field through the UI: free
 * water, away from the own ships and from each other. Cells an
 * opponent has scanned are refused (the person cannot know them): the test
 * leaves out those of the other person's scans, which it reads off the other
 * page (`tried`); a bot's unknown scan may still cost a refusal, after which
 * the page reopens the choice and the test tries other cells.
 */
async function pickReserveCells(player, tried) {
  const page = player.page;
  await page.waitForSelector(".board-card.own .reserve-picker");
  const cells = await page.evaluate((tried) => {
    const board = document.querySelector(".board-card.own .reserve-picker");
    const at = (c, r) => board.querySelector(`.cell[data-col="${c}"][data-row="${r}"]`);
    const chosen = [];
    const near = (c, r, [x, y]) => Math.abs(c - x) <= 1 && Math.abs(r - y) <= 1;
    for (const el of board.querySelectorAll(".cell.m-unknown")) {
      const c = Number(el.dataset.col);
      const r = Number(el.dataset.row);
      if (tried.includes(`${c},${r}`)) continue;
      let free = true;
      // Own ships are drawn as hulls, intact or hit.
      for (let dy = -1; dy <= 1; dy += 1) for (let dx = -1; dx <= 1; dx += 1) if (at(c + dx, r + dy)?.classList.contains("hull")) free = false;
      if (free && !chosen.some((p) => near(c, r, p))) chosen.push([c, r]);
      if (chosen.length === 3) break;
    }
    return chosen;
  }, tried);
  assert.equal(cells.length, 3, "three free cells for the fighters");
  for (const [c, r] of cells) {
    tried.push(`${c},${r}`);
    await page.click(`.board-card.own .cell[data-col='${c}'][data-row='${r}']`);
  }
  assert.equal(await page.locator(".board-card.own .cell.reserve-pick").count(), 3, "the chosen cells are marked");
  assert.match(await page.locator("#reserve-confirm").innerText(), /3\/3/);
  return cells;
}

/** The own ship count under the own board ("n of m afloat"). */
async function ownAfloat(page) {
  const text = await page.locator(".board-card.own .board-note").innerText();
  return text.match(/\d+/g).map(Number);
}

/**
 * The reserve through the UI: in a duel the fighters land at once; in a salvo
 * round the reserve takes one opponent's shots and lands when the round resolves.
 */
async function useReserve(player, other, { screenshot } = {}) {
  const page = player.page;
  const [, total] = await ownAfloat(page);
  const tried = scannedBy(other, await seatOf(page));
  for (let attempt = 0; attempt < 4; attempt += 1) {
    const before = await states(page);
    await page.click("#special-reserve");
    const cells = await pickReserveCells(player, tried);
    if (screenshot && attempt === 0) await shoot(page, screenshot);
    const salvo = await salvoDue(page);
    await page.click("#reserve-confirm");
    if (salvo) {
      await page.waitForSelector(".sea-tab.active .due.done");
      assert.match(await page.locator("#submit-salvo").innerText(), /⚡/);
      assert.equal(await page.locator(".board-card.own .cell.reserve-pick").count(), 3, "the planned landing stays marked");
      await playSalvo(page, { refused: "#reserve-hint" });
    }
    // Landed (a new state with the fighters) or refused (the choice reopens).
    await page.waitForFunction(
      ([before, total]) => document.querySelector("#reserve-hint") || (document.getElementById("app").dataset.states !== before && new RegExp(`\\b${total + 3}\\b`).test(document.querySelector(".board-card.own .board-note")?.textContent || "")),
      [before, total],
      { timeout: 20000 },
    );
    if (await page.locator("#reserve-hint").count()) {
      console.log(`${player.name}: the reserve on ${JSON.stringify(cells)} was refused; trying other cells`);
      await page.click("#reserve-cancel");
      continue;
    }
    assert.equal((await ownAfloat(page))[1], total + 3, "three more ships in the own fleet");
    const reinforced = player.frames.map((f) => JSON.parse(f)).flatMap((f) => f.events || []).find((e) => e.event === "reinforced" && e.cells);
    assert.deepEqual(reinforced.cells, cells, "the fighters landed on the chosen cells");
    // Drawn as own ships (a shot of the same round may already have hit one).
    for (const [c, r] of cells) await page.waitForSelector(`.board-card.own .cell[data-col='${c}'][data-row='${r}'].hull`);
    player.used.add("reserve");
    return;
  }
  throw new Error("the reserve never landed");
}

/** The cells of `seat`'s field that the other page's own scans have seen, as "col,row". */
function scannedBy(other, seat) {
  const states = other.frames.map((f) => JSON.parse(f)).filter((f) => f.type === "state");
  const rows = states.at(-1)?.view.boards[seat]?.rows || [];
  return rows.flatMap((row, r) => [...row].map((mark, c) => (mark === "-" || mark === "!" ? `${c},${r}` : null))).filter(Boolean);
}

/** The laser on a column of the sea in view that still has unknown cells, entering from the bottom. */
async function useLaser(player) {
  const unknown = await cellsOf(player.page, ["unknown"]);
  const column = unknown[Math.floor(unknown.length / 2)][0];
  await aim(player, "laser", [column, ROWS - 1], { screenshot: player.name === "Ana" ? "en-ability-preview" : undefined });
  player.used.add("laser");
}

/** The scanner on an unknown cell away from the edges: its 3×3 square shows '!' or '-'. */
async function useScanner(player) {
  const inner = (await cellsOf(player.page, ["unknown"])).filter(([c, r]) => c > 0 && r > 0 && c < COLS - 1 && r < ROWS - 1);
  await aim(player, "scanner", inner[Math.floor(inner.length / 2)]);
  player.used.add("scanner");
}

/**
 * The nuke on a cell of the other person's fleet that this page does not know
 * yet, so that it explodes: the test reads it off the other page.
 */
async function useNuke(player, other, otherSeat) {
  const page = player.page;
  if (await page.locator(`#sea-tab-${otherSeat}`).count()) await page.click(`#sea-tab-${otherSeat}`);
  const ships = new Set((await ownShipKeys(other.page)).map((k) => k.split(":")[1]));
  const unknown = await cellsOf(page, ["unknown"]);
  const target = unknown.find(([c, r]) => ships.has(`${c},${r}`));
  assert.ok(target, "a cell of the other fleet is still unknown");
  const before = player.frames.length;
  await aim(player, "nuke", target);
  player.used.add("nuke");
  return { target, before };
}

/** After the nuke's round: it was announced, and it exploded into several shots. */
function checkNuke(player, { target, before }, shooter, board) {
  const events = player.frames.slice(before).map((f) => JSON.parse(f)).flatMap((f) => f.events || []);
  assert.ok(events.some((e) => e.event === "action_used" && e.kind === "nuke" && e.seat === shooter), "the nuke was used");
  const near = (at) => Math.abs(at[0] - target[0]) + Math.abs(at[1] - target[1]) <= 2;
  const shots = events.filter((e) => e.event === "shot" && e.shooter === shooter && e.board === board && near(e.at));
  assert.ok(shots.length > 1, `the nuke exploded (${shots.length} shots around its target)`);
}

/**
 * One move of a person, if one is due: the next ability it has not used yet
 * (the nuke only once the other person's reserve has landed), else a plain
 * shot or salvo — avoiding the other person's ships until every ability of
 * both has been used, then aiming at them first (the test knows both fleets)
 * and hunting the rest. Returns whether it acted.
 */
async function move(player, other, plan) {
  const page = player.page;
  if (!(await page.locator("#turn-banner.mine").count())) return false;
  const salvo = await salvoDue(page);
  const abilities = plan.abilities[player.name];
  const next = abilities.find((k) => !player.used.has(k) && (k !== "nuke" || other.used.has("reserve")));
  if (next && (await ready(page, next))) {
    if (next === "laser") await useLaser(player);
    else if (next === "scanner") await useScanner(player);
    else if (next === "reserve") await useReserve(player, other, { screenshot: plan.reserveShot });
    else if (next === "nuke") plan.nuke = await useNuke(player, other, plan.seats[other.name]);
    if (next === "reserve") return true;
    if (salvo) {
      // The ability replaces the shots on the sea in view; the salvo still owes the others.
      await page.waitForSelector(".sea-tab.active .due.done");
      assert.match(await page.locator("#submit-salvo").innerText(), /⚡/);
    } else {
      return true;
    }
  }
  // Until then the other person's ships are spared; afterwards they are the
  // first targets, so that the end comes soon.
  const ships = await ownShipKeys(other.page);
  const targets = plan.done() ? { prefer: ships } : { avoid: ships };
  if (salvo) return playSalvo(page, targets);
  return fireOnce(page, targets);
}

async function ended(page) {
  return (await page.locator("#end-card").count()) > 0;
}

/** Plays until both pages show the end; bots (if any) play on their own. */
async function playToEnd(people, plan) {
  for (let step = 0; step < 6000; step += 1) {
    if ((await ended(people[0].page)) && (await ended(people[1].page))) return;
    let acted = false;
    for (const [player, other] of [people, [...people].reverse()]) {
      if (await ended(player.page)) continue;
      if (await move(player, other, plan)) acted = true;
    }
    if (!acted) await people[0].page.waitForTimeout(40);
  }
  throw new Error("the game did not end");
}

async function seatOf(page) {
  return page.evaluate(() => Number(document.querySelector(".board-card.own .board")?.dataset.board));
}

async function spaceGame({ seats, host, guest }) {
  await spaceRoom(host, guest, seats);
  // Ana buys the dreadnought (nuke), the guest the station (reserve); both a lancer and a spirit.
  await buy(host, ["dreadnought", "lancer", "spirit", "corvette", "scout"], { screenshot: seats === 2 ? "en-shop" : undefined });
  await buy(guest, ["station", "lancer", "spirit", "corvette", "scout", "fighter"], { screenshot: seats === 3 ? "es-shop" : undefined });
  await placeBought(host, 5);
  await placeBought(guest, 6);
  await host.page.waitForSelector(".battle");
  await guest.page.waitForSelector(".battle");
  // Opponents' fleets are secret in space: the own fleet is drawn, theirs only counted (R-7.4).
  assert.equal(await host.page.locator(".target-board .cell.m-ship").count(), 0);
  assert.ok((await host.page.locator("#special-laser").count()) && (await host.page.locator("#special-nuke").count()));
  assert.ok((await guest.page.locator("#special-scanner").count()) && (await guest.page.locator("#special-reserve").count()));
  const plan = {
    abilities: { [host.name]: ["laser", "scanner", "nuke"], [guest.name]: ["laser", "scanner", "reserve"] },
    seats: { [host.name]: await seatOf(host.page), [guest.name]: await seatOf(guest.page) },
    reserveShot: seats === 2 ? "pt-PT-reserve" : undefined,
    done: () => ["laser", "scanner", "nuke"].every((k) => host.used.has(k)) && ["laser", "scanner", "reserve"].every((k) => guest.used.has(k)),
  };
  await playToEnd([host, guest], plan);
  assert.ok(plan.done(), "every ability was used");
  checkNuke(host, plan.nuke, plan.seats[host.name], plan.seats[guest.name]);
  for (const player of [host, guest]) {
    // The end came by play: nobody resigned.
    const events = player.frames.map((f) => JSON.parse(f)).flatMap((f) => f.events || []);
    assert.ok(!events.some((e) => e.event === "resigned"), "nobody resigned");
    assert.ok(events.some((e) => e.event === "game_over"), "the game is over");
    const counted = checkFrames(player.frames, player.name);
    assert.ok(counted.private > 20, `${player.name} read ${counted.private} private frames`);
    assert.ok(player.frames.some((f) => JSON.parse(f).type === "action_area"), "area previews came from the server");
    assert.deepEqual(player.page.errors || [], []);
  }
  // Scanner results are private: the guest never heard of the host's scan.
  const scans = (player) => player.frames.map((f) => JSON.parse(f)).flatMap((f) => f.events || []).filter((e) => e.event === "scan");
  assert.ok(scans(host).some((e) => e.seat === plan.seats[host.name]));
  assert.ok(!scans(guest).some((e) => e.seat === plan.seats[host.name]));
  await host.context.close();
  await guest.context.close();
}

test("space for two people: shop, laser, scanner, nuke and a chosen reserve, played to the end", async () => {
  const host = await recordedPlayer("Ana");
  const guest = await recordedPlayer("Beatriz", { locale: "pt-PT" });
  await spaceGame({ seats: 2, host, guest });
});

test("space for three (two people and a bot): every ability in salvo rounds, played to the end", async () => {
  const host = await recordedPlayer("Lucía", { locale: "es-ES" });
  const guest = await recordedPlayer("Giulia", { locale: "it-IT" });
  await spaceGame({ seats: 3, host, guest });
});
