// Browser tests of the polish of issue 15: a drag that survives the server's
// updates, the space shop's confirmation, plural forms, the rules' legend
// drawn from the board's own marks, and the space layout at 1366×900.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileFixture, newPlayer, openHome, chooseRules, waitForLobby, followInvite, startGame, recordSent, recordFrames, placeRandomAndReady, fireOnce, repoRoot, shoot, ownShipKeys } from "./harness.js";

const fixture = fileFixture();

/** Two people in a friend room of `preset`, started by the host; both pages wait at its first screen. */
async function friendGame(preset, { host = {}, guest = {} } = {}) {
  const a = await newPlayer(fixture.chromium.browser, host);
  const b = await newPlayer(fixture.chromium.browser, guest);
  for (const player of [a, b]) {
    player.sent = recordSent(player.page);
    player.frames = recordFrames(player.page);
  }
  await openHome(a.page, fixture.server.url, "Ana");
  await chooseRules(a.page, preset);
  await a.page.click("#play-friend");
  await waitForLobby(a.page);
  const invite = await a.page.inputValue("#invite-link");
  await openHome(b.page, fixture.server.url, "Bea");
  await followInvite(b.page, invite);
  await a.page.waitForSelector(".seats li:nth-child(2).seat-person");
  return { host: a, guest: b };
}

test("a ship held in a drag keeps its preview when the opponent gets ready", async () => {
  const { host, guest } = await friendGame("classic");
  await startGame(host.page);
  await guest.page.waitForSelector(".placement #random");
  const page = host.page;
  // Pick the battleship up from the dock and hold it over C3.
  const ship = await page.locator('.dock-ship[data-ship="0"] .ship-shape').boundingBox();
  await page.mouse.move(ship.x + 5, ship.y + 5);
  await page.mouse.down();
  const cell = await page.locator('.placement-board .cell[data-col="2"][data-row="2"]').boundingBox();
  await page.mouse.move(cell.x + cell.width / 2, cell.y + cell.height / 2, { steps: 8 });
  await page.waitForSelector(".placement-board .cell.pv-ok");
  const before = await page.locator(".placement-board .cell.pv-ok").count();
  assert.equal(before, 4, "the battleship's four cells light up");
  assert.match(await page.locator("#place-hint").innerText(), /Fits here/);
  // The opponent gets ready meanwhile: a room and a state frame redraw the page.
  const states = await page.evaluate(() => document.getElementById("app").dataset.states);
  await guest.page.click("#random");
  await guest.page.waitForSelector("#ready:not([disabled])");
  await guest.page.click("#ready");
  await page.waitForSelector(".ready-list li.is-ready");
  assert.notEqual(await page.evaluate(() => document.getElementById("app").dataset.states), states, "a state frame arrived");
  // Still held: the same cells lit, the hint kept, the grabbing cursor on.
  assert.equal(await page.locator(".placement-board .cell.pv-ok").count(), before, "the preview survives the update");
  assert.match(await page.locator("#place-hint").innerText(), /Fits here/);
  assert.equal(await page.evaluate(() => document.body.classList.contains("dragging")), true);
  await page.mouse.up();
  await page.waitForSelector('.placement-board .cell[data-ship="0"][data-col="2"][data-row="2"]');
  assert.deepEqual(page.errors || [], []);
  await host.context.close();
  await guest.context.close();
});

