// Accessibility checks with axe-core (the npm package, injected into the page):
// the landing page, the lobby, placement, the battle in every mode (classic,
// salvo rounds of three, the shared sea, space), the shop, the end screen,
// the replay page, the leaderboard, the account panel and the dialogs that
// block and report a player (with the blocks list) have no critical and no
// serious violation. The counts per screen are printed, every impact level.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileFixture, newPlayer, openHome, chooseRules, waitForLobby, placeRandomAndReady, fireOnce, playToEnd, virtualAuthenticator, followInvite } from "./harness.js";

const fixture = fileFixture();
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** What axe finds on the page as it is now: the violations, and their count per impact. */
async function axe(page) {
  // Animations (a fresh shot's splash) end first, so colours are measured at rest.
  await page.waitForTimeout(800);
  // Evaluated, not added as a <script>: the server's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
      where: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      why: v.nodes[0]?.failureSummary?.split("\n").slice(0, 3).join(" "),
    }));
  });
  const counts = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of violations) counts[v.impact] = (counts[v.impact] || 0) + 1;
  return { violations, counts };
}

const seen = [];

/**
 * Runs axe on a screen and prints its counts; the critical and serious
 * violations are kept in `t.bad`, asserted empty at the end of the test (so
 * that one run reports every screen).
 */
async function check(t, page, screen) {
  const { violations, counts } = await axe(page);
  const line = `axe ${screen}: critical ${counts.critical}, serious ${counts.serious}, moderate ${counts.moderate}, minor ${counts.minor}`;
  seen.push(line);
  t.diagnostic(line);
  console.log(line);
  for (const v of violations) console.log(`   ${v.impact} ${v.id} ×${v.nodes}: ${v.where.join(" | ")} — ${v.why}`);
  t.bad = t.bad || [];
  for (const v of violations) if (v.impact === "critical" || v.impact === "serious") t.bad.push(`${screen}: ${v.impact} ${v.id} ${v.where.join(" | ")}`);
}

function assertClean(t) {
  assert.deepEqual(t.bad || [], [], "no critical or serious violation on any screen");
}

/** A room with bots from the lobby: `seats` seats, every other seat an easy bot. */
async function botRoom(page, preset, seats) {
  await chooseRules(page, preset);
  await page.click(preset === "shared" ? "#play-bot" : "#play-bot-setup");
  await waitForLobby(page);
  if (seats > 2) {
    await page.selectOption("#seat-count", String(seats));
    await page.waitForFunction((n) => document.querySelectorAll(".seats li").length === n, seats);
    for (let seat = 2; seat < seats; seat += 1) {
      await page.selectOption(`.seats li:nth-child(${seat + 1}) select`, "easy");
      await page.waitForSelector(`.seats li:nth-child(${seat + 1}).seat-bot`);
    }
  }
  await page.click("#start");
}

