// Browser tests of a newcomer's second list (issue 35): the end screen opens
// at its top, the space shop and the space board fit a phone, the rules speak
// of salvo rounds, the shared sea and space, a reload keeps the log, the
// landing page's code is the real length, the heat maps and the log name
// whose waters in words, and the open rooms list follows within a second.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileFixture, newPlayer, openHome, chooseRules, waitForLobby, placeRandomAndReady, playToEnd, fireOnce, playSalvo, repoRoot, shoot } from "./harness.js";

const fixture = fileFixture();
const LANGS = ["en", "pt-PT", "pt-BR", "es", "it"];
const strings = (lang) => JSON.parse(readFileSync(path.join(repoRoot, "web", "i18n", `${lang}.json`), "utf8"));
const PHONE = { width: 390, height: 844, touch: true };

/** A bot game from the home page's "Play vs bot": it opens at placement (space: the shop). */
async function botGame(page, preset, name = "Nina") {
  await openHome(page, fixture.server.url, name);
  await chooseRules(page, preset);
  await page.click("#play-bot");
  await page.waitForSelector(preset === "space" ? ".shop #buy" : ".placement");
}

/** Where an element lies against the viewport. */
async function box(page, selector) {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right), width: r.width, height: innerHeight, scrollY: Math.round(scrollY) };
  });
}

function inView(b) {
  return b.top >= 0 && b.bottom <= b.height;
}

