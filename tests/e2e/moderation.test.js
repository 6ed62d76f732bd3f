// Moderation in the browser (issue 36): two people in a room; one reports the
// other from a chat line and from the game (thanked each time, the reports
// stored for the operators), then blocks them from the battle (asked first,
// told what it does): the blocked person's later chat never reaches the
// blocker, and they cannot join the blocker's new room (the refusal in their
// language); the blocker, a guest, unblocks them in the account panel and they
// can join again. A person the operators mute and then ban with the real
// `broadside admin` is told so in their language: chat refused until a date,
// then the page closed within seconds with the ban notice, no reconnection at
// once, the ban refusal again after a reload, and back once the ban is lifted.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { admin, fileFixture, followInvite, newPlayer, openHome, repoRoot, shoot, signUp, startToBattle, waitForLobby } from "./harness.js";

// A server of this file's own: the test acts on its database as the operators do.
const fixture = fileFixture({ own: true });
const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const strings = (lang) => JSON.parse(readFileSync(path.join(repoRoot, "web", "i18n", `${lang}.json`), "utf8"));
const en = strings("en");
const es = strings("es");
const ptBR = strings("pt-BR");

async function player(nickname, options = {}) {
  const p = await newPlayer(fixture.chromium.browser, options);
  await openHome(p.page, fixture.server.url, nickname);
  return p;
}

/** The end of a test: no page had a script error, and every browser context closes. */
async function finish(...players) {
  for (const p of players) assert.deepEqual(p.page.errors || [], []);
  for (const p of players) await p.context.close();
}

/** Waits for the toast to say `text` (it shows for about three seconds). */
async function toastSays(page, text) {
  await page.waitForFunction((want) => {
    const toast = document.querySelector("#toast.show");
    return toast && toast.textContent.includes(want);
  }, text, { timeout: 8000 });
}

/** Sends a chat line and waits until it is back from the server on this page. */
async function say(page, text) {
  await page.fill("#chat-input", text);
  await page.press("#chat-input", "Enter");
  await page.waitForSelector(`.chat-list li:has-text(${JSON.stringify(text)})`);
}

