// End-to-end tests of games of three or more, the shared sea and the space
// battle (issue 6), against a real `broadside serve` in headless Chromium.
// Every page records the WebSocket frames it receives, and each game ends
// with a check that no frame told a seat what it may not know.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  sharedServer,
  launchBrowser,
  newPlayer,
  openHome,
  chooseRules,
  waitForLobby,
  placeRandomAndReady,
  fireOnce,
  shoot,
  recordFrames,
  checkFrames,
  playSalvo,
  playMultiToEnd,
} from "./harness.js";

let server;
let chromium;

before(async () => {
  server = await sharedServer();
  chromium = await launchBrowser();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

/** A player whose received frames are recorded from the first one. */
async function recordedPlayer(options) {
  const player = await newPlayer(chromium.browser, options);
  player.frames = recordFrames(player.page);
  return player;
}

async function setSeatCount(page, n) {
  await page.selectOption("#seat-count", String(n));
  await page.waitForFunction((count) => document.querySelectorAll(".seats li").length === count, n);
}

async function makeBot(page, seat, level = "medium") {
  await page.selectOption(`.seats li:nth-child(${seat + 1}) select`, level);
  await page.waitForSelector(`.seats li:nth-child(${seat + 1}).seat-bot`);
}

async function start(page) {
  await page.waitForSelector("#start:not([disabled])");
  await page.click("#start");
}

test("four players, two people and two bots, play salvo rounds to the end", async () => {
  const host = await recordedPlayer();
  const guest = await recordedPlayer({ locale: "it-IT" });
  await openHome(host.page, server.url, "Ana");
  await chooseRules(host.page, "classic");
  await host.page.click("#play-friend");
  await waitForLobby(host.page);
  await setSeatCount(host.page, 4);
  await makeBot(host.page, 2);
  await makeBot(host.page, 3, "easy");
  const invite = await host.page.inputValue("#invite-link");
  await guest.page.goto(invite);
  await guest.page.waitForSelector(".lobby .code-big");
  await host.page.waitForSelector(".seats li:nth-child(2).seat-person");
  // The lobby explains the salvo rule of a game of four.
  assert.match(await host.page.locator(".rule-summary").innerText(), /2 shots on each opponent/);
  await start(host.page);
  await host.page.waitForSelector(".placement");
  await guest.page.waitForSelector(".placement");
  await placeRandomAndReady(host.page);
  await placeRandomAndReady(guest.page);
  await host.page.waitForSelector(".battle #submit-salvo");

  // One opponent's sea at a time: three tabs, each owed two shots.
  assert.equal(await host.page.locator(".sea-tab").count(), 3);
  assert.deepEqual(await host.page.$$eval(".sea-tab .due", (els) => els.map((e) => e.textContent)), ["0/2", "0/2", "0/2"]);
  assert.equal(await host.page.locator("#submit-salvo").isDisabled(), true);
  // Two shots on the first tab, then the tab says so and a third is refused.
  const cells = ".target-board.armed .cell.m-unknown";
  await host.page.locator(cells).nth(0).click();
  await host.page.locator(cells).nth(11).click();
  assert.equal(await host.page.locator(".target-board .cell.chosen").count(), 2);
  assert.equal(await host.page.locator(".sea-tab.active .due").innerText(), "2/2");
  await host.page.locator(cells).nth(22).click();
  assert.equal(await host.page.locator(".target-board .cell.chosen").count(), 2, "no third shot on one opponent");
  // Switching tabs keeps the choice; the other seas still owe their shots.
  await host.page.click(".sea-tab:nth-child(2)");
  assert.equal(await host.page.locator(".target-board .cell.chosen").count(), 0);
  await host.page.click(".sea-tab:nth-child(1)");
  assert.equal(await host.page.locator(".target-board .cell.chosen").count(), 2);
  await playSalvo(host.page);
  await playSalvo(guest.page);
  // The round resolves: a summary says who shot where.
  await host.page.waitForSelector("#round-summary");
  const summary = await host.page.locator("#round-summary").innerText();
  assert.match(summary, /You/);
  assert.match(summary, /→/);
  await shoot(host.page, "en-salvo-round");

  // Two more rounds, then the guest resigns and watches with full vision.
  for (let rounds = 0; rounds < 2; ) {
    if (await playSalvo(host.page)) rounds += 1;
    await playSalvo(guest.page);
    if (!(await host.page.locator("#submit-salvo").count())) await host.page.waitForTimeout(50);
  }
  guest.page.once("dialog", (dialog) => dialog.accept());
  await guest.page.click("#resign");
  await guest.page.waitForSelector("#watching");
  assert.equal(await guest.page.locator("#resign").count(), 0, "a watcher cannot resign again");
  assert.ok((await guest.page.locator(".target-board .cell.m-ship").count()) > 0, "the watcher sees the opponents' intact ships");
  assert.equal(await guest.page.locator(".target-board.armed").count(), 0, "a watcher has nothing to aim at");
  await shoot(guest.page, "it-watching");

  await playMultiToEnd([host.page, guest.page]);
  await host.page.waitForSelector("#end-card");
  await guest.page.waitForSelector("#end-card");
  for (const [who, player] of [["host", host], ["guest", guest]]) {
    const counted = checkFrames(player.frames, who);
    assert.ok(counted.private > 10, `${who} read ${counted.private} private frames`);
    assert.deepEqual(player.page.errors || [], []);
  }
  await host.context.close();
  await guest.context.close();
});

test("a 2v2 team game: team-mates' seas are shown and never targets", async () => {
  const host = await recordedPlayer();
  await openHome(host.page, server.url, "Ana");
  await chooseRules(host.page, "classic");
  await host.page.click("#play-bot");
  await waitForLobby(host.page);
  await setSeatCount(host.page, 4);
  await makeBot(host.page, 2);
  await makeBot(host.page, 3);
  await host.page.check("#opt-teams", { force: true });
  await host.page.waitForFunction(() => /Teams:/.test(document.querySelector(".rule-summary").textContent));
  // An outside spectator watches too: it may see only what was announced.
  const code = await waitForLobby(host.page);
  const spectator = await recordedPlayer();
  await spectator.page.goto(`${server.url}/r/${code}?watch`);
  await spectator.page.waitForSelector(".lobby .badge");
  await start(host.page);
  await host.page.waitForSelector(".placement");
  await placeRandomAndReady(host.page);
  await host.page.waitForSelector(".battle");
  // Seat 2 is the team-mate (teams alternate): its tab is marked and its ships are drawn.
  const mateTab = host.page.locator(".sea-tab.mate");
  assert.equal(await mateTab.count(), 1);
  await mateTab.click();
  assert.ok((await host.page.locator(".board-card.mate .cell.hull").count()) > 0, "the team-mate's ships are visible");
  assert.equal(await host.page.locator(".board-card.mate .target-board.armed").count(), 0, "a team-mate's sea is no target");
  await host.page.click(".sea-tab:not(.mate)");
  await playMultiToEnd([host.page]);
  await host.page.waitForSelector("#end-card");
  const counted = checkFrames(host.frames, "team");
  assert.ok(counted.private > 5);
  await spectator.page.waitForSelector("#end-card");
  const watched = checkFrames(spectator.frames, "spectator");
  assert.ok(watched.private > 5, `the spectator read ${watched.private} frames`);
  assert.deepEqual(host.page.errors || [], []);
  assert.deepEqual(spectator.page.errors || [], []);
  await host.context.close();
  await spectator.context.close();
});

test("a shared sea of three: own block marked, «?» hits, played to the end", async () => {
  const { context, page, frames } = await recordedPlayer();
  await openHome(page, server.url, "Ana");
  await chooseRules(page, "shared");
  await page.click("#play-bot");
  await waitForLobby(page);
  await setSeatCount(page, 3);
  await makeBot(page, 2);
  await start(page);
  await page.waitForSelector(".placement");
  // Placement happens in the own block only.
  assert.ok((await page.locator(".placement-board .cell.blk-own").count()) === 100);
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  const own = await page.$$eval(".placement-board .cell, .target-board .cell.blk-own", (els) => els.length);
  assert.equal(own, 100, "the own block is marked on the sea");
  assert.ok((await page.locator(".block-tag.tag-own").count()) === 1);
  let shot = false;
  let watched = false;
  await playMultiToEnd([page], {
    each: async (p) => {
      if (!shot && (await p.locator(".target-board .cell.m-hit_unknown_owner").count())) {
        shot = true;
        await shoot(p, "en-shared-sea");
      }
      if (!watched && (await p.locator("#watching").count())) watched = true;
    },
  });
  await page.waitForSelector("#end-card");
  const counted = checkFrames(frames, "shared");
  assert.ok(counted.private > 5);
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("space: buy the default fleet, place it, fire the laser and the nuke, then the end", async () => {
  const { context, page, frames } = await recordedPlayer();
  await openHome(page, server.url, "Ana");
  await chooseRules(page, "space");
  // An easy bot: the dreadnought should live to round 9, when the nuke is ready.
  await page.selectOption("#bot-level", "easy");
  await page.click("#play-bot");
  await waitForLobby(page);
  // Fewer credits shrink the default fleet to the longest prefix it can pay.
  await page.fill("#opt-credits", "250");
  await page.locator("#opt-credits").press("Tab");
  await page.waitForFunction(() => /250/.test(document.querySelector(".rule-summary").textContent));
  await start(page);
  await page.waitForSelector(".shop #buy");
  // The catalogue shows every ship with its price; the default fleet fits the credits.
  assert.ok((await page.locator(".shop-item").count()) >= 9);
  await page.click("#default-fleet");
  assert.match(await page.locator("#credits-left").innerText(), /10 \/ 250/);
  // The capital rule: with a dreadnought in the order, no station can be added.
  assert.equal(await page.locator('[data-more="station"]').isDisabled(), true);
  await shoot(page, "en-shop");
  await page.click("#buy");
  await page.waitForSelector(".placement #random", { timeout: 15000 });
  // The bought fleet is in the dock: a dreadnought, two lancers and two spirits.
  assert.equal(await page.locator(".dock-ship").count(), 5);
  await page.click("#random");
  await page.waitForSelector("#ready:not([disabled])");
  await page.click("#ready");
  await page.waitForSelector(".battle");
  assert.ok(await page.locator("#special-laser").count(), "the ability bar shows the laser");

  let lasered = false;
  let nuked = false;
  for (let step = 0; step < 3000 && !nuked && !(await page.locator(".end").count()); step += 1) {
    if (lasered && !nuked && (await page.locator("#special-nuke:not([disabled])").count())) {
      // The nuke's preview: the 13 cells at Manhattan distance ≤ 2.
      await page.click("#special-nuke");
      const target = await page.$$eval(".target-board.armed .cell.m-unknown", (els) => {
        const inner = els.find((el) => Number(el.dataset.col) >= 2 && Number(el.dataset.row) >= 2 && Number(el.dataset.col) <= 17 && Number(el.dataset.row) <= 7);
        return [inner.dataset.col, inner.dataset.row];
      });
      const cell = `.target-board .cell[data-col='${target[0]}'][data-row='${target[1]}']`;
      await page.hover(cell);
      await page.waitForSelector(".target-board .cell.area");
      assert.equal(await page.locator(".target-board .cell.area").count(), 13);
      await page.click(cell);
      await page.waitForFunction(() => !document.querySelector("#special-nuke") || document.querySelector("#special-nuke").disabled);
      nuked = true;
      continue;
    }
    if (!lasered && (await page.locator("#special-laser:not([disabled])").count())) {
      await page.click("#special-laser");
      await page.click("#laser-end");
      assert.match(await page.locator("#laser-end").innerText(), /bottom/);
      await page.hover(".target-board .cell[data-col='4'][data-row='3']");
      await page.waitForSelector(".target-board .cell.area");
      assert.equal(await page.locator(".target-board .cell.area").count(), 10, "the laser's column is previewed");
      await shoot(page, "en-ability-preview");
      await page.click(".target-board .cell[data-col='4'][data-row='3']");
      await page.waitForFunction(() => !document.querySelector("#special-laser") || document.querySelector("#special-laser").disabled);
      lasered = true;
      continue;
    }
    if (!(await fireOnce(page))) await page.waitForTimeout(40);
  }
  assert.ok(lasered, "the laser was fired");
  assert.ok(nuked, "the nuke was fired");
  // The abilities are shown; the game then ends by a resignation.
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#end-card");
  const counted = checkFrames(frames, "space");
  assert.ok(counted.private > 5);
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

/** Uses an ability on the sea in view: reserve at once, the others on an unknown cell. */
async function useAbility(page, kind) {
  const states = await page.evaluate(() => document.getElementById("app").dataset.states);
  const salvo = (await page.locator("#submit-salvo").count()) > 0;
  await page.click(`#special-${kind}`);
  if (kind !== "reserve") {
    const cell = await page.$$eval(".target-board.armed .cell.m-unknown", (els) => [els[Math.floor(els.length / 2)].dataset.col, els[Math.floor(els.length / 2)].dataset.row]);
    await page.click(`.target-board.armed .cell[data-col='${cell[0]}'][data-row='${cell[1]}']`);
  }
  if (salvo) {
    // The ability replaces the shots on this opponent: its tab owes nothing now.
    await page.waitForSelector(".sea-tab.active .due.done");
    assert.match(await page.locator("#submit-salvo").innerText(), /⚡/);
  } else {
    await page.waitForFunction((before) => document.getElementById("app").dataset.states !== before, states);
  }
}

test("space with three: the shop, then laser, scanner and reserve in salvo rounds", async () => {
  const { context, page, frames } = await recordedPlayer({ locale: "es-ES" });
  await openHome(page, server.url, "Lucía");
  await chooseRules(page, "space");
  await page.click("#play-bot");
  await waitForLobby(page);
  await setSeatCount(page, 3);
  await makeBot(page, 2, "easy");
  // Full fleets of 500 credits: nobody can be sunk out before the reserve's round 9.
  await start(page);
  await page.waitForSelector(".shop #buy");
  const order = ["station", "lancer", "lancer", "spirit", "spirit", "cruiser", "cruiser", "frigate", "frigate", "corvette", "scout", "fighter", "fighter", "fighter", "fighter"];
  for (const id of order) await page.click(`[data-more="${id}"]`);
  assert.match(await page.locator("#credits-left").innerText(), /0 \/ 500/);
  // With the station bought the dreadnought is locked by the capital rule.
  assert.equal(await page.locator('[data-more="dreadnought"]').isDisabled(), true);
  await shoot(page, "es-shop");
  await page.click("#buy");
  await page.waitForSelector(".placement #random", { timeout: 15000 });
  assert.equal(await page.locator(".dock-ship").count(), order.length);
  await page.click("#random");
  await page.waitForSelector("#ready:not([disabled])");
  await page.click("#ready");
  await page.waitForSelector(".battle");
  // Opponents' fleets are secret in space: only their ship counts show.
  assert.match(await page.locator(".sea-tab").first().innerText(), /\d+\/\d+/);

  const used = new Set();
  for (let step = 0; step < 5000 && used.size < 3 && !(await page.locator(".end").count()); step += 1) {
    const mine = await page.locator("#turn-banner.mine").count();
    if (mine) {
      const ready = ["laser", "scanner", "reserve"].filter((k) => !used.has(k));
      let acted = false;
      for (const kind of ready) {
        if (await page.locator(`#special-${kind}:not([disabled])`).count()) {
          await useAbility(page, kind);
          used.add(kind);
          acted = true;
          break;
        }
      }
      if (acted && !(await page.locator("#submit-salvo").count())) continue;
    }
    if (await playSalvo(page)) continue;
    if (!(await fireOnce(page))) await page.waitForTimeout(40);
  }
  assert.deepEqual([...used].sort(), ["laser", "reserve", "scanner"]);
  // The reserve's fighters joined the fleet: the own count went up by three.
  await page.waitForFunction(() => /\b(1[6-8])\b/.test(document.querySelector(".board-card.own .board-note")?.textContent || ""));
  // Then the person resigns and the two bots fight it out.
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#watching");
  await page.waitForSelector("#end-card", { timeout: 120000 });
  const counted = checkFrames(frames, "space3");
  assert.ok(counted.private > 10);
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("a focus salvo: every shot on one opponent, then the bots play on", async () => {
  const { context, page, frames } = await recordedPlayer({ locale: "pt-BR" });
  await openHome(page, server.url, "João");
  await chooseRules(page, "classic");
  await page.click("#play-bot");
  await waitForLobby(page);
  await setSeatCount(page, 3);
  await makeBot(page, 2, "easy");
  await page.check('input[name="salvo"][value="focus"]', { force: true });
  await page.waitForSelector('input[name="salvo"][value="focus"]:checked');
  await start(page);
  await page.waitForSelector(".placement");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  // Before a choice each opponent could take all four shots.
  assert.deepEqual(await page.$$eval(".sea-tab .due", (els) => els.map((e) => e.textContent)), ["0/4", "0/4"]);
  await page.locator(".target-board.armed .cell.m-unknown").nth(3).click();
  // The first shot picks the opponent: the other one owes nothing now.
  assert.deepEqual(await page.$$eval(".sea-tab .due", (els) => els.map((e) => e.textContent)), ["1/4", "0/0"]);
  await page.click(".sea-tab:nth-child(2)");
  await page.locator(".target-board.armed .cell.m-unknown").nth(3).click();
  assert.equal(await page.locator(".target-board .cell.chosen").count(), 0, "no shot on a second opponent");
  await page.click(".sea-tab:nth-child(1)");
  await playSalvo(page);
  await page.waitForSelector("#round-summary");
  const summary = await page.locator("#round-summary").innerText();
  const mine = summary.split("\n").find((line) => line.startsWith("Você"));
  assert.ok(mine && (mine.match(/→/g) || []).length === 1, `one opponent in: ${mine}`);
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#watching");
  await page.waitForSelector("#end-card", { timeout: 120000 });
  checkFrames(frames, "focus");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("a shared sea of four in two teams: the team-mate's block is marked", async () => {
  const { context, page, frames } = await recordedPlayer({ locale: "pt-PT" });
  await openHome(page, server.url, "Inês");
  await chooseRules(page, "shared");
  await page.click("#play-bot");
  await waitForLobby(page);
  await setSeatCount(page, 4);
  await makeBot(page, 2);
  await makeBot(page, 3, "easy");
  await page.check("#opt-teams", { force: true });
  await page.waitForFunction(() => /Equipas:/.test(document.querySelector(".rule-summary").textContent));
  await start(page);
  await page.waitForSelector(".placement");
  // Placement: the own block and the team-mate's block are both marked on the sea.
  assert.equal(await page.locator(".placement-board .cell.blk-own").count(), 100);
  assert.equal(await page.locator(".placement-board .cell.blk-mate").count(), 100);
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  assert.equal(await page.locator(".target-board .cell.blk-mate").count(), 100);
  assert.equal(await page.locator(".block-tag.tag-mate").count(), 1);
  // Only the two opponents' blocks owe shots; the team-mate's block is no target.
  assert.equal(await page.locator(".block-due").count(), 2);
  const mateCell = page.locator(".target-board .cell.blk-mate.m-unknown").first();
  await mateCell.click();
  assert.equal(await page.locator(".target-board .cell.chosen").count(), 0);
  await shoot(page, "pt-PT-shared-sea-teams");
  await playSalvo(page);
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#watching");
  await page.waitForSelector("#end-card", { timeout: 120000 });
  checkFrames(frames, "shared-teams");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});