test("the space shop asks before buying with more than a tenth of the credits unspent", async () => {
  const { host, guest } = await friendGame("space");
  await host.page.click("#start:not([disabled])");
  const page = host.page;
  await page.waitForSelector(".shop #buy");
  const sent = host.sent;
  // One fighter of 500 credits: 490 would be lost.
  await page.click('[data-more="fighter"]');
  await page.click("#buy");
  await page.waitForSelector("#buy-confirm[role=alertdialog]");
  assert.match(await page.locator("#buy-confirm").innerText(), /490 of your 500 credits would stay unspent/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), "buy-back", "the safe answer has the focus");
  // Keep shopping: nothing was sent, the order is still there.
  await page.click("#buy-back");
  assert.equal(await page.locator("#buy-confirm").count(), 0);
  assert.equal(await page.locator(".shop #buy").count(), 1);
  assert.ok(!sent.some((f) => f.command?.cmd === "buy"), "no order went to the server");
  // Escape closes it as well.
  await page.click("#buy");
  await page.waitForSelector("#buy-confirm");
  await page.keyboard.press("Escape");
  assert.equal(await page.locator("#buy-confirm").count(), 0);
  // The default fleet spends nearly everything: Buy goes straight on.
  await page.click("#default-fleet");
  const left = Number((await page.locator("#credits-left strong").innerText()).split("/")[0]);
  assert.ok(left <= 50, `the default fleet leaves at most a tenth (${left})`);
  await page.click("#buy");
  await page.waitForSelector("#shop-done");
  assert.equal(await page.locator("#buy-confirm").count(), 0);
  // "Buy anyway" sends the thin order.
  await guest.page.waitForSelector(".shop #buy");
  await guest.page.click('[data-more="fighter"]');
  await guest.page.click("#buy");
  await guest.page.click("#buy-anyway");
  await guest.page.waitForSelector("#shop-done, .placement", { timeout: 15000 });
  assert.deepEqual(page.errors || [], []);
  await host.context.close();
  await guest.context.close();
});

/** A game against a bot of `preset`, past the lobby (whether or not the page stops there). */
async function botGame(page, preset) {
  await chooseRules(page, preset);
  // An easy bot: a medium one may sink the fleet before the page has seen
  // what the test waits for.
  await page.selectOption("#bot-level", "easy");
  await page.click("#play-bot");
  await page.waitForSelector("#start:not([disabled]), .shop #buy, .placement #random");
  if (await page.locator("#start").count()) await page.click("#start");
}

/** A log line of the page's own language, worded by the client's words.js. */
async function logLine(page, event) {
  return page.evaluate(async (event) => {
    const { eventWords } = await import("/js/words.js");
    const ctx = { me: 0, name: (seat) => `Seat ${seat}`, label: ([c, r]) => `${String.fromCharCode(65 + r)}${c + 1}`, water: () => "", ship: (id) => id, many: false, space: true };
    return eventWords(event, ctx).text;
  }, event);
}

const COUNTS = {
  en: {
    limit: ["1 cell · at most 4", "2 cells · at most 4"],
    buy: ["Buy (1 ship)", "Buy (2 ships)"],
    summary: ["1 ship, 1 cell", "2 ships, 3 cells"],
    left: ["2 ships left to place", "1 ship left to place"],
    volley: ["1 hit (carrier)", "2 hits (carrier)"],
    scan: ["1 ship part found", "2 ship parts found"],
  },
  es: {
    limit: ["1 casilla · máximo 4", "2 casillas · máximo 4"],
    buy: ["Comprar (1 nave)", "Comprar (2 naves)"],
    summary: ["1 nave, 1 casilla", "2 naves, 3 casillas"],
    left: ["Faltan 2 barcos", "Falta 1 barco"],
    volley: ["1 tocado (carrier)", "2 tocados (carrier)"],
    scan: ["1 parte de barco encontrada", "2 partes de barco encontradas"],
  },
};

