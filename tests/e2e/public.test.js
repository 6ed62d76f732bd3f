// Playing with strangers in the browser (issue 14): "Play now" pairing two
// browsers and offering a bot to a lone one, the live list of open rooms
// filling a room of four, a finished game's replay stepped through to its end,
// and the leaderboard after a rated game.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  fileFixture,
  newPlayer,
  signUp,
  openHome,
  chooseRules,
  waitForLobby,
  followInvite,
  startGame,
  placeRandomAndReady,
  fireShots,
  resign,
  proxyFrom,
  shoot,
  MATCH_WAIT_SECS,
  ServerProcess,
  freePort,
  tempDir,
} from "./harness.js";
import path from "node:path";
import { rmSync } from "node:fs";

const fixture = fileFixture();

async function player(nickname, options = {}) {
  const p = await newPlayer(fixture.chromium.browser, options);
  await openHome(p.page, fixture.server.url, nickname);
  return p;
}

/** A switch of the client (its checkbox is drawn as a track) turned on. */
async function switchOn(page, id) {
  await page.check(`#${id}`, { force: true });
  await page.waitForSelector(`#${id}:checked`);
}

/** The end of a test: no page had a script error, and every browser context closes. */
async function finish(...players) {
  for (const p of players) assert.deepEqual(p.page.errors || [], []);
  for (const p of players) await p.context.close();
}

test("Play now pairs two browsers into one room, and both reach placement", async () => {
  const ana = await player("Quick Ana");
  const joao = await player("Quick João", { locale: "pt-BR" });
  await chooseRules(ana.page, "classic");
  await ana.page.click("#play-now");
  await ana.page.waitForSelector("#matching");
  // The waiting screen: the preset, how many wait (only Ana), the time waited, Cancel.
  assert.match(await ana.page.locator("#matching").innerText(), /Classic/);
  await ana.page.waitForFunction(() => document.querySelector("#matching-waiting")?.textContent.includes("1 player"));
  const waited = await ana.page.locator("#matching-waited").innerText();
  await ana.page.waitForFunction((before) => document.querySelector("#matching-waited").textContent !== before, waited, { timeout: 3000 });
  assert.equal(await ana.page.locator("#cancel-match").isEnabled(), true);
  await shoot(ana.page, "en-quick-match");

  await chooseRules(joao.page, "classic");
  await joao.page.click("#play-now");
  await ana.page.waitForSelector(".placement");
  await joao.page.waitForSelector(".placement");
  const code = await ana.page.locator(".room-chip").innerText();
  assert.equal(await joao.page.locator(".room-chip").innerText(), code, "one room for both");
  assert.match(ana.page.url(), /\/r\/[A-Z0-9]+$/);
  // They can play it: both place and the battle begins.
  await placeRandomAndReady(ana.page);
  await placeRandomAndReady(joao.page);
  await ana.page.waitForSelector(".battle");
  await joao.page.waitForSelector(".battle");
  await finish(ana, joao);
});

test("a lone player may cancel, and after the wait takes the bot offered instead", async () => {
  const ines = await player("Inês Sozinha", { locale: "pt-BR" });
  await chooseRules(ines.page, "hasbro");
  await ines.page.click("#play-now");
  await ines.page.waitForSelector("#matching");
  await ines.page.waitForFunction(() => document.querySelector("#matching-waiting")?.textContent.includes("1 jogador"));
  assert.match(await ines.page.locator("#offer-hint").innerText(), /computador/);
  // Cancel takes her home (match_cancelled).
  await ines.page.click("#cancel-match");
  await ines.page.waitForSelector("#play-now");
  assert.equal(await ines.page.locator("#matching").count(), 0);

  // Waiting again: after the wait a bot of her strength is offered while she keeps waiting.
  await ines.page.click("#play-now");
  await ines.page.waitForSelector("#accept-bot", { timeout: (MATCH_WAIT_SECS + 25) * 1000 });
  assert.match(await ines.page.locator("#accept-bot").innerText(), /computador \(médio\)/);
  assert.equal(await ines.page.locator("#cancel-match").isEnabled(), true, "she may still wait or cancel");
  await shoot(ines.page, "pt-BR-quick-match-offer");
  await ines.page.click("#accept-bot");
  await ines.page.waitForSelector(".placement");
  await placeRandomAndReady(ines.page);
  await ines.page.waitForSelector(".battle");
  await finish(ines);
});

