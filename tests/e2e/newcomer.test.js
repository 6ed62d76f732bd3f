// A newcomer's first minute (issue 15): choosing a name, the first screens, the
// way to a first shot against a bot, an invited guest, and the chat's unread
// count across a reload.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileFixture, newPlayer, openHome, recordSent, recordFrames, placeRandomAndReady, waitForLobby, startGame, fireOnce, followInvite, startToBattle } from "./harness.js";

const fixture = fileFixture();

/** Whether a toast is on show, and its text. */
async function shownToast(page) {
  return page.evaluate(() => {
    const el = document.querySelector("#toast.show");
    return el ? el.textContent : null;
  });
}

test("a name the server would refuse is explained beside the field and never sent", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  const sent = recordSent(page);
  await openHome(page, fixture.server.url, "Ana");
  const hellos = () => sent.filter((f) => f.type === "hello").length;
  // The hello with the new name has gone out, and was welcomed.
  while (!sent.some((f) => f.type === "hello" && f.nickname === "Ana")) await page.waitForTimeout(20);
  await page.waitForSelector(".net-online");
  const before = hellos();

  // Cleared and left: the field says why, the connection stays as it was.
  await page.fill("#nick", "");
  await page.locator("#nick").press("Tab");
  await page.waitForSelector("#nick-error:not([hidden])");
  assert.match(await page.locator("#nick-error").innerText(), /at least one letter.*You still sail as Ana/s);
  assert.equal(await page.getAttribute("#nick", "aria-invalid"), "true");
  await page.waitForTimeout(600);
  assert.equal(await page.locator(".net-online").count(), 1, "still online");
  assert.equal(await shownToast(page), null, "no toast");
  assert.equal(hellos(), before, "no hello with an empty name");

  // Invisible characters are refused the same way (the server's rule).
  await page.fill("#nick", "Ana\u200B");
  await page.locator("#nick").press("Tab");
  await page.waitForFunction(() => /invisible/.test(document.querySelector("#nick-error").textContent));
  assert.equal(hellos(), before);

  // A game cannot start under a name that is not one: the field gets the focus.
  await page.fill("#nick", "   ");
  await page.click("#play-bot");
  await page.waitForFunction(() => document.activeElement?.id === "nick");
  assert.equal(await page.locator(".home").count(), 1, "still on the home page");
  assert.match(await page.locator("#nick-error").innerText(), /at least one letter/);

  // A reload keeps the last good name.
  await page.reload();
  await page.waitForSelector(".net-online");
  assert.equal(await page.inputValue("#nick"), "Ana");

  // Typing a good name clears the complaint as soon as it is fixed.
  await page.fill("#nick", "");
  await page.locator("#nick").press("Tab");
  await page.waitForSelector("#nick-error:not([hidden])");
  await page.fill("#nick", "Bea");
  assert.equal(await page.locator("#nick-error").isHidden(), true);
  await page.locator("#nick").press("Tab");
  await page.waitForFunction(() => document.querySelector(".net-online") && localStorage.getItem("broadside.nickname") === "Bea");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("a hello the server refuses leaves the connection usable under the last good name", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Carla");
  // The page checks names before sending them; a server that still refuses one
  // (say, a newer Unicode table) must not wedge the link.
  await page.evaluate(async () => {
    window.link = (await import("/js/app.js")).getLink();
  });
  await page.waitForFunction(() => window.link.accepted === "Carla" && window.link.ready);
  await page.evaluate(() => window.link.reconnectAs("", "en"));
  await page.waitForSelector("#nick-error:not([hidden])");
  await page.waitForSelector(".net-online");
  assert.match(await page.locator("#nick-error").innerText(), /did not accept.*Carla/s);
  assert.equal(await shownToast(page), null, "no toast of a request not understood");
  await page.click("#play-bot");
  await page.waitForSelector(".placement, .lobby");
  assert.equal(await page.evaluate(() => localStorage.getItem("broadside.nickname")), "Carla");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("a click is not lost to a redraw that a frame brings between press and release", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Bruno");
  await page.evaluate(async () => {
    window.link = (await import("/js/app.js")).getLink();
  });
  await page.waitForFunction(() => window.link.ready);
  await page.locator("#play-bot").scrollIntoViewIfNeeded();
  const box = await page.locator("#play-bot").boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // A frame arrives while the button is held (as the open rooms, a chat line
  // or another seat's move may at any time); the page redraws.
  await page.evaluate(() => window.link.onFrame({ type: "server_notice_for_test" }));
  await page.mouse.up();
  await page.waitForSelector(".placement", { timeout: 10000 });
  await context.close();
});

test("a toast about one screen does not follow to the next", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Dora");
  await page.fill("#join-code", "ZZZZZZ");
  await page.click("#join");
  await page.waitForSelector("#toast.show.error");
  await page.click("#play-friend");
  await page.waitForSelector(".lobby .code-big");
  assert.equal(await shownToast(page), null, "the home page's error is gone in the lobby");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

/** How far the page is scrolled, and whether the screen's title is in view. */
async function topOfScreen(page) {
  return page.evaluate(() => {
    // The screen's first part: the room's title and code, or the turn banner.
    const box = document.querySelector("main > *").getBoundingClientRect();
    return { scrollY: window.scrollY, titleInView: box.top >= 0 && box.bottom <= window.innerHeight };
  });
}

for (const preset of ["classic", "brasil", "space"]) {
  test(`every screen starts at its top: the lobby and the first screen of a bot game (${preset})`, async () => {
    const { context, page } = await newPlayer(fixture.chromium.browser, { height: 640 });
    await openHome(page, fixture.server.url, "Eva");
    await page.click(`.preset-card[data-preset="${preset}"]`);
    for (const button of ["#play-friend", "#play-bot"]) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.click(button);
      await page.waitForSelector(".lobby, .placement, .shop");
      await page.waitForTimeout(200);
      assert.deepEqual(await topOfScreen(page), { scrollY: 0, titleInView: true }, `after ${button}`);
      if (await page.locator(".lobby").count()) {
        const link = await page.locator("#invite-link").boundingBox();
        assert.ok(link.y + link.height <= 640, "the invite link is in view");
      }
      await page.click(".brand");
      await page.waitForSelector(".home");
    }
    assert.deepEqual(page.errors || [], []);
    await context.close();
  });
}

/** The rules of the room as the server last told this page. */
function lastRules(frames) {
  const rooms = frames.map((raw) => JSON.parse(raw)).filter((f) => f.type === "room");
  return rooms[rooms.length - 1].room.rules;
}

test("Play vs bot: one click to placement, and no clock unless asked for", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  const frames = recordFrames(page);
  const sent = recordSent(page);
  await openHome(page, fixture.server.url, "Flor");
  await page.click('.preset-card[data-preset="classic"]');
  await page.click("#play-bot");
  // Straight to placement: no lobby, no "Start the game".
  await page.waitForSelector(".placement #random");
  assert.equal(sent.filter((f) => f.type === "start").length, 1, "the page started the game itself");
  const rules = lastRules(frames);
  assert.equal(rules.turn_seconds, 0, "no turn clock against a bot");
  assert.equal(rules.place_seconds, 0, "no placement clock against a bot");
  assert.equal(await page.locator("#turn-banner .clock").count(), 0);
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #turn-banner");
  assert.equal(await page.locator("#turn-banner .clock").count(), 0, "no clock in the battle");
  await page.waitForSelector("#turn-banner.mine");
  assert.ok(await fireOnce(page), "a shot at the bot");
  await page.click(".brand");

  // Space goes straight to its shop.
  await page.click('.preset-card[data-preset="space"]');
  await page.click("#play-bot");
  await page.waitForSelector(".shop");
  assert.equal(lastRules(frames).shop_seconds, 0, "no shop clock against a bot");
  await page.click(".brand");

  // The shared sea keeps its lobby: how many play is the choice there.
  await page.click('.preset-card[data-preset="shared"]');
  await page.click("#play-bot");
  await waitForLobby(page);
  assert.equal(await page.locator("#seat-count").count(), 1);
  assert.equal(await page.locator(".seats .seat-bot").count(), 1);
  await page.click(".brand");

  // Asked for: "Choose the options first" opens the lobby, where a turn clock can be set.
  await page.click('.preset-card[data-preset="classic"]');
  await page.click("#play-bot-setup");
  await waitForLobby(page);
  assert.match(await page.locator(".rule-summary").innerText(), /No turn clock/);
  await page.fill("#opt-turn", "45");
  await page.locator("#opt-turn").press("Tab");
  await page.waitForFunction(() => /45 seconds per turn/.test(document.querySelector(".rule-summary").textContent));
  await startGame(page);
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle #turn-banner .clock");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

test("an invited guest chooses a name before taking a seat, and it is remembered", async () => {
  const host = await newPlayer(fixture.chromium.browser);
  await openHome(host.page, fixture.server.url, "Gil");
  await host.page.click("#play-friend");
  await waitForLobby(host.page);
  const invite = await host.page.inputValue("#invite-link");

  const guest = await newPlayer(fixture.chromium.browser, { locale: "pt-BR" });
  const sent = recordSent(guest.page);
  const joins = () => sent.filter((f) => f.type === "join_room").length;
  await guest.page.goto(invite);
  await guest.page.waitForSelector("#invite-join");
  await guest.page.waitForSelector(".net-online");
  // A first visit: no made-up name is offered, the field has the focus, and no seat is taken yet.
  assert.equal(await guest.page.inputValue("#nick"), "");
  assert.equal(await guest.page.evaluate(() => document.activeElement?.id), "nick");
  assert.equal(joins(), 0);
  assert.equal(await host.page.locator(".seats .seat-person").count(), 1);
  // Without a name the seat waits.
  await guest.page.click("#invite-join");
  await guest.page.waitForSelector("#nick-error:not([hidden])");
  assert.equal(joins(), 0);
  // Enter in the field joins under the name typed.
  await guest.page.fill("#nick", "Bia");
  await guest.page.press("#nick", "Enter");
  await guest.page.waitForSelector(".lobby .code-big");
  await host.page.waitForSelector(".seats .seat-person:has-text('Bia')");
  assert.equal(await guest.page.evaluate(() => localStorage.getItem("broadside.nickname")), "Bia");

  // A reload in the room goes straight back in.
  await guest.page.reload();
  await guest.page.waitForSelector(".lobby .code-big");
  assert.equal(await guest.page.locator("#invite-join").count(), 0);

  // The next invitation offers the remembered name.
  await host.page.click("#leave");
  await host.page.click("#play-friend");
  await waitForLobby(host.page);
  const second = await host.page.inputValue("#invite-link");
  await guest.page.goto(second);
  await guest.page.waitForSelector("#invite-join");
  assert.equal(await guest.page.inputValue("#nick"), "Bia");
  await guest.page.click("#invite-join");
  await guest.page.waitForSelector(".lobby .code-big");
  await host.page.waitForSelector(".seats .seat-person:has-text('Bia')");
  assert.deepEqual(host.page.errors || [], []);
  assert.deepEqual(guest.page.errors || [], []);
  await host.context.close();
  await guest.context.close();
});

test("an invitation to a room that is gone leads home, saying so", async () => {
  const { context, page } = await newPlayer(fixture.chromium.browser);
  await openHome(page, fixture.server.url, "Hugo");
  await page.goto(`${fixture.server.url}/r/ZZZZZZZZZZ`);
  await page.waitForSelector("#invite-join");
  assert.equal(await page.inputValue("#nick"), "Hugo");
  await page.click("#invite-join");
  await page.waitForSelector(".home");
  assert.ok(await shownToast(page), "the toast says the room was not found");
  assert.equal(await page.evaluate(() => location.pathname), "/");
  assert.deepEqual(page.errors || [], []);
  await context.close();
});

/** The number on the chat tab, or null when it has none. */
async function unreadBadge(page) {
  const badge = page.locator("#tab-chat .unread");
  return (await badge.count()) ? badge.innerText() : null;
}

test("the chat's unread count: what was read stays read, also after a reload", async () => {
  const host = await newPlayer(fixture.chromium.browser);
  const guest = await newPlayer(fixture.chromium.browser, { locale: "pt-PT" });
  const heard = recordFrames(host.page);
  const chats = () => heard.filter((raw) => JSON.parse(raw).type === "chat").length;
  await openHome(host.page, fixture.server.url, "Ines");
  await host.page.click("#play-friend");
  await waitForLobby(host.page);
  await followInvite(guest.page, await host.page.inputValue("#invite-link"), "Joana");
  const say = async (text) => {
    await guest.page.fill("#chat-input", text);
    await guest.page.press("#chat-input", "Enter");
    await guest.page.waitForSelector(`.chat-list li:has-text('${text}')`);
  };

  // Said in the lobby, where the host's chat is on the screen: read there.
  await say("Olá!");
  await host.page.waitForSelector(".chat-list li:has-text('Olá!')");
  await startToBattle(host.page, guest.page);
  assert.equal(await unreadBadge(host.page), null, "a message read in the lobby is no news in the battle");

  // Said in the battle while the host looks at the log: one unread, gone once read.
  await guest.page.click("#tab-chat");
  await say("Boa sorte!");
  await host.page.waitForFunction(() => document.querySelector("#tab-chat .unread")?.textContent === "1");
  await host.page.click("#tab-chat");
  assert.equal(await unreadBadge(host.page), null);
  await host.page.click("#tab-log");
  assert.equal(await unreadBadge(host.page), null);

  // A reload replays the room's last messages: none of them is counted again.
  const before = chats();
  await host.page.reload();
  await host.page.waitForSelector(".battle");
  while (chats() < before + 2) await host.page.waitForTimeout(20);
  await host.page.waitForTimeout(100);
  assert.equal(await unreadBadge(host.page), null, "no badge for messages already read");
  // A new message is counted alone.
  await say("Fogo!");
  await host.page.waitForFunction(() => document.querySelector("#tab-chat .unread")?.textContent === "1");
  assert.deepEqual(host.page.errors || [], []);
  assert.deepEqual(guest.page.errors || [], []);
  await host.context.close();
  await guest.context.close();
});