for (const [lang, locale] of [["en", "en-GB"], ["es", "es-ES"]]) {
  test(`counts of one and of many are worded with plural forms (${lang})`, async () => {
    const words = COUNTS[lang];
    const { context, page } = await newPlayer(fixture.chromium.browser, { locale });
    await openHome(page, fixture.server.url, "Rosa");
    await botGame(page, "space");
    await page.waitForSelector(".shop #buy");
    // The catalogue: a fighter has one cell, a scout two.
    assert.match(await page.locator('.shop-item[data-type="fighter"]').innerText(), new RegExp(words.limit[0]));
    assert.match(await page.locator('.shop-item[data-type="scout"]').innerText(), new RegExp(words.limit[1]));
    await page.click('[data-more="fighter"]');
    assert.equal((await page.locator("#buy").innerText()).replace("🚀", "").trim(), words.buy[0]);
    assert.match(await page.locator("#shop-summary").innerText(), new RegExp(`^${words.summary[0]}\\b`));
    await page.click('[data-more="scout"]');
    assert.equal((await page.locator("#buy").innerText()).replace("🚀", "").trim(), words.buy[1]);
    assert.match(await page.locator("#shop-summary").innerText(), new RegExp(`^${words.summary[1]}\\b`));
    await page.click("#buy");
    await page.click("#buy-anyway");
    // Placement: two ships to place, then one.
    await page.waitForSelector(".placement #ready", { timeout: 15000 });
    assert.equal(await page.locator("#ready").innerText(), words.left[0]);
    await page.focus('.dock-ship[data-ship="0"]');
    await page.keyboard.press("Enter");
    await page.waitForSelector(".placement-board .cell.pv-ok");
    await page.keyboard.press("Enter");
    await page.waitForSelector('.placement-board .cell[data-ship="0"]');
    assert.equal(await page.locator("#ready").innerText(), words.left[1]);
    // The log: a volley of one hit and of two; a scan that found one part and two.
    const volley = (hits) => ({ event: "volley", shooter: 0, board: 1, cells: [[0, 0], [1, 0], [2, 0]], hits, types_hit: ["carrier"], sunk: [] });
    const scan = (found) => ({ event: "scan", seat: 0, cells: [[0, 0], [1, 0], [2, 0]].map((at, i) => ({ at, ship: i < found })) });
    assert.match(await logLine(page, volley(1)), new RegExp(words.volley[0].replace(/[()]/g, "\\$&")));
    assert.match(await logLine(page, volley(2)), new RegExp(words.volley[1].replace(/[()]/g, "\\$&")));
    assert.match(await logLine(page, scan(1)), new RegExp(words.scan[0]));
    assert.match(await logLine(page, scan(2)), new RegExp(words.scan[1]));
    assert.deepEqual(page.errors || [], []);
    await context.close();
  });
}

/**
 * How a cell draws its mark: the glyph's two strokes and the hull behind it
 * (sizes left out: a mark in a sentence is smaller than on the board).
 */
function markLook(cell) {
  // A cell the page replaced between finding and reading it has no computed style.
  if (!cell.isConnected) return null;
  const pick = (style) => ({
    content: style.content, border: `${style.borderTopStyle} ${style.borderTopColor}`, radius: style.borderRadius,
    background: style.backgroundColor, transform: style.transform, color: style.color, opacity: style.opacity,
  });
  const glyph = cell.querySelector(".glyph");
  const hull = getComputedStyle(cell, "::before");
  return {
    before: pick(getComputedStyle(glyph, "::before")),
    after: pick(getComputedStyle(glyph, "::after")),
    hull: hull.content === "none" ? null : hull.backgroundImage,
  };
}

/** A mark's look, read again if the page replaced the element while it was being read. */
async function lookOf(locator) {
  for (let tries = 0; tries < 20; tries += 1) {
    const look = await locator.evaluate(markLook);
    if (look) return look;
  }
  throw new Error("the mark kept being replaced while it was read");
}

