// End-to-end tests of the web client against a real `broadside serve`, in a
// real headless Chromium (UI.md, issue 4 acceptance 1 and 3).

import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { rmSync } from "node:fs";
import {
  fileFixture,
  newPlayer,
  openHome,
  chooseRules,
  waitForLobby,
  followInvite,
  startGame,
  placeRandomAndReady,
  boardMarks,
  fireOnce,
  playToEnd,
  shoot,
  ServerProcess,
  freePort,
  tempDir,
} from "./harness.js";

const fixture = fileFixture();

/** "Play vs bot" starts the game at once: the next screen is placement. */
async function createBotGame(page, preset = "classic") {
  await chooseRules(page, preset);
  await page.click("#play-bot");
  await page.waitForSelector(".placement");
}

/** Drags a docked ship onto a board cell, pressing R on the way to turn it. */
async function dragShip(page, dockIndex, col, row, { rotate = false, hold = false } = {}) {
  const ship = page.locator(`.dock-ship[data-ship="${dockIndex}"] .ship-shape .part`).first();
  const from = await ship.boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  const cell = page.locator(`.placement-board .cell[data-col="${col}"][data-row="${row}"]`);
  const to = await cell.boundingBox();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
  if (rotate) {
    await page.keyboard.press("r");
    await page.mouse.move(to.x + to.width / 2 + 1, to.y + to.height / 2 + 1, { steps: 2 });
  }
  // The preview must light up (asked of the server) before the drop.
  await page.waitForSelector(".placement-board .cell.pv-ok, .placement-board .cell.pv-bad");
  const verdict = (await page.locator(".placement-board .cell.pv-ok").count()) > 0;
  if (!hold) await page.mouse.up();
  return verdict;
}

async function placedCells(page, index) {
  return page.$$eval(`.placement-board .cell[data-ship="${index}"]`, (cells) => cells.map((c) => [Number(c.dataset.col), Number(c.dataset.row)]));
}