test("a person waiting when the server restarts waits again, and is paired", async () => {
  // A server of its own, since the test stops and starts it.
  const dir = tempDir();
  const own = new ServerProcess({ port: await freePort(), db: path.join(dir, "restart.sqlite"), matchWaitSecs: 60 });
  await own.start();
  const people = [];
  try {
    const bea = await newPlayer(fixture.chromium.browser);
    people.push(bea);
    await openHome(bea.page, own.url, "Bea");
    await chooseRules(bea.page, "italia");
    await bea.page.click("#play-now");
    await bea.page.waitForFunction(() => document.querySelector("#matching-waiting")?.textContent.includes("1 player"));
    // The queue forgets a closed connection: after the restart the page asks again by itself.
    await own.stop();
    await bea.page.waitForSelector(".net-offline");
    await own.start();
    await bea.page.waitForSelector(".net-online", { timeout: 20000 });
    await bea.page.waitForSelector("#matching");
    const carl = await newPlayer(fixture.chromium.browser, { locale: "it-IT" });
    people.push(carl);
    await openHome(carl.page, own.url, "Carlo");
    await chooseRules(carl.page, "italia");
    await carl.page.click("#play-now");
    await bea.page.waitForSelector(".placement");
    await carl.page.waitForSelector(".placement");
    assert.equal(await bea.page.locator(".room-chip").innerText(), await carl.page.locator(".room-chip").innerText());
    await finish(...people.splice(0));
  } finally {
    for (const p of people) await p.context.close();
    await own.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the open rooms list fills a public room of four; one click joins", async () => {
  const host = await player("Hana Host");
  // Rated play needs an account: the host and the three who join make one first.
  await signUp(host.page, "Hana Host");
  const watcher = await player("Giulia", { locale: "it-IT" });
  await chooseRules(host.page, "classic");
  await switchOn(host.page, "home-public");
  await host.page.click("#play-friend");
  const code = await waitForLobby(host.page);
  await host.page.waitForSelector("#room-public");
  assert.equal(await host.page.isChecked("#opt-public"), true, "create_room made it public");
  await host.page.selectOption("#seat-count", "4");
  await host.page.waitForFunction(() => document.querySelectorAll(".seats li").length === 4);

  // The room shows up in the list of a home page (asked again every 3 s).
  const entry = `#open-room-${code}`;
  // (An earlier answer may still show the two seats the room was made with.)
  await watcher.page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("1/4"), entry, { timeout: 15000 });
  const text = await watcher.page.locator(entry).innerText();
  assert.match(text, /1\/4/);
  assert.match(text, /Hana Host/);
  assert.match(text, /English/);
  assert.equal(await watcher.page.locator(`${entry} .vision-tag`).count(), 0, "spectators see only what was announced");
  await shoot(watcher.page, "it-open-rooms", { at: "#open-rooms" });

  const guests = [];
  for (const [nickname, locale] of [["Lucía", "es-ES"], ["Inês", "pt-PT"], ["Bruno", "en-GB"]]) {
    const guest = await player(nickname, { locale });
    await signUp(guest.page, nickname);
    await guest.page.waitForSelector(entry, { timeout: 15000 });
    if (locale === "es-ES") await shoot(guest.page, "es-open-rooms", { at: "#open-rooms" });
    await guest.page.click(entry);
    assert.equal(await waitForLobby(guest.page), code);
    guests.push(guest);
    const taken = guests.length + 1;
    await host.page.waitForFunction((n) => document.querySelectorAll(".seats li.seat-person").length === n, taken);
    // The watcher's list follows by itself: the seats taken, then gone once full.
    if (taken < 4) await watcher.page.waitForFunction(([sel, n]) => document.querySelector(sel)?.textContent.includes(`${n}/4`), [entry, taken], { timeout: 15000 });
  }
  await watcher.page.waitForFunction((sel) => !document.querySelector(sel), entry, { timeout: 15000 });

  // The host makes the room rated; everybody sees it, and each person's rating (none yet).
  await switchOn(host.page, "opt-rated");
  for (const guest of guests) await guest.page.waitForSelector("#room-rated");
  assert.equal(await host.page.locator(".seats .rating.unrated").count(), 4);
  // Everybody here comes from one address: the lobby says the game will not count.
  await host.page.waitForSelector("#same-address");
  // A rated game starts once every guest has said ready.
  for (const guest of guests) await guest.page.click("#ready");
  await host.page.waitForFunction(() => document.querySelectorAll(".seats .ready-tag").length === 3);
  await shoot(host.page, "en-lobby-public");
  await startGame(host.page);
  for (const guest of guests) await guest.page.waitForSelector(".placement");
  await finish(host, watcher, ...guests);
});

