// Accounts in the browser (issue 36), in real Chromium with virtual
// authenticators (the DevTools protocol's WebAuthn domain): a guest with a
// finished game creates an account and keeps its history; a second browser
// signs in with the same (synced) passkey; a third is linked with a code the
// first shows; a device that asks for a code (as the terminal does) is
// approved; "sign out everywhere" turns the others into guests, who are told
// kindly; sign out, and back in with a recovery code. Guests see that a quick
// match is casual and that rated rooms need an account; refusals are worded.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileFixture, newPlayer, openHome, placeRandomAndReady, fireOnce, signUp, virtualAuthenticator, shoot } from "./harness.js";

const fixture = fileFixture();

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

/** The ids of the finished games "My games" lists, newest first. */
async function historyIds(page) {
  await page.waitForSelector("#history li");
  return page.$$eval("#history li", (items) => items.map((li) => li.dataset.game));
}

/** A game against an easy bot, from "Play vs bot" to a resignation after a few shots, then home. */
async function gameAgainstBot(page) {
  await page.selectOption("#bot-level", "easy");
  await page.click("#play-bot");
  await page.waitForSelector(".placement");
  await placeRandomAndReady(page);
  await page.waitForSelector(".battle");
  for (let fired = 0; fired < 3; ) {
    if (await fireOnce(page)) fired += 1;
    else await page.waitForTimeout(40);
  }
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#end-card");
  await page.click("#home");
}

/** The page's passkeys copied to another page's authenticator: a passkey synced to a second device. */
async function syncPasskeys(from, to) {
  const source = await virtualAuthenticator(from);
  const target = await virtualAuthenticator(to);
  const { credentials } = await source.cdp.send("WebAuthn.getCredentials", { authenticatorId: source.authenticatorId });
  assert.ok(credentials.length >= 1, "the first browser holds a passkey");
  for (const credential of credentials) await target.cdp.send("WebAuthn.addCredential", { authenticatorId: target.authenticatorId, credential });
}

async function openPanel(page) {
  await page.click("#header-account");
  await page.waitForSelector("#account-panel");
}

async function closePanel(page) {
  await page.click("#account-close");
  await page.waitForSelector("#account-panel", { state: "detached" });
}

/**
 * A device that asks for a code and waits for its approval, as the terminal's
 * `broadside play --login` does: a raw WebSocket of the page, outside the app.
 * Resolves to the code; `signedIn` resolves to the `signed_in` frame.
 */
async function requestLink(page) {
  await page.evaluate(() => {
    window.linkDevice = new Promise((resolveCode) => {
      const socket = new WebSocket(`ws://${location.host}/ws`);
      window.linkSignedIn = new Promise((resolveSignedIn) => {
        socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "hello", token: null, nickname: "Terminal", lang: "en" })));
        socket.addEventListener("message", (message) => {
          const frame = JSON.parse(message.data);
          if (frame.type === "welcome") socket.send(JSON.stringify({ type: "link_request" }));
          if (frame.type === "link_code") resolveCode(frame.code);
          if (frame.type === "signed_in") resolveSignedIn(frame);
        });
      });
    });
  });
  return page.evaluate(() => window.linkDevice);
}