test("a person plays a bot to the end, placing by drag, rotate and Random", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Ana");
  await createBotGame(page, "classic");

  // Drag the battleship (4 cells, the first of the fleet) to A1, turned by R while dragging.
  assert.equal(await dragShip(page, 0, 0, 0, { rotate: true }), true);
  await page.waitForSelector('.placement-board .cell[data-ship="0"]');
  let cells = await placedCells(page, 0);
  assert.deepEqual(cells.sort(), [[0, 0], [0, 1], [0, 2], [0, 3]], "R while dragging turns the ship upright");

  // Right-click turns a placed ship back.
  await page.click('.placement-board .cell[data-ship="0"][data-col="0"][data-row="0"]', { button: "right" });
  await page.waitForFunction(() => document.querySelector('.placement-board .cell[data-ship="0"][data-col="1"][data-row="0"]'));
  cells = await placedCells(page, 0);
  assert.deepEqual(cells.sort(), [[0, 0], [1, 0], [2, 0], [3, 0]]);

  // A cruiser dragged next to the battleship is shown illegal and refused on drop.
  assert.equal(await dragShip(page, 1, 0, 1), false, "touching ships light up red");
  assert.match(await page.locator("#place-hint").innerText(), /touch/i);
  assert.equal(await page.locator('.placement-board .cell[data-ship="1"]').count(), 0);

  // The same cruiser two rows lower fits; then the ↻ Rotate button turns it.
  assert.equal(await dragShip(page, 1, 0, 2), true);
  await page.waitForSelector('.placement-board .cell[data-ship="1"]');
  await page.click("#rotate");
  await page.waitForFunction(() => document.querySelector('.placement-board .cell[data-ship="1"][data-col="0"][data-row="4"]'));

  // A placed ship can be picked up again and dropped elsewhere.
  const part = await page.locator('.placement-board .cell[data-ship="1"][data-row="2"]').boundingBox();
  await page.mouse.move(part.x + part.width / 2, part.y + part.height / 2);
  await page.mouse.down();
  const target = await page.locator('.placement-board .cell[data-col="9"][data-row="5"]').boundingBox();
  await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 8 });
  await page.waitForSelector(".placement-board .cell.pv-ok");
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('.placement-board .cell[data-ship="1"][data-col="9"][data-row="5"]'));

  // Ready stays off until the fleet is complete; Random completes it around the placed ships.
  assert.equal(await page.locator("#ready").isDisabled(), true);
  await page.click("#random");
  await page.waitForSelector("#ready:not([disabled])");
  cells = await placedCells(page, 0);
  assert.deepEqual(cells.sort(), [[0, 0], [1, 0], [2, 0], [3, 0]], "Random keeps the ships already placed");
  await page.click("#ready");

  await page.waitForSelector(".battle #turn-banner");
  await playToEnd([page]);
  await page.waitForSelector("#end-card");
  const title = await page.locator("#end-title").innerText();
  assert.ok(title.length > 0);
  // The end reveals both fleets in full: no unknown ship parts remain hidden.
  const shots = await page.locator(".stats tbody tr").count();
  assert.equal(shots, 2);
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("keyboard only: place with arrows, R and Enter; aim with arrows and fire with Enter", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Teclas");
  await createBotGame(page, "classic");

  // Enter on a docked ship picks it up; arrows move it, R turns it, Enter drops it.
  await page.focus('.dock-ship[data-ship="0"]');
  await page.keyboard.press("Enter");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("r");
  await page.waitForSelector(".placement-board .cell.pv-ok");
  await page.keyboard.press("Enter");
  await page.waitForSelector('.placement-board .cell[data-ship="0"][data-col="2"][data-row="4"]');
  assert.deepEqual((await placedCells(page, 0)).sort(), [[2, 1], [2, 2], [2, 3], [2, 4]]);
  // A placed ship has an accessible name with its cell and type.
  assert.equal(await page.getAttribute('.placement-board .cell[data-col="2"][data-row="1"]', "aria-label"), "B3, Battleship");
  await placeRandomAndReady(page);

  await page.waitForSelector(".battle #turn-banner.mine");
  await page.focus('.target-board .cell[tabindex="0"]');
  const start = await page.evaluate(() => [Number(document.activeElement.dataset.col), Number(document.activeElement.dataset.row)]);
  assert.deepEqual(start, [0, 0]);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "B2, unknown");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => !document.querySelector('.target-board .cell[data-col="1"][data-row="1"]').getAttribute("aria-label").endsWith("unknown"));
  const label = await page.getAttribute('.target-board .cell[data-col="1"][data-row="1"]', "aria-label");
  assert.match(label, /^B2, (water|hit|sunk)/);
  // The live region told the result in words.
  await page.waitForFunction(() => /B2/.test(document.getElementById("live").textContent) || document.getElementById("live").textContent.length > 0);
  // The cursor stays where it was, so the next shot is one key away.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.label), "B2");
  await context.close();
});

