// The terminal signs in to an account (issue 36): `broadside play --server URL
// --login` runs in tmux and shows a code; a browser signed in to the account
// approves it (👤 → Approve a device); the terminal then shows "Signed in as
// NAME" and the account's rating, the one the server reports after a real
// rated game between two accounts of two addresses. Started again without
// --login, the terminal is still signed in (its token file keeps the session).

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  fileFixture,
  newPlayer,
  openHome,
  signUp,
  chooseRules,
  waitForLobby,
  followInvite,
  startGame,
  placeRandomAndReady,
  fireShots,
  resign,
  proxyFrom,
  binaryPath,
} from "./harness.js";

const fixture = fileFixture();

/** Names of this run only: the server of scripts/e2e.sh is shared by every test file. */
const suffix = String(Date.now() % 100000).padStart(5, "0");

/** A rated classic game between two accounts of two addresses: `winner` wins (the other resigns). */
async function ratedGame(winner, loser, loserUrl) {
  await chooseRules(winner.page, "classic");
  await winner.page.check("#home-rated", { force: true });
  await winner.page.waitForSelector("#home-rated:checked");
  await winner.page.click("#play-friend");
  await waitForLobby(winner.page);
  await winner.page.waitForSelector("#room-rated");
  const invite = new URL(await winner.page.inputValue("#invite-link"));
  await followInvite(loser.page, `${loserUrl}${invite.pathname}`);
  await loser.page.click("#ready");
  await winner.page.waitForSelector(".seats .ready-tag");
  await startGame(winner.page);
  await loser.page.waitForSelector(".placement");
  await placeRandomAndReady(winner.page);
  await placeRandomAndReady(loser.page);
  await winner.page.waitForSelector(".battle");
  await fireShots([winner.page, loser.page], 6);
  await resign(loser.page);
  await winner.page.waitForSelector("#end-card");
  await winner.page.click("#home");
}

/** The `account` frame of the page's session, asked on a socket of its own (as the terminal asks). */
async function accountOf(page) {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(`ws://${location.host}/ws`);
        const token = localStorage.getItem("broadside.token");
        socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "hello", token, nickname: "Check", lang: "en" })));
        socket.addEventListener("message", (message) => {
          const frame = JSON.parse(message.data);
          if (frame.type === "welcome") socket.send(JSON.stringify({ type: "account" }));
          if (frame.type === "account") {
            socket.close();
            resolve(frame);
          }
          if (frame.type === "error") reject(new Error(JSON.stringify(frame)));
        });
      }),
  );
}

/** The terminal client in a tmux server of its own (120×40), its config in `home`. */
class Terminal {
  constructor(home) {
    this.socket = `broadside-login-${process.pid}-${suffix}`;
    this.home = home;
  }

  tmux(...args) {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8", env: { ...process.env, TMUX: "" } });
  }

  /** Runs `broadside play` with `args`; the window prints EXITED <code> after it ends. */
  start(args) {
    const env = `HOME='${this.home}' XDG_CONFIG_HOME='${path.join(this.home, "config")}' LANG=C.UTF-8`;
    const command = `unset LC_ALL LC_MESSAGES; env ${env} '${binaryPath()}' play ${args}; echo EXITED $?; sleep 600`;
    this.tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", this.home, command);
  }

  screen() {
    return this.tmux("capture-pane", "-p", "-t", "0");
  }

  keys(...keys) {
    this.tmux("send-keys", "-t", "0", ...keys);
  }

  /** Waits until the screen matches `pattern`; returns the match. */
  async waitFor(pattern, what, timeoutMs = 20000) {
    const start = Date.now();
    let screen = "";
    while (Date.now() - start < timeoutMs) {
      screen = this.screen();
      const found = screen.match(pattern);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`waited ${timeoutMs} ms for ${what}; the terminal shows:\n${screen}`);
  }

  stop() {
    try {
      this.tmux("kill-server");
    } catch {
      // Already gone.
    }
  }
}

function tmuxInstalled() {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

test("the terminal's login code is approved in a browser and the terminal then shows the account's rating, on this run and the next", async () => {
  assert.ok(tmuxInstalled(), "tmux runs the terminal client (scripts/e2e.sh installs it)");
  assert.ok(existsSync(binaryPath()), `the broadside binary at ${binaryPath()}`);
  const username = `Tess${suffix}`;
  // Two accounts, two addresses: a real rated game gives Tess a rating.
  const tess = await newPlayer(fixture.chromium.browser);
  await openHome(tess.page, fixture.server.url, "Tess");
  await signUp(tess.page, username);
  const away = await proxyFrom(fixture.server.url, "127.0.0.2");
  const rui = await newPlayer(fixture.chromium.browser);
  await openHome(rui.page, away.url, "Rui");
  await signUp(rui.page, `Rui${suffix}`);
  await ratedGame(tess, rui, away.url);
  const account = await accountOf(tess.page);
  assert.equal(account.username, username);
  const classic = account.ratings.find((r) => r.preset === "classic");
  assert.ok(classic, `a classic rating after the rated game: ${JSON.stringify(account.ratings)}`);
  assert.equal(classic.games, 1);
  // As the terminal words it (crates/tui/src/words.rs, rating()).
  const rating = `Classic ${Math.round(classic.rating)}${classic.provisional ? "?" : ""}`;

  const home = mkdtempSync(path.join(os.tmpdir(), "broadside-terminal-login-"));
  const terminal = new Terminal(home);
  // The terminal speaks to the server's loopback address (localhost may be ::1 first).
  const server = fixture.server.url.replace("//localhost:", "//127.0.0.1:");
  try {
    terminal.start(`--server ${server} --login --lang en`);
    const [, code] = await terminal.waitFor(/Your code: ([A-Z0-9]{8})/, "the code");
    const shown = terminal.screen();
    assert.match(shown, /Open http:\/\/127\.0\.0\.1:\d+ in a browser/);
    assert.match(shown, /Approve a device/);
    assert.match(shown, /Valid for [45]:\d\d/);
    assert.match(shown, /█/, "the code in big letters");

    // Approved in the signed-in browser.
    await tess.page.click("#header-account");
    await tess.page.waitForSelector("#account-panel");
    await tess.page.click("#account-approve");
    await tess.page.fill("#account-approve-code", code);
    await tess.page.click("#account-approve-submit");
    await tess.page.waitForSelector("#account-done");
    assert.match(await tess.page.locator("#account-done").innerText(), /Approved/);

    await terminal.waitFor(new RegExp(`Signed in as ${username}`), "the account's name");
    await terminal.waitFor(new RegExp(`ratings: ${rating.replace("?", "\\?")}`), `the rating ${rating}`);
    const token = readFileSync(path.join(home, "config", "broadside", "token"), "utf8").trim();
    assert.match(token, /^[0-9a-f]{16,}$/i, "the new session's token is kept");

    // q quits; started again without --login it is still signed in.
    terminal.keys("q");
    await terminal.waitFor(/EXITED 0/, "the terminal to quit");
    terminal.stop();
    terminal.start(`--server ${server} --lang en`);
    await terminal.waitFor(new RegExp(`Signed in as ${username} · ratings: ${rating.replace("?", "\\?")}`), "the account on the next run");
    terminal.keys("q");
    await terminal.waitFor(/EXITED 0/, "the terminal to quit");
  } finally {
    terminal.stop();
    rmSync(home, { recursive: true, force: true });
    away.proxy.close();
  }
  for (const p of [tess, rui]) assert.deepEqual(p.page.errors || [], []);
  for (const p of [tess, rui]) await p.context.close();
});