for (const size of [{ width: 1280, height: 800 }, PHONE]) {
  test(`the end screen opens at its top: the title and Rematch in view (${size.width}×${size.height})`, async () => {
    const { context, page } = await newPlayer(fixture.chromium.browser, size);
    await botGame(page, "classic", "Otto");
    await placeRandomAndReady(page);
    await page.waitForSelector(".battle");
    await playToEnd([page]);
    await page.waitForSelector("#end-title");
    // The frames that follow the end (the history's answer with the replay link) redraw it.
    await page.waitForSelector("#end-replay", { timeout: 10000 });
    await page.waitForTimeout(500);
    const title = await box(page, "#end-title");
    const rematch = await box(page, "#rematch");
    assert.ok(inView(title), `the title is in view: ${JSON.stringify(title)}`);
    assert.ok(inView(rematch), `Rematch is in view: ${JSON.stringify(rematch)}`);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "end-title", "the title has the focus");
    // The statistics stay within the card (six columns; on a phone, scrolled sideways in their box if need be).
    const table = await page.$eval("#end-card .stats-scroll", (el) => ({ right: el.getBoundingClientRect().right, card: el.closest(".end-card").getBoundingClientRect().right, page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
    assert.ok(table.right <= table.card + 0.5 && table.page <= table.view, `the statistics fit their card: ${JSON.stringify(table)}`);
    await shoot(page, `en-end-top-${size.width}`);
    assert.deepEqual(page.errors || [], []);
    await context.close();
  });
}

test("the space shop on a phone: no sideways scroll, tags wrap, Buy takes the tap", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser, { locale: "it-IT", ...PHONE });
  await botGame(page, "space", "Pia");
  await page.click("#default-fleet");
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
  assert.ok(widths.page <= widths.view, `the shop fits the phone: ${JSON.stringify(widths)}`);
  const spills = await page.$$eval(".shop-item", (items) =>
    items.filter((item) => item.scrollWidth > item.clientWidth + 1 || item.getBoundingClientRect().right > document.documentElement.clientWidth).map((item) => item.dataset.type),
  );
  assert.deepEqual(spills, [], "every card of the catalogue fits");
  await page.locator("#buy").scrollIntoViewIfNeeded();
  const hit = await page.$eval("#buy", (el) => {
    const r = el.getBoundingClientRect();
    return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest("#buy") === el;
  });
  assert.ok(hit, "the middle of Buy is Buy");
  await shoot(page, "it-phone-shop", { at: "#buy" });
  await page.tap("#buy");
  await page.waitForSelector(".placement");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

for (const width of [1280, 1366]) {
  test(`the space shop's ability tags wrap inside their cards at ${width} px`, async () => {
    const { context, page } = await newPlayer(fixture.chromium.browser, { width, height: 800, locale: "pt-BR" });
    await botGame(page, "space", "Rui");
    const problems = await page.$$eval(".shop-item", (items) =>
      items.flatMap((item) => {
        const card = item.getBoundingClientRect();
        return [...item.querySelectorAll(".tag")].filter((tag) => tag.getBoundingClientRect().right > card.right + 0.5).map((tag) => `${item.dataset.type}: ${tag.textContent}`);
      }),
    );
    assert.deepEqual(problems, [], "no tag reaches past its card");
    assert.ok(await page.locator(".ability-tag").count() >= 4, "the abilities are shown");
    assert.deepEqual(page.errors || [], []);
    await context.close();
  });
}

test("the rules speak of salvo rounds, the shared sea and space, in every language", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Rita");
  await page.click(".home-rules button:last-child");
  await page.waitForSelector(".rules-body");
  for (const lang of LANGS) {
    const words = strings(lang);
    await page.selectOption("select.lang", lang);
    await page.waitForFunction((lang) => document.documentElement.lang === lang, lang);
    await page.waitForSelector(".rules-body");
    const sections = await page.$$eval(".rules-body section", (list) =>
      list.map((s) => ({ title: s.querySelector("h2").textContent, text: s.textContent, marks: [...s.querySelectorAll(".inline-mark")].map((m) => m.dataset.mark) })),
    );
    const titles = sections.map((s) => s.title);
    const [salvo, shared, space] = [6, 7, 8].map((i) => sections[i]);
    assert.equal(salvo.title, words.rules_page[6].title, `${lang}: ${titles}`);
    // What docs/rules.md says: R-6 (2 shots on each opponent), R-9.1 (10×10 blocks), R-7.1–7.3 (20×10, 500 credits, three shots).
    assert.match(salvo.text, /\b2\b/, `${lang}: salvo rounds`);
    assert.match(shared.text, /10×10/, `${lang}: the shared sea`);
    assert.ok(shared.marks.includes("hit_unknown_owner"), `${lang}: the shared sea shows the ? mark`);
    assert.match(space.text, /20×10/, `${lang}: the star field`);
    assert.match(space.text, /500/, `${lang}: the credits`);
    for (const ability of ["laser", "scanner", "nuke", "reserve"]) assert.ok(space.text.includes(words[`special.${ability}`]), `${lang}: the ${ability}`);
    assert.ok(space.marks.includes("scan_ship") && space.marks.includes("scan_empty"), `${lang}: the scanner's marks`);
    assert.ok(!sections.some((s) => /\{\w+\}/.test(s.text)), `${lang}: no placeholder is left`);
  }
  await shoot(page, "it-rules-space", { at: ".rules-body section:nth-of-type(9)" });
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("a reload mid-game keeps the log; without what the page kept, it says where the game is", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser, { locale: "es-ES" });
  await botGame(page, "classic", "Lola");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  for (let step = 0; step < 200 && (await page.locator(".log li").count()) < 6; step += 1) {
    if (!(await fireOnce(page))) await page.waitForTimeout(40);
  }
  // Settle on a moment when it is this page's turn, so no frame is on its way.
  await page.waitForSelector("#turn-banner.mine");
  await page.waitForTimeout(300);
  const before = await page.locator(".log li").allInnerTexts();
  assert.ok(before.length >= 6, `the log has lines: ${before.length}`);
  await page.reload();
  await page.waitForSelector(".battle");
  await page.waitForFunction((n) => document.querySelectorAll(".log li").length >= n, before.length);
  const after = await page.locator(".log li").allInnerTexts();
  assert.deepEqual(after, before, "the same log after the reload");
  assert.ok(!after.includes(strings("es").log_empty));
  // Another device (here: the storage cleared) has no events: the log says so and names the round.
  await page.evaluate(() => localStorage.removeItem("broadside.log"));
  await page.reload();
  await page.waitForSelector(".battle .log li");
  const fresh = await page.locator(".log li").allInnerTexts();
  assert.match(fresh[0], /De vuelta en la partida \(ronda \d+\)/);
  await shoot(page, "es-log-after-reload", { at: ".side" });
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("the landing page speaks of the real code length, in every language", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Cleo");
  await page.click("#play-friend");
  const code = await waitForLobby(page);
  await page.click("#leave");
  await page.waitForSelector("#join-code");
  const placeholder = await page.getAttribute("#join-code", "placeholder");
  assert.equal(placeholder.length, code.length, `the example ${placeholder} is as long as a real code (${code})`);
  for (const lang of LANGS) {
    await page.selectOption("select.lang", lang);
    await page.waitForFunction((lang) => document.documentElement.lang === lang, lang);
    const hint = await page.locator(".actions .card:nth-child(3) p.muted").innerText();
    assert.ok(hint.includes(String(code.length)), `${lang}: ${hint}`);
    assert.doesNotMatch(hint, /six|seis|sei /i, `${lang}: ${hint}`);
  }
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("three players: the log and the heat maps say whose waters in words", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Bob");
  await chooseRules(page, "classic");
  await page.click("#play-bot-setup");
  await waitForLobby(page);
  await page.selectOption("#seat-count", "3");
  await page.waitForFunction(() => document.querySelectorAll(".seats li").length === 3);
  await page.selectOption(".seats li:nth-child(3) select", "easy");
  await page.waitForSelector(".seats li:nth-child(3).seat-bot");
  await page.click("#start");
  await page.waitForSelector(".placement");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  for (let round = 0; round < 3; round += 1) {
    await page.waitForSelector("#submit-salvo");
    await playSalvo(page);
  }
  const log = await page.locator(".log li").allInnerTexts();
  const shots = log.filter((line) => /fired at|hit /.test(line));
  assert.ok(shots.length > 0, JSON.stringify(log));
  for (const line of shots) assert.match(line, /in (your waters|.+'s waters)/, `the line names whose waters: ${line}`);
  assert.ok(!log.some((line) => /\(Bot \(/.test(line)), `no "(Bot (Easy))": ${JSON.stringify(log)}`);
  // The person resigns; the bots play on to the end.
  page.on("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#end-card .heat-maps", { timeout: 60000 });
  const captions = await page.locator(".heat-board small").allInnerTexts();
  assert.ok(captions.includes("Your waters"), `a map of the shots at this person's waters: ${captions}`);
  assert.ok(!captions.some((c) => /You's/.test(c)), `${captions}`);
  await shoot(page, "en-heat-three", { at: ".heat-maps" });
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("space on a phone: cells a finger can hit, the turn's shots in plain words, Play vs bot on the first screen", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser, PHONE);
  await openHome(page, fixture.server.url, "Tess");
  await chooseRules(page, "space");
  const bot = await box(page, "#play-bot");
  assert.ok(bot.bottom <= bot.height, `Play vs bot is on the first screen: ${JSON.stringify(bot)}`);
  await shoot(page, "en-phone-home");
  await page.tap("#play-bot");
  await page.waitForSelector(".shop #buy");
  await page.tap("#default-fleet");
  await page.tap("#buy");
  await page.waitForSelector(".placement");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  const cell = await page.$eval(".target-board .cell", (el) => el.getBoundingClientRect().width);
  assert.ok(cell >= 28, `target cells are ${cell}px`);
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));
  assert.ok(widths.page <= widths.view, `the page does not scroll sideways: ${JSON.stringify(widths)}`);
  // The star field scrolls in its card: its last column can be tapped.
  await page.waitForSelector("#turn-banner.mine", { timeout: 20000 });
  assert.match(await page.locator("#turn-text").innerText(), /shot 1 · a hit fires again, up to 3 shots/);
  await page.$eval(".board-card.target .board-scroll", (el) => (el.scrollLeft = el.scrollWidth));
  // The row is read before the tap: afterwards the first unknown cell of the column is another one.
  const row = await page.locator('.target-board .cell.m-unknown[data-col="19"]').first().getAttribute("data-row");
  const last = `.target-board .cell[data-col="19"][data-row="${row}"]`;
  const before = await page.getAttribute(last, "class");
  await page.tap(last);
  await page.waitForFunction(([sel, cls]) => document.querySelector(".end") || document.querySelector(sel)?.getAttribute("class") !== cls, [last, before]);
  await shoot(page, "en-phone-space-battle");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("the open rooms list follows a seat taken within about a second", async () => {
  const host = await newPlayer(fixture.chromium.browser);
  const guest = await newPlayer(fixture.chromium.browser);
  const watcher = await newPlayer(fixture.chromium.browser);
  await openHome(host.page, fixture.server.url, "Hal");
  await host.page.check("#home-public", { force: true });
  await host.page.waitForSelector("#home-public:checked");
  await host.page.click("#play-friend");
  const code = await waitForLobby(host.page);
  await host.page.selectOption("#seat-count", "3");
  await host.page.waitForFunction(() => document.querySelectorAll(".seats li").length === 3);
  await openHome(watcher.page, fixture.server.url, "Wes");
  const entry = `#open-room-${code}`;
  await watcher.page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("1/3"), entry, { timeout: 10000 });
  await openHome(guest.page, fixture.server.url, "Gil");
  await guest.page.waitForSelector(entry, { timeout: 10000 });
  await guest.page.click(entry);
  await waitForLobby(guest.page);
  const taken = Date.now();
  await watcher.page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("2/3"), entry, { timeout: 5000 });
  const waited = Date.now() - taken;
  assert.ok(waited <= 1800, `the list showed the seat taken after ${waited} ms`);
  for (const player of [host, guest, watcher]) {
    assert.deepEqual(player.page.errors || [], []);
    await player.context.close();
  }
});