test("on a phone: long-press turns a ship, and the boards stack", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser, { locale: "pt-BR", width: 390, height: 844, touch: true });
  await openHome(page, fixture.server.url, "Zé");
  await createBotGame(page, "classic");
  // Put the battleship at A1 (keyboard), then press and hold it with a finger.
  await page.focus('.dock-ship[data-ship="0"]');
  await page.keyboard.press("Enter");
  await page.waitForSelector(".placement-board .cell.pv-ok");
  await page.keyboard.press("Enter");
  await page.waitForSelector('.placement-board .cell[data-ship="0"][data-col="3"][data-row="0"]');
  await page.evaluate(() => {
    const cell = document.querySelector('.placement-board .cell[data-col="0"][data-row="0"]');
    const box = cell.getBoundingClientRect();
    const init = { bubbles: true, pointerId: 7, pointerType: "touch", button: 0, isPrimary: true, clientX: box.x + 5, clientY: box.y + 5 };
    cell.dispatchEvent(new PointerEvent("pointerdown", init));
  });
  await page.waitForSelector('.placement-board .cell[data-ship="0"][data-col="0"][data-row="3"]');
  assert.deepEqual((await placedCells(page, 0)).sort(), [[0, 0], [0, 1], [0, 2], [0, 3]], "a long-press turns the ship");
  await page.evaluate(() => window.dispatchEvent(new PointerEvent("pointerup", { pointerId: 7, pointerType: "touch" })));
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  await page.waitForTimeout(500);
  // Stacked: the own board lies below the target board, and nothing overflows sideways.
  const target = await page.locator(".board-card.target").boundingBox();
  const own = await page.locator(".board-card.own").boundingBox();
  assert.ok(own.y >= target.y + target.height, "the boards are stacked");
  assert.ok(target.x + target.width <= 390 + 1, "the target board fits the screen");
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  await shoot(page, "pt-BR-phone-battle");
  await context.close();
});

test("two browsers play each other through the invite link", async () => {
  const host = await newPlayer(fixture.chromium.browser);
  const guest = await newPlayer(fixture.chromium.browser, { locale: "pt-PT" });
  await openHome(host.page, fixture.server.url, "Ana");
  await chooseRules(host.page, "hasbro");
  await host.page.click("#play-friend");
  const code = await waitForLobby(host.page);
  const invite = await host.page.inputValue("#invite-link");
  assert.ok(invite.endsWith(`/r/${code}`));
  assert.equal(await host.page.locator("#start").isDisabled(), true, "an open seat keeps the start off");

  await followInvite(guest.page, invite, "Rui");
  // The guest's page speaks its browser's language.
  assert.equal(await guest.page.getAttribute("html", "lang"), "pt-PT");
  await host.page.waitForSelector(".seat-person:nth-child(2)");
  await startGame(host.page);
  await guest.page.waitForSelector(".placement");

  await placeRandomAndReady(host.page);
  await placeRandomAndReady(guest.page);
  await host.page.waitForSelector(".battle");
  await guest.page.waitForSelector(".battle");

  // Chat reaches the other side.
  await guest.page.click("#tab-chat");
  await guest.page.fill("#chat-input", "Boa sorte!");
  await guest.page.press("#chat-input", "Enter");
  await host.page.click("#tab-chat");
  await host.page.waitForSelector(".chat-list li:has-text('Boa sorte!')");
  await host.page.click("#tab-log");

  await playToEnd([host.page, guest.page]);
  await host.page.waitForSelector("#end-card");
  await guest.page.waitForSelector("#end-card");
  const hostWon = (await host.page.locator(".end-card.won").count()) === 1;
  const guestWon = (await guest.page.locator(".end-card.won").count()) === 1;
  assert.notEqual(hostWon, guestWon, "exactly one of the two wins");

  // A rematch is an offer: the host waits, the guest's end screen stays and asks.
  await host.page.click("#rematch");
  await host.page.waitForSelector("#rematch-waiting");
  assert.match(await host.page.locator("#rematch-waiting").innerText(), /Rematch offered — waiting for/);
  await guest.page.waitForSelector("#rematch-from");
  assert.match(await guest.page.locator("#rematch-from").innerText(), /Ana propõe uma desforra/);
  await guest.page.waitForTimeout(500);
  assert.equal(await guest.page.locator("#end-card").count(), 1, "the guest's end screen stays until they answer");
  assert.equal(await host.page.locator(".placement").count() + (await guest.page.locator(".placement").count()), 0, "no new game yet");
  // Declined: the host is told, and the offer is gone on both sides.
  await guest.page.click("#rematch-decline");
  await host.page.waitForSelector("#rematch-note");
  assert.match(await host.page.locator("#rematch-note").innerText(), /declined the rematch/);
  await host.page.waitForSelector("#rematch:not([disabled])");
  await guest.page.waitForSelector("#rematch");
  assert.equal(await guest.page.locator("#rematch-offer").count(), 0);
  // Offered again and accepted: a fresh game in the same room, placement for both.
  await host.page.click("#rematch");
  await guest.page.click("#rematch-accept");
  await host.page.waitForSelector(".placement #random");
  await guest.page.waitForSelector(".placement #random");
  await host.context.close();
  await guest.context.close();
});

