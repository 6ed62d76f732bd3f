// The web client on a phone (390×844, touch): nothing spills off the screen
// sideways, the salvo's opponent tabs and the language selector are whole, and
// the shared sea scrolls inside its own box. Each screen is measured: every
// element's box against the viewport (UI.md "Crisp at any size").

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileFixture, newPlayer, openHome, chooseRules, waitForLobby, placeRandomAndReady, shoot } from "./harness.js";

const fixture = fileFixture();
const PHONE = { width: 390, height: 844, touch: true };

/**
 * What does not fit the screen: elements reaching past its left or right edge
 * (the content of a `.board-scroll` box scrolls inside it and only the box
 * counts), and tabs, dues or the language selector that cut their own content.
 */
async function layoutProblems(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${[...el.classList].join(".")}`;
    const problems = [];
    if (document.documentElement.scrollWidth > width) problems.push(`the page is ${document.documentElement.scrollWidth}px wide`);
    for (const el of document.querySelectorAll("#app *")) {
      if (el.parentElement.closest(".board-scroll")) continue;
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      if (box.left < -0.5 || box.right > width + 0.5) problems.push(`${name(el)} spans ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
    for (const el of document.querySelectorAll(".sea-tab, .block-due, .lang-short, .banner, .action-bar")) {
      if (el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} cuts its content (${el.scrollWidth} > ${el.clientWidth})`);
    }
    return problems;
  });
}

async function assertFits(page, where) {
  assert.deepEqual(await layoutProblems(page), [], where);
}

/** The language selector: shown whole, the real select laid over it, and it works. */
async function checkLanguageSelector(page, lang) {
  const [label, select] = await page.$$eval(".lang-short, select.lang", (els) => els.map((el) => el.getBoundingClientRect().toJSON()));
  assert.ok(label.width > 0 && label.right <= 390 && label.left >= 0, "the language label is on the screen");
  assert.ok(Math.abs(select.left - label.left) < 1 && Math.abs(select.width - label.width) < 1, "the select covers its label");
  await page.selectOption("select.lang", lang);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, lang);
}

async function roomWithBots(page, preset, seats) {
  await chooseRules(page, preset);
  // A classic bot game opens its lobby on request; the shared sea's always does.
  await page.click(preset === "shared" ? "#play-bot" : "#play-bot-setup");
  await waitForLobby(page);
  await page.selectOption("#seat-count", String(seats));
  await page.waitForFunction((n) => document.querySelectorAll(".seats li").length === n, seats);
  for (let seat = 2; seat < seats; seat += 1) {
    await page.selectOption(`.seats li:nth-child(${seat + 1}) select`, "easy");
    await page.waitForSelector(`.seats li:nth-child(${seat + 1}).seat-bot`);
  }
}

test("on a phone: the salvo tabs and the language selector fit the screen", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser, { locale: "en-GB", ...PHONE });
  await openHome(page, fixture.server.url, "Zé");
  await assertFits(page, "home");
  await checkLanguageSelector(page, "pt-BR");
  assert.match(await page.locator(".lang-short").innerText(), /PT-BR/);
  await assertFits(page, "home in pt-BR");
  await roomWithBots(page, "classic", 4);
  await assertFits(page, "lobby");
  await page.click("#start");
  await page.waitForSelector(".placement");
  await assertFits(page, "placement");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  // Three opponents, three tabs with their due shots, all whole on the screen.
  assert.equal(await page.locator(".sea-tab").count(), 3);
  await page.locator(".target-board.armed .cell.m-unknown").nth(4).click();
  await assertFits(page, "salvo round");
  await shoot(page, "pt-BR-phone-salvo");
  await page.click(".sea-tab:nth-child(3)");
  await assertFits(page, "the third tab");
  await checkLanguageSelector(page, "it");
  await assertFits(page, "salvo round in Italian");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("on a phone: the shared sea scrolls inside its card and placement starts at the own block", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser, { locale: "pt-PT", ...PHONE });
  await openHome(page, fixture.server.url, "Inês");
  await roomWithBots(page, "shared", 3);
  await page.click("#start");
  await page.waitForSelector(".placement");
  await assertFits(page, "placement on the shared sea");
  // The sea of three blocks is wider than the phone: its box scrolls, showing the own block.
  const own = await page.$eval(".board-scroll .cell.blk-own.blk-l.blk-t", (el) => {
    const box = el.getBoundingClientRect();
    return box.left >= 0 && box.right <= document.documentElement.clientWidth;
  });
  assert.ok(own, "the own block's corner is in view");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  await assertFits(page, "the shared sea in battle");
  // Read until the sea is laid out (a redraw may be under way); the message
  // says what was measured last if it never scrolls.
  const scrolls = await page
    .waitForFunction(() => {
      const el = document.querySelector(".sea-card .board-scroll");
      return el && el.scrollWidth > el.clientWidth;
    }, null, { timeout: 5000 })
    .then(() => true, () => false);
  const sea = await page.$eval(".sea-card .board-scroll", (el) => ({
    scroll: el.scrollWidth,
    width: el.clientWidth,
    cols: el.querySelector(".board")?.style.getPropertyValue("--cols"),
    cell: getComputedStyle(el.querySelector(".board")).getPropertyValue("--cell"),
  }));
  assert.ok(scrolls, `the sea scrolls sideways in its card: ${JSON.stringify(sea)}`);
  // Scrolled to the end, the last column can be aimed at.
  await page.$eval(".sea-card .board-scroll", (el) => (el.scrollLeft = el.scrollWidth));
  const last = page.locator(".target-board .cell.blk-foe.m-unknown").last();
  await last.click();
  assert.equal(await page.locator(".target-board .cell.chosen").count(), 1, "a shot chosen at the far end");
  await shoot(page, "pt-PT-phone-shared-sea");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});