test("the open rooms list says when spectators would see every fleet", async () => {
  const host = await player("Vera");
  const watcher = await player("Wim");
  await switchOn(host.page, "home-public");
  await host.page.click("#play-friend");
  const code = await waitForLobby(host.page);
  await switchOn(host.page, "opt-see-all");
  const entry = `#open-room-${code}`;
  await watcher.page.waitForSelector(`${entry} .vision-tag`, { timeout: 15000 });
  assert.match(await watcher.page.locator(`${entry} .vision-tag`).innerText(), /Spectators see everything/);
  await finish(host, watcher);
});

test("a finished game's replay steps from the first move to the last", async () => {
  const rita = await player("Rita");
  await chooseRules(rita.page, "classic");
  await rita.page.selectOption("#bot-level", "easy");
  await rita.page.click("#play-bot");
  await rita.page.waitForSelector(".placement");
  await placeRandomAndReady(rita.page);
  await rita.page.waitForSelector(".battle");
  await fireShots([rita.page], 16);
  if (!(await rita.page.locator(".end").count())) await resign(rita.page);

  // The end screen: the server's statistics and a heat map of each side's fire.
  assert.equal(await rita.page.locator("#end-card .stats tbody tr").count(), 2);
  const shots = Number(await rita.page.locator('#end-card .stats tr[data-seat="0"] .stat-shots').innerText());
  assert.ok(shots >= 16, `Rita fired ${shots} shots`);
  assert.ok((await rita.page.locator("#end-card .heat-map").count()) >= 1);
  await rita.page.waitForSelector("#end-replay");
  const href = await rita.page.getAttribute("#end-replay", "href");
  const id = Number(href.match(/^\/g\/(\d+)$/)[1]);

  // My games lists the finished game with its result and a replay link.
  await rita.page.click("#home");
  await rita.page.waitForSelector(`#history li[data-game="${id}"]`);
  const row = rita.page.locator(`#history li[data-game="${id}"]`);
  assert.match(await row.innerText(), /Lost|Won/);
  await row.locator(".replay-link").click();
  await rita.page.waitForSelector("#replay-position");
  assert.equal(new URL(rita.page.url()).pathname, `/g/${id}`);
  const position = async () => {
    const [k, n] = (await rita.page.locator("#replay-position").innerText()).match(/(\d+) of (\d+)/).slice(1).map(Number);
    return { k, n };
  };
  const { k: start, n: last } = await position();
  assert.equal(start, 0, "a replay starts at the beginning");
  assert.ok(last >= 10, `${last} moves`);
  assert.equal(await rita.page.locator(".replay-boards .cell.hull").count(), 0, "no ship before the first move");

  // Buttons: the two placements bring both fleets (full vision).
  await rita.page.click("#replay-next");
  await rita.page.click("#replay-next");
  assert.equal((await position()).k, 2);
  assert.ok((await rita.page.locator(".replay-boards .cell.hull").count()) >= 40, "both fleets are shown");
  assert.equal(await rita.page.locator('.move.current').getAttribute("data-step"), "2");
  // Arrow keys, Home and End.
  await rita.page.keyboard.press("ArrowRight");
  assert.equal((await position()).k, 3);
  assert.match(await rita.page.locator("#replay-events").innerText(), /fired at/);
  await rita.page.keyboard.press("ArrowLeft");
  assert.equal((await position()).k, 2);
  await rita.page.keyboard.press("End");
  assert.equal((await position()).k, last);
  await rita.page.keyboard.press("Home");
  assert.equal((await position()).k, 0);
  // The slider, by keyboard.
  await rita.page.focus("#replay-slider");
  await rita.page.keyboard.press("ArrowRight");
  await rita.page.keyboard.press("ArrowRight");
  await rita.page.keyboard.press("ArrowRight");
  assert.equal((await position()).k, 3);
  // A click in the list of moves jumps there: to the last hit before the end, for the picture.
  const hitStep = await rita.page.$$eval(".move", (els) => {
    const withHit = els.filter((el) => /🔥|☠/.test(el.textContent));
    return Number((withHit.length ? withHit[withHit.length - 1] : els[6]).dataset.step);
  });
  await rita.page.click(`.move[data-step="${hitStep}"]`);
  assert.equal((await position()).k, hitStep);
  await shoot(rita.page, "en-replay");
  // Autoplay, at the fastest speed, runs to the end and stops.
  await rita.page.selectOption("#replay-speed", "3");
  await rita.page.click("#replay-play");
  await rita.page.waitForFunction((n) => document.querySelector("#replay-position")?.textContent.includes(`${n} of ${n}`), last, { timeout: 30000 });
  await rita.page.waitForFunction(() => document.querySelector("#replay-play")?.getAttribute("aria-pressed") === "false");
  assert.match(await rita.page.locator("#replay-events").innerText(), /resigned|won|sunk/i);
  assert.equal(await rita.page.locator(".replay-stats .stats tbody tr").count(), 2);
  assert.ok((await rita.page.locator(".replay-stats .heat-map").count()) >= 1);

  // The link is public: another person, in another language, opens it directly.
  const other = await newPlayer(fixture.chromium.browser, { locale: "pt-PT", colorScheme: "dark" });
  await other.page.goto(`${fixture.server.url}/g/${id}`);
  await other.page.waitForSelector("#replay-position");
  assert.match(await other.page.locator(".replay-head h1").innerText(), /Repetição/);
  for (let i = 0; i < 9; i += 1) await other.page.click("#replay-next");
  assert.match(await other.page.locator("#replay-position").innerText(), /Jogada 9 de/);
  await shoot(other.page, "pt-PT-replay");
  // A game that does not exist (or is still running) has no replay.
  await other.page.goto(`${fixture.server.url}/g/987654321`);
  await other.page.waitForSelector("#replay-error");
  await finish(rita, other);
});