test("the rules show the marks the board draws, in every language", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Iris");
  await botGame(page, "classic");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  // Play until the target board has shown a miss, an open hit, a sunk ship and
  // revealed water (the classic water ring), noting how the board drew each.
  const board = {};
  for (let step = 0; step < 400 && Object.keys(board).length < 4; step += 1) {
    if (await page.locator(".end").count()) break;
    if (!(await fireOnce(page))) await page.waitForTimeout(40);
    for (const key of ["miss", "hit", "sunk", "water"]) {
      if (board[key]) continue;
      const cell = page.locator(`.target-board .cell.m-${key}`).first();
      const look = (await cell.count()) ? await cell.evaluate(markLook) : null;
      if (look) board[key] = look;
    }
  }
  assert.deepEqual(Object.keys(board).sort(), ["hit", "miss", "sunk", "water"], "the board showed every mark");
  await page.click("#rules-button");
  await page.waitForSelector(".rules-body");
  await shoot(page, "en-rules-marks", { at: ".rules-body p .inline-mark" });
  for (const [key, look] of Object.entries(board)) {
    const inText = await lookOf(page.locator(`.rules-body p .inline-mark[data-mark="${key}"]`).first());
    assert.deepEqual(inText, look, `the rules' ${key} is the board's`);
    const inLegend = await lookOf(page.locator(`.legend .legend-cell[data-mark="${key}"]`));
    assert.deepEqual(inLegend, look, `the legend's ${key} is the board's`);
  }
  // Every language's text shows the marks where it speaks of them, named in that language.
  for (const lang of ["en", "pt-PT", "pt-BR", "es", "it"]) {
    const strings = JSON.parse(readFileSync(path.join(repoRoot, "web", "i18n", `${lang}.json`), "utf8"));
    await page.selectOption("select.lang", lang);
    await page.waitForFunction((lang) => document.documentElement.lang === lang, lang);
    await page.waitForSelector(".rules-body");
    const shown = await page.$$eval(".rules-body section", (sections) =>
      sections.map((s) => ({ text: s.textContent, marks: [...s.querySelectorAll(".inline-mark")].map((m) => [m.dataset.mark, m.getAttribute("aria-label")]) })),
    );
    const shooting = Object.fromEntries(shown[2].marks);
    for (const key of ["miss", "hit", "sunk", "water"]) assert.equal(shooting[key], strings[`mark.${key}`], `${lang}: the shooting rules show the ${key} mark`);
    assert.equal(Object.fromEntries(shown[5].marks).volley_unknown, strings["mark.volley_unknown"], `${lang}: the brasil rules show the + mark`);
    assert.ok(!shown.some((s) => /\{\w+\}/.test(s.text)), `${lang}: no placeholder is left in the text`);
  }
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

/** Whether a page's box lies inside its viewport (the page scrolled to its top). */
async function inViewport(page, selector) {
  return page.evaluate((selector) => {
    window.scrollTo(0, 0);
    const box = document.querySelector(selector).getBoundingClientRect();
    return { top: box.top, bottom: box.bottom, left: box.left, right: box.right, fits: box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth };
  }, selector);
}

/** How many cells of the target board are outlined (a ring of a few pixels, or a focus outline). */
async function outlinedCells(page) {
  return page.$$eval(".target-board .cell", (cells) =>
    cells.filter((el) => {
      const style = getComputedStyle(el);
      const rings = style.boxShadow.split(/,(?![^(]*\))/).map((s) => s.match(/(-?[\d.]+)px (-?[\d.]+)px (-?[\d.]+)px (-?[\d.]+)px inset/)).filter(Boolean);
      const ring = rings.some((m) => Number(m[4]) >= 2 && Number(m[4]) <= 8);
      return ring || (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0);
    }).map((el) => el.dataset.label),
  );
}

/**
 * The lowest contrast between the ship icons of the Fleets tab and what lies
 * behind them (WCAG ratio of relative luminances). An icon is drawn by its
 * hull's ::before: its fill or its ring, whichever stands out more, faded by
 * any opacity on the way up.
 */
async function fleetIconContrast(page) {
  return page.$$eval(".fleet-list .part", (parts) => {
    const rgb = (text) => (text.match(/rgba?\([^)]*\)/) || ["rgba(0,0,0,0)"])[0].match(/[\d.]+/g).map(Number);
    const colours = (text) => (text.match(/rgba?\([^)]*\)/g) || []).map(rgb).filter((c) => (c[3] ?? 1) > 0);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
    let lowest = Infinity;
    for (const part of parts) {
      let back = null;
      let opacity = 1;
      for (let el = part; el; el = el.parentElement) {
        const style = getComputedStyle(el);
        opacity *= Number(style.opacity);
        const color = rgb(style.backgroundColor);
        if (!back && (color[3] ?? 1) > 0) back = color;
      }
      const before = getComputedStyle(part, "::before");
      const inks = colours(`${before.backgroundImage} ${before.backgroundColor} ${before.boxShadow}`);
      const seen = (ink) => ink.slice(0, 3).map((v, i) => v * opacity + back[i] * (1 - opacity));
      lowest = Math.min(lowest, Math.max(...inks.map((ink) => ratio(seen(ink), back))));
    }
    return lowest;
  });
}