test("a guest's games stay with the new account; a synced passkey, a link code and an approval sign in other browsers; sign out everywhere makes them guests", async () => {
  const ada = await player("Ada Lovelace");
  // A guest is told before the queue that a quick match would be casual.
  await ada.page.waitForSelector("#play-now-casual");
  await gameAgainstBot(ada.page);
  const guestGames = await historyIds(ada.page);
  assert.equal(guestGames.length, 1);

  // Create account: a username (its rules said beside the field), a passkey, the recovery codes once.
  await openPanel(ada.page);
  await ada.page.click("#account-create");
  assert.match(await ada.page.locator("#account-username-hint").innerText(), /3 to 24 characters/);
  await ada.page.click("#account-back");
  await ada.page.waitForSelector("#account-create");
  await closePanel(ada.page);
  const { codes } = await signUp(ada.page, "Ada");
  assert.equal(codes.length, 10);
  for (const code of codes) assert.match(code, /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  assert.match(await ada.page.locator("#header-account").innerText(), /Ada/);
  assert.equal(await ada.page.locator("#play-now-casual").count(), 0, "an account's quick match may be rated");
  assert.deepEqual(await historyIds(ada.page), guestGames, "the guest's game is the account's");
  // A reload keeps the session (its welcome names the account).
  await ada.page.reload();
  await ada.page.waitForSelector("#header-account.signed-in");
  assert.deepEqual(await historyIds(ada.page), guestGames);
  // The account panel: one passkey, one session, ten recovery codes left; the codes are not shown again.
  await openPanel(ada.page);
  await ada.page.waitForSelector("#passkey-list li");
  assert.equal(await ada.page.locator("#account-name").innerText(), "Ada");
  assert.equal(await ada.page.locator("#passkey-list li").count(), 1);
  assert.match(await ada.page.locator("#account-sessions").innerText(), /^1 device/);
  assert.match(await ada.page.locator("#account-recovery-left").innerText(), /^10 left/);
  assert.equal(await ada.page.locator("#recovery-codes").count(), 0);
  await closePanel(ada.page);

  // A second browser with the passkey synced to it signs in with the username.
  const bea = await player("Somebody");
  await syncPasskeys(ada.page, bea.page);
  await openPanel(bea.page);
  await bea.page.click("#account-sign-in");
  await bea.page.fill("#account-username", "ada");
  await bea.page.click("#account-sign-in-submit");
  await bea.page.waitForSelector("#header-account.signed-in");
  await bea.page.waitForSelector("#account-done");
  assert.match(await bea.page.locator("#account-done").innerText(), /Signed in as Ada/);
  await bea.page.waitForSelector("#account-name");
  await closePanel(bea.page);
  assert.deepEqual(await historyIds(bea.page), guestGames, "the second browser sees the same history");
  // The account's name comes with the session, not the browser's old one.
  assert.equal(await bea.page.inputValue("#nick"), "Ada Lovelace");

  // A third browser, without a passkey, is linked with the code the first one shows.
  await openPanel(ada.page);
  await ada.page.click("#account-offer");
  await ada.page.waitForSelector("#link-code[data-code]");
  const code = await ada.page.locator("#link-code").getAttribute("data-code");
  assert.match(code, /^[A-Z0-9]{8}$/);
  assert.match(await ada.page.locator("#link-countdown").innerText(), /Valid for (5:00|4:5\d)/);
  const cleo = await player("Cleo");
  await openPanel(cleo.page);
  await cleo.page.click("#account-redeem");
  await cleo.page.fill("#account-link-code", code.toLowerCase());
  await cleo.page.click("#account-redeem-submit");
  await cleo.page.waitForSelector("#header-account.signed-in");
  await closePanel(cleo.page);
  assert.deepEqual(await historyIds(cleo.page), guestGames, "the linked browser sees the same history");
  // A code works once.
  const dora = await player("Dora");
  await openPanel(dora.page);
  await dora.page.click("#account-redeem");
  await dora.page.fill("#account-link-code", code);
  await dora.page.click("#account-redeem-submit");
  await dora.page.waitForSelector("#account-problem");
  assert.match(await dora.page.locator("#account-problem").innerText(), /unknown, used or expired/);
  await dora.page.click("#account-back");

  // The other way: a device shows a code (as the terminal does) and the account approves it.
  const asked = await requestLink(dora.page);
  await ada.page.click("#account-back");
  await ada.page.click("#account-approve");
  await ada.page.fill("#account-approve-code", asked);
  await ada.page.click("#account-approve-submit");
  await ada.page.waitForSelector("#account-done");
  assert.match(await ada.page.locator("#account-done").innerText(), /Approved/);
  const signedIn = await dora.page.evaluate(() => window.linkSignedIn);
  assert.equal(signedIn.username, "Ada");
  await shoot(ada.page, "en-account");

  // Sign out everywhere (asked first): the others are closed, told, and become guests.
  await ada.page.click("#account-everywhere");
  await ada.page.waitForSelector("#everywhere-question");
  await ada.page.click("#account-everywhere-confirm");
  await ada.page.waitForSelector("#account-done");
  assert.match(await ada.page.locator("#account-done").innerText(), /Every other device is signed out/);
  await ada.page.waitForFunction(() => /^1 device/.test(document.querySelector("#account-sessions")?.textContent || ""));
  for (const other of [bea, cleo]) {
    await other.page.waitForSelector("#signed-out-elsewhere", { timeout: 10000 });
    assert.match(await other.page.locator("#signed-out-elsewhere").innerText(), /signed out from another one/);
    await other.page.waitForSelector('#account-panel[data-signed-in="0"] #account-create');
    await other.page.waitForSelector(".net-online");
    if (other === bea) await shoot(bea.page, "en-signed-out-elsewhere");
    await closePanel(other.page);
    await other.page.waitForSelector("#header-account:not(.signed-in)");
    // A new guest: the account's games are not this browser's any more.
    await other.page.waitForFunction(() => !document.querySelector("#history") && /No finished games/i.test(document.querySelector(".my-games")?.textContent || ""));
  }
  // The first browser is still signed in, with its games.
  assert.deepEqual(await historyIds(ada.page), guestGames);

  // Sign out here: a guest again. Then back in with a recovery code (once).
  await ada.page.click("#account-sign-out");
  await ada.page.waitForSelector('#account-panel[data-signed-in="0"]');
  await ada.page.waitForSelector("#header-account:not(.signed-in)");
  await ada.page.click("#account-recover");
  await ada.page.fill("#account-username", "Ada");
  await ada.page.fill("#account-recovery-code", codes[0].toLowerCase().replace(/-/g, " "));
  await ada.page.click("#account-recover-submit");
  await ada.page.waitForSelector("#header-account.signed-in");
  await ada.page.waitForFunction(() => /^9 left/.test(document.querySelector("#account-recovery-left")?.textContent || ""));
  assert.deepEqual(await historyIds(ada.page), guestGames);
  // The same code does not work twice.
  await ada.page.click("#account-sign-out");
  await ada.page.waitForSelector('#account-panel[data-signed-in="0"]');
  await ada.page.click("#account-recover");
  await ada.page.fill("#account-username", "Ada");
  await ada.page.fill("#account-recovery-code", codes[0]);
  await ada.page.click("#account-recover-submit");
  await ada.page.waitForSelector("#account-problem");
  assert.match(await ada.page.locator("#account-problem").innerText(), /No account with that username/);
  await finish(ada, bea, cleo, dora);
});

test("a guest's quick match is casual and says why; an account's may be rated; a rated room asks a guest to sign in", async () => {
  const guest = await player("Gus", { locale: "pt-BR" });
  await guest.page.waitForSelector("#play-now-casual");
  assert.match(await guest.page.locator("#play-now-casual").innerText(), /casuais/);
  await guest.page.click("#play-now");
  await guest.page.waitForSelector('#matching-rated[data-rated="0"]');
  assert.match(await guest.page.locator("#matching-rated").innerText(), /convidados jogam sem ranking/);
  await shoot(guest.page, "pt-BR-quick-match-casual");
  await guest.page.click("#cancel-match");
  await guest.page.waitForSelector("#play-now");

  // The link beside the note opens the account panel; Escape closes it.
  await guest.page.click("#play-now-casual .link-button");
  await guest.page.waitForSelector("#account-panel #account-create");
  await guest.page.keyboard.press("Escape");
  await guest.page.waitForSelector("#account-panel", { state: "detached" });

  // A rated room: the guest's switch shows the way to an account instead.
  await guest.page.click("#play-friend");
  await guest.page.waitForSelector(".lobby .code-big");
  await guest.page.click("#opt-rated", { force: true });
  await guest.page.waitForSelector("#rated-needs-account");
  assert.equal(await guest.page.isChecked("#opt-rated"), false);
  await guest.page.click("#rated-needs-account .link-button");
  await guest.page.waitForSelector("#account-panel #account-create");

  // Once an account (made right there in the lobby), the room is made rated; the quick match may be rated.
  await guest.page.click("#account-close");
  await signUp(guest.page, "Gus Rated");
  await guest.page.waitForSelector(".lobby .code-big");
  await guest.page.check("#opt-rated", { force: true });
  await guest.page.waitForSelector("#room-rated");
  assert.equal(await guest.page.locator("#rated-needs-account").count(), 0);
  await guest.page.click("#leave");
  await guest.page.waitForSelector("#play-now");
  await guest.page.click("#play-now");
  await guest.page.waitForSelector('#matching-rated[data-rated="1"]');
  await guest.page.click("#cancel-match");
  await guest.page.waitForSelector("#play-now");
  await finish(guest);
});

test("refusals are worded in the page's language: a taken username, an unknown one, a wrong code", async () => {
  const first = await player("Eva", { locale: "es-ES" });
  await signUp(first.page, "Eva Mar");
  const second = await player("Otra", { locale: "es-ES" });
  await virtualAuthenticator(second.page);
  await openPanel(second.page);
  // Too short: said before anything is sent.
  await second.page.click("#account-create");
  await second.page.fill("#account-username", "Ev");
  await second.page.click("#account-create-submit");
  await second.page.waitForSelector("#account-problem");
  assert.match(await second.page.locator("#account-problem").innerText(), /al menos 3 caracteres/);
  // Another case of a name in use is the same name.
  await second.page.fill("#account-username", "EVA MAR");
  await second.page.click("#account-create-submit");
  await second.page.waitForFunction(() => /ya existe/.test(document.querySelector("#account-problem")?.textContent || ""));
  await second.page.click("#account-back");
  // Nobody has this name.
  await second.page.click("#account-sign-in");
  await second.page.fill("#account-username", "Nadie Aquí");
  await second.page.click("#account-sign-in-submit");
  await second.page.waitForFunction(() => /No hay ninguna cuenta/.test(document.querySelector("#account-problem")?.textContent || ""));
  await second.page.click("#account-back");
  // A wrong link code.
  await second.page.click("#account-redeem");
  await second.page.fill("#account-link-code", "ABCDEFGH");
  await second.page.click("#account-redeem-submit");
  await second.page.waitForFunction(() => /caducó/.test(document.querySelector("#account-problem")?.textContent || ""));
  await shoot(second.page, "es-account-refused");
  await finish(first, second);
});