test("the leaderboard waits for enough opponents; a rated game shows ratings and their change", async () => {
  const marta = await player("Marta", { locale: "es-ES" });
  const away = await proxyFrom(fixture.server.url, "127.0.0.2");
  const tom = await newPlayer(fixture.chromium.browser);
  await openHome(tom.page, away.url, "Tom");
  // Rated play needs an account: both make one first (a passkey each).
  await signUp(marta.page, "Marta");
  await signUp(tom.page, "Tom");
  await chooseRules(marta.page, "classic");
  await switchOn(marta.page, "home-rated");
  await marta.page.click("#play-friend");
  await waitForLobby(marta.page);
  await marta.page.waitForSelector("#room-rated");
  const invite = new URL(await marta.page.inputValue("#invite-link"));
  await followInvite(tom.page, `${away.url}${invite.pathname}`);
  // A rated game waits for Tom's ready; two addresses, so no warning.
  await tom.page.click("#ready");
  await marta.page.waitForSelector(".seats .ready-tag");
  assert.equal(await marta.page.locator("#same-address").count(), 0);
  await startGame(marta.page);
  await tom.page.waitForSelector(".placement");
  await placeRandomAndReady(marta.page);
  await placeRandomAndReady(tom.page);
  await marta.page.waitForSelector(".battle");
  await fireShots([marta.page, tom.page], 6);
  await resign(tom.page);
  await marta.page.waitForSelector("#end-card");
  // The end screen shows the new ratings beside the names (provisional after one game).
  await marta.page.waitForFunction(() => document.querySelectorAll("#end-card .stats .rating:not(.unrated)").length === 2);
  assert.match(await marta.page.locator("#end-card .stats .rating").first().innerText(), /\d+\?/);

  // Her finished games: a win with a rating gain.
  await marta.page.click("#home");
  await marta.page.waitForSelector("#history li");
  const last = marta.page.locator("#history li").first();
  assert.match(await last.innerText(), /Victoria/);
  assert.equal(await last.locator(".rating-change.up").count(), 1);

  // One opponent each: both ratings are provisional, and the leaderboard
  // lists a rating only once its person has met five (docs/protocol.md).
  await marta.page.click("#open-leaderboard");
  await marta.page.waitForSelector("#leaderboard-empty, #leaderboard-table");
  assert.equal(new URL(marta.page.url()).hash, "#leaderboard/classic");
  assert.equal(await marta.page.locator("#leaderboard-table tr.me").count(), 0, "provisional: not listed");
  await shoot(marta.page, "es-leaderboard");
  // Another preset, then back with the browser's Back button.
  await marta.page.click('.pill[data-preset="hasbro"]');
  await marta.page.waitForSelector('.pill[data-preset="hasbro"][aria-checked="true"]');
  await marta.page.waitForSelector("#leaderboard-empty, #leaderboard-table");
  await marta.page.goBack();
  await marta.page.waitForSelector('.pill[data-preset="classic"][aria-checked="true"]');
  await marta.page.waitForSelector("#leaderboard-empty, #leaderboard-table");

  // The loser finds it from the header of the home page.
  await tom.page.click("#home");
  await tom.page.click("#header-leaderboard");
  await tom.page.waitForSelector("#leaderboard-empty, #leaderboard-table");
  assert.equal(await tom.page.locator("#leaderboard-table tr.me").count(), 0);
  await shoot(tom.page, "en-leaderboard");
  await finish(marta, tom);
  away.proxy.close();
});