test("space at 1366×900: boards in view, one outline for the laser, one log line per nuke, a readable end", async () => {
  const size = { width: 1366, height: 900 };
  const { host, guest } = await friendGame("space", { host: size, guest: { ...size, locale: "pt-PT" } });
  await host.page.click("#start:not([disabled])");
  for (const player of [host, guest]) {
    await player.page.waitForSelector(".shop #default-fleet");
    await player.page.click("#default-fleet");
    await player.page.click("#buy");
  }
  for (const player of [host, guest]) await placeRandomAndReady(player.page);
  const page = host.page;
  await page.waitForSelector(".battle");
  await shoot(page, "en-space-battle-1366");
  for (const player of [host, guest]) {
    const own = await inViewport(player.page, ".board-card.own");
    assert.ok(own.fits, `the own board is in view during battle: ${JSON.stringify(own)}`);
    const target = await inViewport(player.page, ".board-card.target");
    assert.ok(target.fits, `the target board is in view during battle: ${JSON.stringify(target)}`);
  }
  // Both shoot around each other's ships until the host's laser, then its nuke, are ready.
  let laserChecked = false;
  let nukeLine = null;
  for (let step = 0; step < 400 && !nukeLine; step += 1) {
    if (await fireOnce(guest.page, { avoid: await ownShipKeys(page) })) continue;
    if (!(await page.locator("#turn-banner.mine").count())) {
      await page.waitForTimeout(40);
      continue;
    }
    if (!laserChecked && (await page.locator("#special-laser:not([disabled])").count())) {
      // Aiming the laser from the top at a cell in the middle: the column is lit, and only its entry is outlined.
      await page.click("#special-laser");
      const cell = page.locator('.target-board .cell.m-unknown[data-row="5"]').first();
      await cell.hover();
      await page.waitForFunction(() => document.querySelectorAll(".target-board .cell.area").length === 10);
      await shoot(page, "en-space-laser-aim-1366");
      const outlined = await outlinedCells(page);
      assert.deepEqual(outlined, [`A${await cell.getAttribute("data-col").then((c) => Number(c) + 1)}`], "only the laser's entry cell is outlined");
      await page.click("#special-laser");
      laserChecked = true;
    }
    if (laserChecked && (await page.locator("#special-nuke:not([disabled])").count())) {
      // The nuke on a cell of the guest's fleet, so that it explodes.
      const ships = new Set((await ownShipKeys(guest.page)).map((k) => k.split(":")[1]));
      const target = await page.$$eval(".target-board .cell.m-unknown", (els) => els.map((el) => [Number(el.dataset.col), Number(el.dataset.row)]));
      const [c, r] = target.find(([c, r]) => ships.has(`${c},${r}`));
      const before = await page.locator(".log li").allInnerTexts();
      const states = await page.evaluate(() => document.getElementById("app").dataset.states);
      await page.click("#special-nuke");
      await page.hover(`.target-board .cell[data-col="${c}"][data-row="${r}"]`);
      await page.click(`.target-board .cell[data-col="${c}"][data-row="${r}"]`);
      await page.waitForFunction((states) => document.getElementById("app").dataset.states !== states, states);
      const after = await page.locator(".log li").allInnerTexts();
      const fresh = after.slice(0, after.length - before.length);
      const nuke = fresh.filter((line) => /Nuke/.test(line));
      assert.equal(nuke.length, 1, `one line for the nuke: ${JSON.stringify(fresh)}`);
      assert.ok(!fresh.some((line) => /^You fired at/.test(line)), `no line per cell: ${JSON.stringify(fresh)}`);
      assert.ok((nuke[0].match(/\b[A-J]\d{1,2}\b/g) || []).length > 1, `the line lists the cells: ${nuke[0]}`);
      nukeLine = nuke[0];
      continue;
    }
    await fireOnce(page, { avoid: [] });
  }
  assert.ok(nukeLine, "the nuke was fired");
  // The end (a resignation, to be quick): boards of a sensible size, readable fleets.
  guest.page.on("dialog", (dialog) => dialog.accept());
  await guest.page.click("#resign");
  await page.waitForSelector("#end-card");
  const cells = await page.$$eval(".boards.reveal .board", (boards) => boards.map((b) => b.querySelector(".cell").getBoundingClientRect().width));
  assert.equal(cells.length, 2);
  for (const width of cells) assert.ok(width >= 26, `end-screen boards are a sensible size (cells of ${width}px)`);
  await page.click("#tab-fleet");
  await shoot(page, "en-space-end-fleets-1366", { at: ".side" });
  const contrast = await fleetIconContrast(page);
  assert.ok(contrast >= 3, `the Fleets tab's ship icons stand out (contrast ${contrast.toFixed(2)})`);
  assert.deepEqual(page.errors || [], []);
  await host.context.close();
  await guest.context.close();
});
