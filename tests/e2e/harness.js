// Shared helpers of the browser tests: the server under test, a headless
// Chromium, and the moves a player makes in the web client.

import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, mkdirSync, existsSync, readFileSync, copyFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { before, after } from "node:test";
import { chromium } from "playwright-core";
import { ViewCopy } from "../../web/js/change.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..", "..");
/**
 * Screenshots go to tests/e2e/screenshots/ (ignored by git), so a test run
 * never changes the checkout. With BROADSIDE_SCREENSHOTS=docs/screenshots (a
 * folder, relative to the repository root) they are also copied there: that
 * is how the committed pictures are refreshed (scripts/screenshots.sh).
 */
export const screenshotDir = path.join(here, "screenshots");
const publishDir = process.env.BROADSIDE_SCREENSHOTS ? path.resolve(repoRoot, process.env.BROADSIDE_SCREENSHOTS) : null;

/** The broadside binary: $BROADSIDE_BIN, else the release build of the default target dir. */
export function binaryPath() {
  if (process.env.BROADSIDE_BIN) return process.env.BROADSIDE_BIN;
  const target = process.env.CARGO_TARGET_DIR || path.join(repoRoot, "target");
  return path.join(target, "release", "broadside");
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child, timeoutMs = 20000) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`the server exited early (code ${child.exitCode})`);
    const ok = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server did not listen on ${port}`);
}

/** The quick match offers a bot after this many seconds (scripts/e2e.sh passes the same). */
export const MATCH_WAIT_SECS = 3;

/**
 * A server process the test owns: it can be stopped and started again on the
 * same port and database (the restart test).
 */
export class ServerProcess {
  constructor({ port, db, botDelayMs = 40, matchWaitSecs = MATCH_WAIT_SECS }) {
    this.port = port;
    this.db = db;
    this.botDelayMs = botDelayMs;
    this.matchWaitSecs = matchWaitSecs;
    this.child = null;
    this.output = "";
  }

  // Pages open the server as localhost: passkeys need a secure context, and
  // the server's relying party is http://localhost on any port (docs/protocol.md, Accounts).
  get url() {
    return `http://localhost:${this.port}`;
  }

  async start() {
    const child = spawn(
      binaryPath(),
      [
        "serve", "--addr", `127.0.0.1:${this.port}`, "--db", this.db,
        "--bot-delay-ms", String(this.botDelayMs), "--match-wait-secs", String(this.matchWaitSecs),
        // Every browser of the tests comes from 127.0.0.1, so the per-address
        // limit on new rooms (10, then 10 a minute) is raised to what a whole
        // suite of players needs (scripts/e2e.sh passes the same).
        "--room-burst", "200", "--rooms-per-minute", "600",
        // A test machine busy with browsers must not turn new games away
        // (busy refusals have their own tests: crates/server/tests/operations.rs).
        "--busy-lag-ms", "0",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout.on("data", (d) => (this.output += d));
    child.stderr.on("data", (d) => (this.output += d));
    this.child = child;
    await waitForPort(this.port, child);
  }

  async stop(signal = "SIGTERM") {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    this.child = null;
  }
}

/**
 * A loopback address as the page opens it: 127.0.0.1 becomes localhost, the
 * origin the server's passkeys are bound to without `--public-origin`.
 */
export function asLocalhost(url) {
  return url.replace(/^http:\/\/127\.0\.0\.1(?=[:/]|$)/, "http://localhost");
}

/** A fresh temporary directory for a database; removed by the caller. */
export function tempDir() {
  return mkdtempSync(path.join(os.tmpdir(), "broadside-e2e-"));
}

/**
 * The server of a test file: the one scripts/e2e.sh started ($BROADSIDE_URL),
 * or one of our own when the tests run alone.
 */
export async function sharedServer() {
  if (process.env.BROADSIDE_URL) return { url: asLocalhost(process.env.BROADSIDE_URL.replace(/\/$/, "")), stop: async () => {} };
  return ownServer();
}

/**
 * A server of the test file's own, with a fresh SQLite file (`db`): for the
 * tests that act on its database as the operators do (`admin`).
 */
export async function ownServer() {
  const dir = tempDir();
  const server = new ServerProcess({ port: await freePort(), db: path.join(dir, "e2e.sqlite") });
  await server.start();
  return {
    url: server.url,
    db: server.db,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `broadside admin --db DB ARGS…`, what the people who run a server do
 * (docs/deploy.md, Moderation); resolves to what it printed.
 */
export function admin(db, ...args) {
  return new Promise((resolve, reject) => {
    execFile(binaryPath(), ["admin", "--db", db, ...args], (error, stdout, stderr) => {
      if (error) reject(new Error(`broadside admin ${args.join(" ")}: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

export async function launchBrowser() {
  // chromium.launch starts from a fresh, temporary user-data dir of its own
  // (and removes it on close), so every run begins with an empty profile.
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // Files fulfilled from disk count as public: let them reach the local server.
      ...(process.env.E2E_WEB_FROM_DISK ? ["--disable-features=LocalNetworkAccessChecks,LocalNetworkAccessChecksWebSockets"] : []),
    ],
  });
  return { browser, close: () => browser.close() };
}

/**
 * The server and the browser of one test file: started before its first test
 * and stopped after its last (`fixture.server.url`, `fixture.chromium.browser`).
 * With `own` the file has a server of its own even under scripts/e2e.sh, and
 * `fixture.server.db` is its database (for `admin`).
 */
export function fileFixture({ own = false } = {}) {
  const fixture = { server: null, chromium: null };
  before(async () => {
    fixture.server = own ? await ownServer() : await sharedServer();
    fixture.chromium = await launchBrowser();
  });
  after(async () => {
    await fixture.chromium?.close();
    await fixture.server?.stop();
  });
  return fixture;
}

/** A new player: an isolated browser context (its own localStorage) and a page. */
export async function newPlayer(browser, { locale = "en-GB", colorScheme = "light", width = 1360, height = 900, touch = false } = {}) {
  const context = await browser.newContext({ locale, colorScheme, viewport: { width, height }, deviceScaleFactor: 1, hasTouch: touch, isMobile: touch });
  if (process.env.E2E_WEB_FROM_DISK) await serveWebFromDisk(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => {
    page.errors = page.errors || [];
    page.errors.push(error);
  });
  // A Content-Security-Policy violation is an error of the page too: the
  // server's policy (docs/protocol.md, "HTTP headers") must let the client work.
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
      page.errors = page.errors || [];
      page.errors.push(new Error(message.text()));
    }
  });
  return { context, page };
}

/**
 * A quick loop while editing web/: the server embeds web/ when it is built, so
 * with E2E_WEB_FROM_DISK=1 the pages get the files from disk instead (the
 * WebSocket still goes to the server). scripts/e2e.sh never sets it.
 */
async function serveWebFromDisk(context) {
  const web = path.join(repoRoot, "web");
  const types = { js: "text/javascript", css: "text/css", json: "application/json", html: "text/html" };
  await context.route(/^http:\/\/(?:127\.0\.0\.1|localhost):\d+\/(?!ws)/, async (route) => {
    const url = new URL(route.request().url());
    const page = url.pathname === "/" || url.pathname.startsWith("/r/") || /^\/g\/\d+\/?$/.test(url.pathname);
    const file = page ? "index.html" : url.pathname.slice(1);
    const full = path.join(web, file);
    if (!full.startsWith(web) || !existsSync(full)) return route.continue();
    const ext = file.split(".").pop();
    await route.fulfill({ status: 200, contentType: types[ext] || "application/octet-stream", body: readFileSync(full) });
  });
}

/** A picture of the page, from its top or (`at`, a selector) with that element in the middle. */
export async function shoot(page, name, { at = null } = {}) {
  mkdirSync(screenshotDir, { recursive: true });
  // Let animations settle so the picture shows the resting state.
  await page.waitForTimeout(700);
  // Scrolling would move the board under a ship held in flight; leave it then.
  await page.evaluate((selector) => {
    if (document.body.classList.contains("dragging")) return;
    if (selector) document.querySelector(selector).scrollIntoView({ block: "center" });
    else window.scrollTo(0, 0);
  }, at);
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  if (publishDir) {
    mkdirSync(publishDir, { recursive: true });
    copyFileSync(file, path.join(publishDir, `${name}.png`));
  }
}

// ------------------------------------------------------------------ accounts

/**
 * A virtual authenticator for the page's browser context, through the
 * DevTools protocol's WebAuthn domain: it makes and keeps passkeys (resident
 * keys, the person verified at once). Kept on the page (`page.authenticator`).
 */
export async function virtualAuthenticator(page) {
  if (page.authenticator) return page.authenticator;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  page.authenticator = { cdp, authenticatorId };
  return page.authenticator;
}

/**
 * The guest of the page becomes an account named `username`, with a passkey
 * of a virtual authenticator: through the account panel, as a person would.
 * Returns the recovery codes shown once, and the authenticator.
 */
export async function signUp(page, username) {
  const authenticator = await virtualAuthenticator(page);
  await page.click("#header-account");
  await page.click("#account-create");
  await page.fill("#account-username", username);
  await page.click("#account-create-submit");
  await page.waitForSelector("#recovery-codes li", { timeout: 15000 });
  const codes = await page.$$eval("#recovery-codes code", (els) => els.map((el) => el.textContent));
  await page.click("#recovery-saved");
  await page.click("#account-close");
  await page.waitForSelector("#header-account.signed-in");
  return { codes, ...authenticator };
}

// ------------------------------------------------------------------ moves

export async function openHome(page, url, nickname) {
  await page.goto(url);
  await page.waitForSelector(".net-online");
  if (nickname) {
    await page.fill("#nick", nickname);
    await page.locator("#nick").press("Tab");
    // A new nickname is told with a fresh hello.
    await page.waitForSelector(".net-online");
  }
}

export async function chooseRules(page, preset) {
  await page.click(`.preset-card[data-preset="${preset}"]`);
}

/** Options the host sets in the lobby through its controls. */
export async function waitForLobby(page) {
  await page.waitForSelector(".lobby .code-big");
  return (await page.locator(".code-big").innerText()).replace(/\s/g, "");
}

/**
 * An invited guest follows the link: the page asks for a name (the remembered
 * one offered; `nickname` replaces it), then seats them in the lobby.
 */
export async function followInvite(page, invite, nickname) {
  await page.goto(invite);
  await page.waitForSelector("#invite-join");
  if (nickname) await page.fill("#nick", nickname);
  await page.click("#invite-join");
  await page.waitForSelector(".lobby .code-big");
}

export async function startGame(page) {
  await page.waitForSelector("#start:not([disabled])");
  await page.click("#start");
  await page.waitForSelector(".placement");
}

/** The host starts a game of people: every page places at random, and all reach the battle. */
export async function startToBattle(host, ...guests) {
  await startGame(host);
  for (const page of guests) await page.waitForSelector(".placement");
  for (const page of [host, ...guests]) await placeRandomAndReady(page);
  for (const page of [host, ...guests]) await page.waitForSelector(".battle");
}

export async function placeRandomAndReady(page) {
  await page.click("#random");
  await page.waitForSelector("#ready:not([disabled])");
  await page.click("#ready");
  await page.waitForSelector(".battle, .placement .ready-note", { timeout: 15000 });
}

/** What a board shows: its cells' classes, row by row, for comparisons. */
export async function boardMarks(page, selector) {
  return page.$$eval(`${selector} .cell`, (cells) => cells.map((c) => [...c.classList].filter((k) => k.startsWith("m-")).join("")).join(","));
}

/**
 * Fires one shot if it is this page's turn: a cell next to an unsunk hit if
 * there is one (so games end sooner), else the first unknown cell of a
 * checkerboard. `avoid` lists cells never to choose and `prefer` cells to
 * choose first ("board:col,row", see ownShipKeys). Returns false when it is
 * not this page's turn.
 */
export async function fireOnce(page, { avoid = [], prefer = [] } = {}) {
  const target = await page.evaluate(([avoid, prefer]) => {
    const banner = document.querySelector("#turn-banner.mine");
    if (!banner || !document.querySelector(".battle")) return null;
    // Checked in the same look as the turn, so a frame cannot slip in between.
    if (document.querySelector("#fire-volley")) return "volley";
    const board = document.querySelector(".target-board.armed");
    if (!board) return null;
    const at = (c, r) => board.querySelector(`.cell[data-col="${c}"][data-row="${r}"]`);
    // In the shared sea only the opponents' blocks are targets.
    const foe = (el) => el.dataset.block === undefined || el.classList.contains("blk-foe");
    const banned = new Set(avoid);
    const allowed = (el) => !banned.has(`${board.dataset.board}:${el.dataset.col},${el.dataset.row}`);
    const open = (el) => el && foe(el) && allowed(el) && (el.classList.contains("m-unknown") || el.classList.contains("m-scan_ship"));
    for (const key of prefer) {
      const [b, c, r] = key.split(/[:,]/);
      if (b === board.dataset.board && open(at(Number(c), Number(r)))) return [Number(c), Number(r)];
    }
    for (const hit of board.querySelectorAll(".cell.m-hit, .cell.m-hit_unknown_owner")) {
      const c = Number(hit.dataset.col);
      const r = Number(hit.dataset.row);
      for (const [dc, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
        const next = at(c + dc, r + dr);
        if (open(next)) return [c + dc, r + dr];
      }
    }
    const cells = [...board.querySelectorAll(".cell")].filter(open);
    const parity = cells.filter((el) => (Number(el.dataset.col) + Number(el.dataset.row)) % 2 === 0);
    const pick = (parity.length ? parity : cells)[0];
    return pick ? [Number(pick.dataset.col), Number(pick.dataset.row)] : null;
  }, [avoid, prefer]);
  if (!target) return false;
  if (target === "volley") return fireVolley(page);
  const cell = page.locator(`.target-board.armed .cell[data-col="${target[0]}"][data-row="${target[1]}"]`);
  const before = await cell.getAttribute("class");
  await cell.click();
  // Wait until the server's answer changed that cell (or the game ended).
  await page.waitForFunction(
    ([c, r, cls]) => {
      if (document.querySelector(".end")) return true;
      const el = document.querySelector(`.target-board .cell[data-col="${c}"][data-row="${r}"]`);
      return el && el.getAttribute("class") !== cls;
    },
    [target[0], target[1], before],
    { timeout: 15000 },
  );
  return true;
}

/** Plays until the end screen, firing whenever it is this page's turn. */
export async function playToEnd(pages, { maxSteps = 2000 } = {}) {
  for (let step = 0; step < maxSteps; step += 1) {
    for (const page of pages) {
      if (await page.locator(".end").count()) return;
    }
    let fired = false;
    for (const page of pages) {
      if (await fireOnce(page)) fired = true;
    }
    if (!fired) await pages[0].waitForTimeout(40);
  }
  throw new Error("the game did not end");
}

/** A brasil hard-rule volley: three unknown cells chosen, then fired together. */
async function fireVolley(page) {
  const cells = await page.$$eval(".target-board.armed .cell.m-unknown", (els) =>
    els
      .filter((el) => (Number(el.dataset.col) + Number(el.dataset.row)) % 2 === 0)
      .slice(0, 3)
      .map((el) => [Number(el.dataset.col), Number(el.dataset.row)]),
  );
  if (cells.length < 3) {
    const more = await page.$$eval(".target-board.armed .cell.m-unknown", (els) => els.slice(0, 3).map((el) => [Number(el.dataset.col), Number(el.dataset.row)]));
    cells.splice(0, cells.length, ...more);
  }
  if (!cells.length) return false;
  for (const [c, r] of cells) {
    const cell = `.target-board.armed .cell[data-col="${c}"][data-row="${r}"]`;
    await page.click(cell);
    await page.waitForSelector(`${cell}.chosen`, { timeout: 3000 }).catch(async () => {
      const chosen = await page.locator(".target-board .cell.chosen").count();
      const banner = await page.locator("#turn-banner").innerText().catch(() => "?");
      throw new Error(`volley cell ${c},${r} not chosen (chosen ${chosen}, banner ${banner})`);
    });
  }
  await page.waitForSelector("#fire-volley:not([disabled])");
  const [c0, r0] = cells[0];
  await page.click("#fire-volley");
  await page.waitForFunction(
    ([c, r]) => {
      if (document.querySelector(".end")) return true;
      const el = document.querySelector(`.target-board .cell[data-col="${c}"][data-row="${r}"]`);
      return el && !el.classList.contains("m-unknown");
    },
    [c0, r0],
    { timeout: 15000 },
  );
  return true;
}

// ------------------------------------------------------------------ games of three or more

/**
 * Records every WebSocket frame the page receives, from now on (register
 * before the page opens its socket).
 */
export function recordFrames(page) {
  const frames = [];
  page.on("websocket", (ws) => {
    // A `change` frame is recorded as the whole `state` it makes, built with
    // the page's own module (web/js/change.js) from this socket's frames, so
    // that the checks read whole views (docs/protocol.md, "State and change").
    const copy = new ViewCopy();
    ws.on("framereceived", ({ payload }) => {
      const raw = typeof payload === "string" ? payload : payload.toString();
      let frame = null;
      try {
        frame = JSON.parse(raw);
      } catch {
        frames.push(raw);
        return;
      }
      const state = frame.type === "state" || frame.type === "change" ? copy.receive(frame) : null;
      frames.push(state && frame.type === "change" ? JSON.stringify(state) : raw);
    });
  });
  return frames;
}

/** Records every WebSocket frame the page sends (register before the page opens its socket). */
export function recordSent(page) {
  const frames = [];
  page.on("websocket", (ws) => {
    ws.on("framesent", ({ payload }) => frames.push(JSON.parse(typeof payload === "string" ? payload : payload.toString())));
  });
  return frames;
}

/**
 * The cells of this page's own ships as "board:col,row" keys: what another
 * page of the same test may be told to avoid, so that a game lasts until every
 * ability has been used (the test knows both fleets; the pages never do).
 */
export async function ownShipKeys(page) {
  return page.evaluate(() => {
    const board = document.querySelector(".board-card.own .board");
    if (!board) return [];
    return [...board.querySelectorAll(".cell.m-ship")].map((el) => `${board.dataset.board}:${el.dataset.col},${el.dataset.row}`);
  });
}

/**
 * Checks that no state frame carried what its seat may not know (R-3.4, R-7.4,
 * no intact part ('*') on a board outside the seat's team, no
 * unsunk ship of another team in view.ships, no other team's fleet in space,
 * no other team's scans or reserve cells — unless the view has full vision
 * (an eliminated player, or the end). Returns how many state frames it read.
 */
export function checkFrames(frames, label = "") {
  let states = 0;
  let private_ = 0;
  for (const raw of frames) {
    const frame = JSON.parse(raw);
    if (frame.type !== "state") continue;
    states += 1;
    const v = frame.view;
    if (v.full_vision) continue;
    private_ += 1;
    const me = v.seat;
    const team = me === null ? null : v.seats[me].team;
    const friendly = (seat) => seat !== null && seat !== undefined && me !== null && v.seats[seat]?.team === team;
    const where = `${label} frame ${states} (seat ${me}, phase ${v.phase})`;
    if (v.mode === "shared_sea") {
      const size = v.board_size;
      v.boards[0].rows.forEach((row, r) => {
        [...row].forEach((ch, c) => {
          if (ch !== "*") return;
          const block = v.blocks.find((b) => c >= b.origin[0] && r >= b.origin[1] && c < b.origin[0] + size.cols && r < b.origin[1] + size.rows);
          if (!block || !friendly(block.owner)) throw new Error(`${where}: an intact part at ${c},${r} outside the own team's blocks`);
        });
      });
    } else {
      for (const board of v.boards) {
        if (friendly(board.owner)) continue;
        if (board.rows.some((row) => row.includes("*"))) throw new Error(`${where}: intact parts on the board of seat ${board.owner}`);
      }
    }
    for (const ship of v.ships) {
      if (!friendly(ship.owner) && !ship.sunk) throw new Error(`${where}: an unsunk ship of seat ${ship.owner} in view.ships`);
    }
    if (v.mode === "space") {
      for (const seat of v.seats) if (!friendly(seat.seat) && seat.fleet) throw new Error(`${where}: the fleet of seat ${seat.seat} in a space view`);
    }
    for (const e of frame.events || []) {
      if (e.event === "scan" && !friendly(e.seat)) throw new Error(`${where}: another team's scan`);
      if (e.event === "reinforced" && e.cells && !friendly(e.seat)) throw new Error(`${where}: another team's reserve cells`);
    }
  }
  return { states, private: private_ };
}

/**
 * Plays this page's salvo if one is due: on every opponent's tab (or block of
 * the shared sea) it chooses cells next to known hits first, then a
 * checkerboard, until the submit button comes on, and submits. `avoid` and
 * `prefer` are as in fireOnce; the answer awaited is a new state, the end, or
 * an element matching `refused` (a choice the refusal reopens). Returns false
 * when no salvo is due.
 */
export async function playSalvo(page, { avoid = [], prefer = [], refused = null } = {}) {
  const states = await page.evaluate(() => document.getElementById("app").dataset.states);
  const result = await page.evaluate(([avoid, prefer]) => {
    const submit = () => document.querySelector("#submit-salvo");
    if (!submit() || !document.querySelector("#turn-banner.mine")) return "none";
    const tried = new Set();
    for (let step = 0; step < 400; step += 1) {
      const button = submit();
      if (!button) return "gone";
      if (!button.disabled) {
        button.click();
        return "sent";
      }
      // A tab whose shots are not all chosen yet.
      const open = [...document.querySelectorAll(".sea-tab .due:not(.done)")].map((d) => d.closest(".sea-tab"));
      if (open.length && !open[0].classList.contains("active")) {
        open[0].click();
        continue;
      }
      const board = document.querySelector(".target-board.armed");
      if (!board) return "no-board";
      const full = new Set([...document.querySelectorAll(".block-due.done")].map((el) => el.dataset.block));
      const key = (el) => `${board.dataset.board}:${el.dataset.col},${el.dataset.row}`;
      const ok = (el) => el && !el.classList.contains("chosen") && !avoid.includes(key(el)) && (el.dataset.block === undefined || (el.classList.contains("blk-foe") && !full.has(el.dataset.block))) && (el.classList.contains("m-unknown") || el.classList.contains("m-scan_ship"));
      const at = (c, r) => board.querySelector(`.cell[data-col="${c}"][data-row="${r}"]`);
      let pick = null;
      for (const preferred of prefer) {
        const [b, c, r] = preferred.split(/[:,]/);
        const el = b === board.dataset.board ? at(Number(c), Number(r)) : null;
        if (ok(el) && !tried.has(key(el))) pick = pick || el;
      }
      for (const hit of board.querySelectorAll(".cell.m-hit, .cell.m-hit_unknown_owner")) {
        for (const [dc, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
          const next = at(Number(hit.dataset.col) + dc, Number(hit.dataset.row) + dr);
          if (ok(next) && !tried.has(key(next))) pick = pick || next;
        }
      }
      if (!pick) {
        const cells = [...board.querySelectorAll(".cell")].filter((el) => ok(el) && !tried.has(key(el)));
        const parity = cells.filter((el) => (Number(el.dataset.col) + Number(el.dataset.row)) % 2 === 0);
        pick = (parity.length ? parity : cells)[0];
      }
      if (!pick) return "stuck";
      tried.add(key(pick));
      pick.click();
    }
    return "gave-up";
  }, [avoid, prefer]);
  if (result === "none") return false;
  if (result !== "sent") throw new Error(`salvo: ${result}`);
  // The answer: the round goes on without this page (or resolves).
  await page.waitForFunction(([before, refused]) => document.getElementById("app").dataset.states !== before || document.querySelector(".end") || (refused && document.querySelector(refused)), [states, refused], { timeout: 20000 }).catch(async (error) => {
    const toast = await page.locator("#toast").innerText().catch(() => "");
    throw new Error(`the salvo got no answer (${toast}): ${error.message}`);
  });
  return true;
}

/** Plays salvo rounds and duel turns on every page until the end screen. */
export async function playMultiToEnd(pages, { maxSteps = 4000, each } = {}) {
  for (let step = 0; step < maxSteps; step += 1) {
    let ended = 0;
    for (const page of pages) if (await page.locator(".end").count()) ended += 1;
    if (ended === pages.length) return;
    let acted = false;
    for (const page of pages) {
      if (await page.locator(".end").count()) continue;
      if (each) await each(page);
      if (await playSalvo(page)) acted = true;
      else if (await fireOnce(page)) acted = true;
    }
    if (!acted) await pages[0].waitForTimeout(50);
  }
  throw new Error("the game did not end");
}

// ------------------------------------------------------------------ rated games

/** Resigns the page's game (accepting the question) and waits for the end screen. */
export async function resign(page) {
  page.once("dialog", (dialog) => dialog.accept());
  await page.click("#resign");
  await page.waitForSelector("#end-card");
}

/** Fires until `shots` shots have been fired over the pages (or the game ended). */
export async function fireShots(pages, shots) {
  for (let fired = 0; fired < shots; ) {
    let any = false;
    for (const page of pages) {
      if (await page.locator(".end").count()) return;
      if (await fireOnce(page)) {
        fired += 1;
        any = true;
      }
    }
    if (!any) await pages[0].waitForTimeout(40);
  }
}

/**
 * A loopback proxy to the server at `serverUrl` whose connections come from
 * `localAddress`: a browser behind it is another address to the server
 * (people of one address never rate each other). The server listens on
 * 127.0.0.1; the pages open the proxy as localhost (passkeys).
 */
export async function proxyFrom(serverUrl, localAddress) {
  const target = new URL(serverUrl);
  const proxy = net.createServer((client) => {
    const upstream = net.connect({ host: "127.0.0.1", port: Number(target.port), localAddress });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return { url: `http://localhost:${proxy.address().port}`, proxy };
}
