// Colour-blind safety (UI.md "Look"): under a deuteranopia filter the shot
// results of a real game still look different from each other, in the light
// and in the dark scheme. Chromium's own vision-deficiency emulation renders
// the page; the pixels of each kind of cell are compared.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileFixture, newPlayer, openHome, chooseRules, placeRandomAndReady, fireOnce, shoot } from "./harness.js";

const fixture = fileFixture();

/** The kinds of target cells a player must tell apart, by their CSS class. */
const KINDS = ["unknown", "miss", "water", "hit", "sunk"];

/** Fires (next to hits first) until the target board shows every kind. */
async function fireUntilEveryKind(page) {
  // Bounded by time, not by steps: while the bot plays (after every miss, and
  // for as long as it keeps hitting) each step only waits, and a slow machine
  // spends many steps there.
  const deadline = Date.now() + 120000;
  let missing = KINDS;
  while (Date.now() < deadline) {
    const look = await page.evaluate((kinds) => {
      const board = document.querySelector(".target-board");
      return { missing: kinds.filter((k) => !board?.querySelector(`.cell.m-${k}`)), ended: !!document.querySelector(".end") };
    }, KINDS);
    missing = look.missing;
    if (!missing.length) return;
    if (look.ended) throw new Error(`the game ended before the board showed ${missing.join(", ")}`);
    if (missing.length === 1 && missing[0] === "hit") {
      // Everything but an open hit: fire away from the hits until one appears.
      if (!(await fireAwayFromHits(page))) await page.waitForTimeout(40);
      continue;
    }
    if (!(await fireOnce(page))) await page.waitForTimeout(40);
  }
  const banner = await page.evaluate(() => document.querySelector("#turn-banner")?.textContent?.trim());
  throw new Error(`in two minutes the board never showed ${missing.join(", ")} (the turn banner says "${banner}")`);
}

/** One shot at an unknown cell with no hit or sunk part beside it. */
async function fireAwayFromHits(page) {
  const target = await page.evaluate(() => {
    if (!document.querySelector("#turn-banner.mine")) return null;
    const board = document.querySelector(".target-board.armed");
    if (!board) return null;
    const at = (c, r) => board.querySelector(`.cell[data-col="${c}"][data-row="${r}"]`);
    for (const el of board.querySelectorAll(".cell.m-unknown")) {
      const c = Number(el.dataset.col);
      const r = Number(el.dataset.row);
      const near = [[1, 0], [-1, 0], [0, 1], [0, -1]].some(([dc, dr]) => {
        const n = at(c + dc, r + dr);
        return n && (n.classList.contains("m-hit") || n.classList.contains("m-sunk"));
      });
      if (!near) return [c, r];
    }
    return null;
  });
  if (!target) return false;
  const cell = page.locator(`.target-board.armed .cell[data-col="${target[0]}"][data-row="${target[1]}"]`);
  const before = await cell.getAttribute("class");
  await cell.click();
  await page.waitForFunction(
    ([c, r, cls]) => document.querySelector(`.target-board .cell[data-col="${c}"][data-row="${r}"]`)?.getAttribute("class") !== cls,
    [target[0], target[1], before],
    { timeout: 15000 },
  );
  return true;
}

/**
 * The mean colour of each kind of cell on the target board as rendered under
 * deuteranopia: the board's screenshot is taken with the filter on, then read
 * back pixel by pixel in a canvas (the inner part of each cell, without its
 * border).
 */
async function filteredColours(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setEmulatedVisionDeficiency", { type: "deuteranopia" });
  const board = page.locator(".target-board");
  // Let the last shot's animation settle.
  await page.waitForTimeout(700);
  const box = await board.boundingBox();
  const cells = await page.evaluate((kinds) => {
    const out = [];
    for (const kind of kinds) {
      for (const el of document.querySelectorAll(`.target-board .cell.m-${kind}`)) {
        const r = el.getBoundingClientRect();
        out.push({ kind, x: r.x, y: r.y, w: r.width, h: r.height });
      }
    }
    return out;
  }, KINDS);
  const png = await board.screenshot();
  await cdp.send("Emulation.setEmulatedVisionDeficiency", { type: "none" });
  return page.evaluate(
    async ({ data, cells, origin }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const ctx = canvas.getContext("2d");
      ctx.drawImage(image, 0, 0);
      const sums = {};
      for (const c of cells) {
        const x0 = Math.round(c.x - origin.x + c.w * 0.2);
        const y0 = Math.round(c.y - origin.y + c.h * 0.2);
        const w = Math.max(1, Math.round(c.w * 0.6));
        const h = Math.max(1, Math.round(c.h * 0.6));
        const px = ctx.getImageData(x0, y0, w, h).data;
        const s = (sums[c.kind] ??= [0, 0, 0, 0]);
        for (let i = 0; i < px.length; i += 4) {
          s[0] += px[i];
          s[1] += px[i + 1];
          s[2] += px[i + 2];
          s[3] += 1;
        }
      }
      const means = {};
      for (const [kind, s] of Object.entries(sums)) means[kind] = [s[0] / s[3], s[1] / s[3], s[2] / s[3]];
      return means;
    },
    { data: png.toString("base64"), cells, origin: { x: box.x, y: box.y } },
  );
}

const distance = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const luminance = (c) => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];

for (const scheme of ["light", "dark"]) {
  test(`shot results stay distinct under deuteranopia (${scheme} scheme)`, async () => {
    const { page, context } = await newPlayer(fixture.chromium.browser, { colorScheme: scheme });
    await openHome(page, fixture.server.url, "Iris");
    await chooseRules(page, "classic");
    // An easy bot: a medium one now and then sinks the fleet before every
    // kind of cell has been seen (as in the hasbro screenshots of play.test.js).
    await page.selectOption("#bot-level", "easy");
    await page.click("#play-bot");
    await page.waitForSelector(".placement");
    await placeRandomAndReady(page);
    await fireUntilEveryKind(page);
    const means = await filteredColours(page);
    for (const kind of KINDS) assert.ok(means[kind], `no ${kind} cell was measured: ${JSON.stringify(means)}`);
    // Every pair of results differs clearly in the filtered colours (RGB
    // distance; 441 is black against white). A sunk hull also differs in
    // brightness from a hit and from a miss, which survives any filter; a hit
    // and a miss differ along the blue–yellow axis that deuteranopia keeps
    // (and in shape: a cross against a ring).
    const pairs = [];
    for (let i = 0; i < KINDS.length; i += 1) {
      for (let j = i + 1; j < KINDS.length; j += 1) {
        const [a, b] = [KINDS[i], KINDS[j]];
        pairs.push([`${a}/${b}`, distance(means[a], means[b])]);
      }
    }
    const report = pairs.map(([name, d]) => `${name} ${d.toFixed(1)}`).join(", ");
    for (const [name, d] of pairs) assert.ok(d >= 12, `${name} look alike under deuteranopia (${d.toFixed(1)}): ${report}`);
    for (const [a, b] of [["hit", "sunk"], ["miss", "sunk"]]) {
      const gap = Math.abs(luminance(means[a]) - luminance(means[b]));
      assert.ok(gap >= 8, `${a} and ${b} have the same brightness (${gap.toFixed(1)}): ${report}`);
    }
    if (scheme === "light") {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setEmulatedVisionDeficiency", { type: "deuteranopia" });
      await shoot(page, "en-battle-deuteranopia");
      await cdp.send("Emulation.setEmulatedVisionDeficiency", { type: "none" });
    }
    console.log(`deuteranopia ${scheme}: ${report}`);
    await context.close();
  });
}
