// End-to-end tests of games of three or more and the shared sea (issue 6),
// against a real `broadside serve` in headless Chromium (the space battle is
// in space.test.js).
// Every page records the WebSocket frames it receives, and each game ends
// with a check that no frame told a seat what it may not know.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  fileFixture,
  newPlayer,
  openHome,
  chooseRules,
  waitForLobby,
  followInvite,
  placeRandomAndReady,
  shoot,
  recordFrames,
  recordSent,
  checkFrames,
  playSalvo,
  playMultiToEnd,
} from "./harness.js";

const fixture = fileFixture();

/** A player whose received frames are recorded from the first one. */
async function recordedPlayer(options) {
  const player = await newPlayer(fixture.chromium.browser, options);
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
  await openHome(host.page, fixture.server.url, "Ana");
  await chooseRules(host.page, "classic");
  await host.page.click("#play-friend");
  await waitForLobby(host.page);
  await setSeatCount(host.page, 4);
  await makeBot(host.page, 2);
  await makeBot(host.page, 3, "easy");
  const invite = await host.page.inputValue("#invite-link");
  await followInvite(guest.page, invite, "Bea");
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
  await openHome(host.page, fixture.server.url, "Ana");
  await chooseRules(host.page, "classic");
  await host.page.click("#play-bot-setup");
  await waitForLobby(host.page);
  await setSeatCount(host.page, 4);
  await makeBot(host.page, 2);
  await makeBot(host.page, 3);
  await host.page.check("#opt-teams", { force: true });
  await host.page.waitForFunction(() => /Teams:/.test(document.querySelector(".rule-summary").textContent));
  // An outside spectator watches too: it may see only what was announced.
  const code = await waitForLobby(host.page);
  const spectator = await recordedPlayer();
  await spectator.page.goto(`${fixture.server.url}/r/${code}?watch`);
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
  await openHome(page, fixture.server.url, "Ana");
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

test("a focus salvo: every shot on one opponent, then the bots play on", async () => {
  const { context, page, frames } = await recordedPlayer({ locale: "pt-BR" });
  await openHome(page, fixture.server.url, "João");
  await chooseRules(page, "classic");
  await page.click("#play-bot-setup");
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
  await openHome(page, fixture.server.url, "Inês");
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

test("a round timer: the person does not submit, the shots fall at random and the round is shown", async () => {
  const { context, page, frames } = await recordedPlayer();
  const sent = recordSent(page);
  await openHome(page, fixture.server.url, "Ana");
  await chooseRules(page, "classic");
  await page.click("#play-bot-setup");
  await waitForLobby(page);
  await setSeatCount(page, 3);
  await makeBot(page, 2, "easy");
  // Three seconds per salvo round.
  await page.fill("#opt-round", "3");
  await page.locator("#opt-round").press("Tab");
  await page.waitForFunction(() => /\b3 seconds per salvo round/.test(document.querySelector(".rule-summary").textContent));
  await start(page);
  await page.waitForSelector(".placement");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  const me = await page.evaluate(() => Number(document.querySelector(".board-card.own .board").dataset.board));
  // The countdown of the round is on the banner.
  assert.match(await page.locator("#turn-banner [data-clock]").innerText(), /^0:0[0-3]$/);
  // One shot chosen, never submitted: choices stay in the browser until sent.
  await page.locator(".target-board.armed .cell.m-unknown").nth(5).click();
  assert.equal(await page.locator(".target-board .cell.chosen").count(), 1);
  const before = frames.length;
  await page.waitForSelector("#round-timed-out", { timeout: 10000 });
  // The round's result is shown: the person's line says where the random shots fell.
  const summary = await page.locator("#round-summary").innerText();
  const mine = summary.split("\n").find((line) => line.startsWith("You"));
  assert.ok(mine && (mine.match(/→/g) || []).length === 2, `shots on both opponents in: ${mine}`);
  // The server drew them: no salvo left this page, and exactly two shots fell on
  // each opponent, on distinct cells.
  assert.ok(!sent.some((f) => f.type === "command" && f.command?.cmd === "salvo"), "the person sent no salvo");
  const resolved = frames.slice(before).map((f) => JSON.parse(f)).find((f) => f.type === "state" && (f.events || []).some((e) => e.event === "shot"));
  assert.ok(resolved.events.some((e) => e.event === "salvo_submitted" && e.seat === me), "the clock submitted for the person");
  const shots = resolved.events.filter((e) => e.event === "shot" && e.shooter === me);
  const perBoard = new Map();
  for (const e of shots) perBoard.set(e.board, [...(perBoard.get(e.board) || []), `${e.at}`]);
  assert.deepEqual([...perBoard.keys()].sort(), [0, 1, 2].filter((s) => s !== me).sort());
  for (const [board, cells] of perBoard) assert.equal(new Set(cells).size, 2, `two distinct shots on seat ${board}`);
  // A new round begins with nothing chosen.
  assert.equal(await page.locator(".target-board .cell.chosen").count(), 0);
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#watching");
  checkFrames(frames, "round-timer");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});