test("a page reload mid-game resumes the same game", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Rui");
  await createBotGame(page, "italia");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  for (let shots = 0; shots < 4; ) {
    if (await fireOnce(page)) shots += 1;
    else await page.waitForTimeout(50);
  }
  await page.waitForSelector("#turn-banner.mine");
  const url = page.url();
  const own = await boardMarks(page, ".board-card.own");
  const target = await boardMarks(page, ".target-board");
  await page.reload();
  await page.waitForSelector(".battle #turn-banner.mine");
  assert.equal(page.url(), url);
  assert.equal(await boardMarks(page, ".board-card.own"), own);
  assert.equal(await boardMarks(page, ".target-board"), target);
  // My games lists the unfinished game on the home page.
  await page.click(".brand");
  await page.waitForSelector(".games li");
  assert.ok((await page.locator(".games li").count()) >= 1);
  await page.click(".games li .button");
  await page.waitForSelector(".battle");
  assert.equal(await boardMarks(page, ".target-board"), target);
  assert.ok(await fireOnce(page));
  await context.close();
});

test("a server restart mid-game resumes with nothing lost", async () => {
  const dir = tempDir();
  const own = new ServerProcess({ port: await freePort(), db: path.join(dir, "restart.sqlite") });
  await own.start();
  const { context, page } = await newPlayer(fixture.chromium.browser);
  try {
    await openHome(page, own.url, "Bea");
    await createBotGame(page, "classic");
    await placeRandomAndReady(page);
    await page.waitForSelector(".battle");
    for (let shots = 0; shots < 6; ) {
      if (await fireOnce(page)) shots += 1;
      else await page.waitForTimeout(50);
    }
    await page.waitForSelector("#turn-banner.mine");
    const mine = await boardMarks(page, ".board-card.own");
    const theirs = await boardMarks(page, ".target-board");

    await own.stop();
    await page.waitForSelector(".net-offline");
    await own.start();
    // The page reconnects by itself, says hello with its token and rejoins.
    await page.waitForSelector(".net-online", { timeout: 20000 });
    await page.waitForSelector(".battle #turn-banner.mine");
    assert.equal(await boardMarks(page, ".board-card.own"), mine);
    assert.equal(await boardMarks(page, ".target-board"), theirs);
    await playToEnd([page]);
    await page.waitForSelector("#end-card");
  } finally {
    await context.close();
    await own.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The same three screens in every language, for docs/screenshots/ (acceptance 3).
// Where a hit lets the shooter fire again (classic, hasbro) the bot is
// easy: a medium bot sinks a hasbro fleet within the person's first fourteen
// shots about once in a hundred games, and the battle picture would never come.
const SCREENS = [
  { lang: "en", locale: "en-GB", preset: "classic", scheme: "light", level: "easy" },
  { lang: "pt-PT", locale: "pt-PT", preset: "brasil", scheme: "light" },
  { lang: "pt-BR", locale: "pt-BR", preset: "brasil", scheme: "light", hard: true },
  { lang: "es", locale: "es-ES", preset: "hasbro", scheme: "dark", level: "easy" },
  { lang: "it", locale: "it-IT", preset: "italia", scheme: "light", special: "wide", level: "easy" },
];

for (const screen of SCREENS) {
  test(`screenshots of placement, battle and the end in ${screen.lang}`, async () => {
    const { context, page } = await newPlayer(fixture.chromium.browser, { locale: screen.locale, colorScheme: screen.scheme });
    await openHome(page, fixture.server.url, { en: "Ana", "pt-PT": "Inês", "pt-BR": "João", es: "Lucía", it: "Giulia" }[screen.lang]);
    assert.equal(await page.getAttribute("html", "lang"), screen.lang);
    if (screen.lang === "en") await shoot(page, "en-home");
    await chooseRules(page, screen.preset);
    if (screen.level) await page.selectOption("#bot-level", screen.level);
    // The lobby of a bot game is a choice ("Choose the options first"): for
    // the hard rule, and for its picture.
    const lobby = screen.hard || screen.lang === "en";
    await page.click(lobby ? "#play-bot-setup" : "#play-bot");
    if (lobby) await waitForLobby(page);
    if (screen.hard) {
      // The host switches brasil to the hard rule with the lobby's controls.
      await page.check('input[name="report"][value="per_volley"]');
      await page.waitForSelector('input[name="report"][value="per_volley"]:checked');
      await page.waitForFunction(() => document.querySelectorAll(".rule-summary li")[2]?.textContent.includes("3"));
    }
    if (screen.lang === "en") await shoot(page, "en-lobby");
    if (lobby) await startGame(page);
    else await page.waitForSelector(".placement");

    // Placement: part of the fleet placed by hand, a ship being dragged.
    await page.click("#random");
    await page.waitForSelector("#ready:not([disabled])");
    await page.click("#clear");
    await dragShip(page, 0, 1, 1);
    await page.waitForSelector('.placement-board .cell[data-ship="0"]');
    await dragShip(page, 1, 1, 4, { rotate: true });
    await page.waitForSelector('.placement-board .cell[data-ship="1"]');
    await page.evaluate(() => window.scrollTo(0, 0));
    // The picture shows a ship in flight with its preview lit.
    await dragShip(page, 2, 5, 5, { hold: true });
    await shoot(page, `${screen.lang}-placement`);
    await page.mouse.up();
    await page.click("#random");
    await page.waitForSelector("#ready:not([disabled])");
    await page.click("#ready");

    await page.waitForSelector(".battle");
    for (let shots = 0; shots < 14; ) {
      if (await page.locator(".end").count()) break;
      if (await fireOnce(page)) shots += 1;
      else await page.waitForTimeout(40);
    }
    assert.equal(await page.locator(".end").count(), 0, "the game ended before the battle picture");
    await page.waitForSelector("#turn-banner.mine");
    if (screen.special) {
      // An italia special: choose it, see its area previewed, then fire it.
      await page.click(`#special-${screen.special}`);
      await page.hover(".target-board .cell[data-col='6'][data-row='7']");
      await page.waitForSelector(".target-board .cell.area");
      assert.equal(await page.locator(".target-board .cell.area").count(), 9);
      await shoot(page, `${screen.lang}-battle`);
      await page.click(".target-board .cell[data-col='6'][data-row='7']");
      await page.waitForFunction(() => document.querySelector("#special-wide small")?.textContent.match(/0|esaurit/));
    } else if (screen.hard) {
      // A volley being chosen: two cells marked, the third under the pointer.
      const cells = await page.$$eval(".target-board.armed .cell.m-unknown", (els) => els.slice(20, 22).map((el) => [el.dataset.col, el.dataset.row]));
      for (const [c, r] of cells) await page.click(`.target-board .cell[data-col="${c}"][data-row="${r}"]`);
      await page.hover(".target-board .cell.m-unknown >> nth=30");
      await shoot(page, `${screen.lang}-battle`);
      for (const [c, r] of cells) await page.click(`.target-board .cell[data-col="${c}"][data-row="${r}"]`);
    } else {
      await page.hover(".target-board .cell.m-unknown >> nth=5");
      await shoot(page, `${screen.lang}-battle`);
    }

    await playToEnd([page]);
    await page.waitForSelector("#end-card");
    await shoot(page, `${screen.lang}-end`);
    assert.deepEqual(page.errors || [], []);
    await context.close();
  });
}