/** No critical or serious axe violation on the page as it is now. */
async function axeClean(page, screen) {
  await page.waitForTimeout(400);
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
  const bad = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "critical" || v.impact === "serious").map((v) => `${v.impact} ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
  });
  assert.deepEqual(bad, [], `axe on ${screen}`);
}

test("block and report from a room, the chat and the game; a blocked person cannot join; unblock in the account panel", async () => {
  const ana = await player("Ana");
  const bea = await player("Bea", { locale: "es-ES" });

  await ana.page.click("#play-friend");
  const code = await waitForLobby(ana.page);
  await followInvite(bea.page, `${fixture.server.url}/r/${code}`, "Bea");
  // Each sees the "⋯" beside the other's seat, never beside their own.
  await ana.page.waitForSelector('.seats .person-button[data-seat="1"]');
  await bea.page.waitForSelector('.seats .person-button[data-seat="0"]');
  assert.equal(await ana.page.locator('.seats .person-button[data-seat="0"]').count(), 0);
  assert.equal(await ana.page.getAttribute('.seats .person-button[data-seat="1"]', "aria-label"), "Block or report Bea");

  // A report from a chat line: the line is the note.
  await say(bea.page, "Hola a todos");
  assert.equal(await bea.page.locator(".chat-list li:has-text('Hola a todos') .chat-report").count(), 0, "no report of one's own line");
  await ana.page.click(".chat-list li:has-text('Hola a todos') .chat-report");
  await ana.page.waitForSelector('#moderation-panel[data-mode="report"]');
  assert.equal(await ana.page.inputValue("#report-note"), "Hola a todos");
  assert.deepEqual(await ana.page.$$eval("#report-reason option", (options) => options.map((o) => o.value)), ["abuse", "spam", "cheating", "other"]);
  await ana.page.selectOption("#report-reason", "spam");
  await shoot(ana.page, "en-report-chat-line");
  await ana.page.click("#report-submit");
  await toastSays(ana.page, en.report_thanks);
  await ana.page.waitForSelector("#moderation-panel", { state: "detached" });

  // A report from the game: the "⋯" of the opponent's waters.
  await startToBattle(ana.page, bea.page);
  await ana.page.click('.board-card.target .person-button[data-seat="1"]');
  await ana.page.waitForSelector("#moderation-intro");
  await ana.page.click("#moderation-report");
  await ana.page.selectOption("#report-reason", "cheating");
  await ana.page.fill("#report-note", "Every shot a hit, twice in a row.");
  await ana.page.click("#report-submit");
  await toastSays(ana.page, en.report_thanks);
  // The operators read both, with the room, the game and the notes.
  const reports = await admin(fixture.server.db, "reports");
  const lines = reports.trim().split("\n").slice(1);
  assert.equal(lines.length, 2, reports);
  assert.match(lines[0], /\tAna \(#\d+\)\tBea \(#\d+\)\tcheating\t\w+\t\/g\/\d+\tEvery shot a hit, twice in a row\.$/);
  assert.match(lines[1], /\tAna \(#\d+\)\tBea \(#\d+\)\tspam\t\w+\t-\tHola a todos$/);

  // Block, from the game: asked first, and told what it does.
  await bea.page.click("#tab-chat");
  await say(bea.page, "Buena suerte");
  await ana.page.click("#tab-chat");
  await ana.page.waitForSelector(".chat-list li:has-text('Buena suerte')");
  await ana.page.click('.board-card.target .person-button[data-seat="1"]');
  await ana.page.click("#moderation-block");
  const explain = await ana.page.locator("#block-explain").innerText();
  assert.match(explain, /never paired with you/);
  assert.match(explain, /no longer see their chat messages/);
  assert.match(explain, /neither of you can join a room the other hosts/);
  await shoot(ana.page, "en-block-confirm");
  await ana.page.click("#block-confirm");
  await toastSays(ana.page, "Bea is blocked");
  await ana.page.waitForSelector('.board-card.target .blocked-tag[data-seat="1"]');
  // The lines already shown go, and later ones never come.
  assert.equal(await ana.page.locator(".chat-list li:has-text('Buena suerte')").count(), 0);
  await say(bea.page, "¿Sigues ahí?");
  await say(ana.page, "Still here");
  await bea.page.waitForSelector(".chat-list li:has-text('Still here')");
  await ana.page.waitForTimeout(500);
  assert.equal(await ana.page.locator(".chat-list li:has-text('Sigues')").count(), 0, "the blocked person's chat never reaches the blocker");

  // The end screen lists the other person, blocked, with Unblock in the dialog.
  ana.page.once("dialog", (dialog) => dialog.accept());
  await ana.page.click("#resign");
  await ana.page.waitForSelector("#end-card");
  await bea.page.waitForSelector("#end-card");
  await ana.page.waitForSelector('#end-people .blocked-tag[data-seat="1"]');
  await ana.page.click('#end-people .person-button[data-seat="1"]');
  await ana.page.waitForSelector("#moderation-unblock");
  await ana.page.keyboard.press("Escape");
  await ana.page.waitForSelector("#moderation-panel", { state: "detached" });
  // The focus is back on the ⋯ that opened the dialog.
  await ana.page.waitForFunction(() => document.activeElement?.id === "person-end-1");

  // The blocked person cannot join the blocker's new room: told so in Spanish.
  await ana.page.click("#home");
  await ana.page.click("#play-friend");
  const second = await waitForLobby(ana.page);
  const invite = `${fixture.server.url}/r/${second}`;
  await bea.page.goto(invite);
  await bea.page.waitForSelector("#invite-join");
  await bea.page.click("#invite-join");
  await toastSays(bea.page, es["err.not_allowed"]);
  await bea.page.waitForFunction(() => location.pathname === "/");
  await shoot(bea.page, "es-not-allowed");
  assert.equal(await ana.page.locator(".seats .seat-person").count(), 1, "Bea is not in the room");

  // The blocker, a guest, sees the block in the account panel and lifts it.
  await ana.page.click("#header-account");
  await ana.page.waitForSelector("#blocks-list li");
  assert.deepEqual(await ana.page.$$eval("#blocks-list .blocked-name", (els) => els.map((el) => el.textContent)), ["🚫 Bea"]);
  await shoot(ana.page, "en-blocks-list");
  await ana.page.click('#blocks-list button[aria-label="Unblock Bea"]');
  await ana.page.waitForSelector("#blocks-empty");
  await toastSays(ana.page, "Bea is no longer blocked.");
  await ana.page.click("#account-close");

  // Now Bea can join.
  await followInvite(bea.page, invite);
  await ana.page.waitForSelector('.seats .person-button[data-seat="1"]');
  assert.equal(await ana.page.locator(".blocked-tag").count(), 0);
  await finish(ana, bea);
});

test("the operators mute, then ban, a person: told in their language, the page closed within seconds, no reconnection at once, the refusal after a reload", async () => {
  const dee = await player("Dee");
  const cy = await player("Cy", { locale: "pt-BR" });
  await signUp(cy.page, "Cyrus");
  await dee.page.click("#play-friend");
  const code = await waitForLobby(dee.page);
  await followInvite(cy.page, `${fixture.server.url}/r/${code}`);
  await say(cy.page, "Olá");

  // A mute: the chat line is refused, with until when.
  await admin(fixture.server.db, "mute", "cyrus", "--days", "1", "--reason", "flooding the chat");
  // Every node reads the operators' log twice a second.
  await cy.page.waitForTimeout(1500);
  await cy.page.fill("#chat-input", "Alguém aí?");
  await cy.page.press("#chat-input", "Enter");
  await toastSays(cy.page, ptBR["err.muted"]);
  assert.match(await cy.page.locator("#toast").innerText(), /Você pode voltar a escrever no bate-papo a partir de .*\d/);
  await dee.page.waitForTimeout(300);
  assert.equal(await dee.page.locator(".chat-list li:has-text('Alguém aí')").count(), 0);

  // A ban (by the account's username, in any case) closes the page within a few seconds.
  let sockets = 0;
  cy.page.on("websocket", () => (sockets += 1));
  const banned = Date.now();
  await admin(fixture.server.db, "ban", "CYRUS", "--days", "7", "--reason", "insults after the game");
  await cy.page.waitForSelector("#banned-notice", { timeout: 5000 });
  assert.ok(Date.now() - banned < 5000, "the page is closed within a few seconds");
  assert.equal(await cy.page.locator("#banned-title").innerText(), ptBR.banned_title);
  assert.equal(await cy.page.locator("#banned-text").innerText(), ptBR.banned_text);
  assert.equal(await cy.page.locator("#banned-retry-note").innerText(), ptBR.banned_retry_note);
  assert.equal(await cy.page.locator(".lobby").count(), 0, "the notice is all the page shows");
  // The header says the link is down for a ban, not that it is reconnecting.
  assert.equal(await cy.page.locator(".net-banned .net-text").innerText(), ptBR.net_banned);
  await shoot(cy.page, "pt-BR-banned");
  await axeClean(cy.page, "the ban notice");
  // No reconnection at once (the link tries again in a minute).
  await cy.page.waitForTimeout(3000);
  assert.equal(sockets, 0, "the banned page does not connect again at once");
  await dee.page.waitForSelector(".seat-person .presence.off");

  // A reload: the server refuses the hello, and the page says until when.
  await cy.page.reload();
  await cy.page.waitForSelector("#banned-until");
  assert.match(await cy.page.locator("#banned-until").innerText(), /^O banimento termina em .*\d/);
  await cy.page.waitForTimeout(2000);
  assert.equal(sockets, 1, "one connection for the reload, refused, and none again at once");
  // "Try again now" asks again: still banned.
  await cy.page.click("#banned-retry");
  await cy.page.waitForFunction(() => document.querySelector("#banned-retry") && !document.querySelector("#banned-retry").disabled);
  await cy.page.waitForSelector("#banned-until");
  assert.equal(sockets, 2);

  // The ban lifted: "Try again now" brings the page back, in the room.
  await admin(fixture.server.db, "unban", "cyrus", "--reason", "appeal accepted");
  await cy.page.click("#banned-retry");
  await cy.page.waitForSelector(".net-online");
  await cy.page.waitForSelector(".lobby .code-big");
  assert.equal(await cy.page.locator("#banned-notice").count(), 0);
  await finish(dee, cy);
});