test("axe: landing, lobby, classic placement and battle, end screen, replay and leaderboard", async (t) => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Ada");
  await page.waitForSelector("#history, .my-games p.muted");
  await check(t, page, "landing");
  await page.click("#play-friend");
  await waitForLobby(page);
  await check(t, page, "lobby");
  await page.click("#leave");
  await page.waitForSelector("#play-bot");
  await chooseRules(page, "classic");
  await page.click("#play-bot");
  await page.waitForSelector(".placement #random");
  await check(t, page, "placement (classic)");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  for (let fired = 0; fired < 6; ) {
    if (await fireOnce(page)) fired += 1;
    else await page.waitForTimeout(40);
  }
  await page.waitForSelector("#turn-banner.mine");
  await check(t, page, "battle (classic)");
  // Played to the end, so that the end screen's log is long enough to scroll.
  await playToEnd([page]);
  await page.waitForSelector("#end-replay");
  const log = await page.$eval(".end .tab-body", (el) => ({ scrolls: el.scrollHeight > el.clientHeight, tabindex: el.getAttribute("tabindex") }));
  assert.deepEqual(log, { scrolls: true, tabindex: "0" }, "the end screen's log scrolls, and takes the focus to be scrolled by keyboard");
  await check(t, page, "end screen");
  const replay = await page.getAttribute("#end-replay", "href");
  await page.goto(fixture.server.url + replay);
  await page.waitForSelector(".replay .board");
  await check(t, page, "replay");
  await page.goto(fixture.server.url);
  await page.waitForSelector(".net-online");
  await page.click("#open-leaderboard");
  await page.waitForSelector(".leaderboard, #leaderboard");
  await page.waitForTimeout(300);
  await check(t, page, "leaderboard");
  assertClean(t);
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("axe: salvo rounds of three, and the shared sea", async (t) => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Ben");
  await botRoom(page, "classic", 3);
  await page.waitForSelector(".placement #random");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  await page.locator(".target-board.armed .cell.m-unknown").nth(3).click();
  await check(t, page, "battle (salvo, 3 players)");
  page.on("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#end-card", { timeout: 60000 });
  await page.click("#home");
  await page.waitForSelector("#play-bot");
  await botRoom(page, "shared", 3);
  await page.waitForSelector(".placement #random");
  await check(t, page, "placement (shared sea)");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #submit-salvo");
  await page.locator(".target-board.armed .cell.blk-foe.m-unknown").nth(2).click();
  await check(t, page, "battle (shared sea)");
  assertClean(t);
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("axe: the account panel, as a guest and as an account, light and dark", async (t) => {
  for (const colorScheme of ["light", "dark"]) {
    const { context, page } = await newPlayer(fixture.chromium.browser, { colorScheme });
    await openHome(page, fixture.server.url, `Axe ${colorScheme}`);
    await virtualAuthenticator(page);
    await page.waitForSelector("#play-now-casual");
    await check(t, page, `landing as a guest (${colorScheme})`);
    await page.click("#header-account");
    await page.waitForSelector("#account-create");
    await check(t, page, `account: guest (${colorScheme})`);
    await page.click("#account-create");
    await page.fill("#account-username", "A");
    await page.click("#account-create-submit");
    await page.waitForSelector("#account-problem");
    await check(t, page, `account: create, refused (${colorScheme})`);
    await page.fill("#account-username", `Axe ${colorScheme}`);
    await page.click("#account-create-submit");
    await page.waitForSelector("#recovery-codes li");
    await page.waitForSelector("#passkey-list li");
    await check(t, page, `account: recovery codes (${colorScheme})`);
    await page.click("#recovery-saved");
    await page.click("#account-offer");
    await page.waitForSelector("#link-code[data-code]");
    await check(t, page, `account: link code (${colorScheme})`);
    await page.click("#account-back");
    await page.click("#account-everywhere");
    await page.waitForSelector("#everywhere-question");
    await check(t, page, `account: sign out everywhere (${colorScheme})`);
    assert.deepEqual(page.errors || [], []);
    await context.close();
  }
  assertClean(t);
});

test("axe: blocking and reporting a player, and the blocks list, light and dark", async (t) => {
  for (const colorScheme of ["light", "dark"]) {
    const host = await newPlayer(fixture.chromium.browser, { colorScheme });
    const guest = await newPlayer(fixture.chromium.browser, { colorScheme });
    await openHome(host.page, fixture.server.url, `Host ${colorScheme}`);
    await openHome(guest.page, fixture.server.url, `Guest ${colorScheme}`);
    await host.page.click("#play-friend");
    const code = await waitForLobby(host.page);
    await followInvite(guest.page, `${fixture.server.url}/r/${code}`);
    await guest.page.fill("#chat-input", "Hello there");
    await guest.page.press("#chat-input", "Enter");
    // The lobby with the other person's "⋯" and a chat line to report.
    await host.page.waitForSelector(".chat-list li .chat-report");
    await host.page.waitForSelector('.seats .person-button[data-seat="1"]');
    await check(t, host.page, `lobby with another person (${colorScheme})`);
    await host.page.click('.seats .person-button[data-seat="1"]');
    await host.page.waitForSelector("#moderation-intro");
    await check(t, host.page, `moderation: menu (${colorScheme})`);
    await host.page.click("#moderation-report");
    await host.page.waitForSelector("#report-note");
    await check(t, host.page, `moderation: report (${colorScheme})`);
    await host.page.click("#moderation-back");
    await host.page.click("#moderation-block");
    await host.page.waitForSelector("#block-explain");
    await check(t, host.page, `moderation: block, asked first (${colorScheme})`);
    await host.page.click("#block-confirm");
    await host.page.waitForSelector(".seats .blocked-tag");
    await host.page.click("#header-account");
    await host.page.waitForSelector("#blocks-list li");
    await check(t, host.page, `account: blocks list (${colorScheme})`);
    for (const p of [host, guest]) assert.deepEqual(p.page.errors || [], []);
    await host.context.close();
    await guest.context.close();
  }
  assertClean(t);
});

test("axe: the space shop and the space battle", async (t) => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Cy");
  await chooseRules(page, "space");
  await page.click("#play-bot");
  await page.waitForSelector(".shop #buy");
  await check(t, page, "shop");
  await page.click("#default-fleet");
  await page.click("#buy");
  await page.waitForSelector(".placement #random");
  await check(t, page, "placement (space)");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  for (let fired = 0; fired < 4; ) {
    if (await fireOnce(page)) fired += 1;
    else await page.waitForTimeout(40);
  }
  await check(t, page, "battle (space)");
  assertClean(t);
  assert.deepEqual(page.errors || [], []);
  await context.close();
  console.log(seen.join("\n"));
});
