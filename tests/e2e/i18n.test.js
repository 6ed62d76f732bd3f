// The five languages of the web client are complete: every language file has
// exactly the keys of the English one, every key the code asks for exists, and
// placeholders match (UI.md "Languages").

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./harness.js";

const i18nDir = path.join(repoRoot, "web", "i18n");
const jsDir = path.join(repoRoot, "web", "js");
const LANGS = ["en", "pt-PT", "pt-BR", "es", "it"];
const load = (lang) => JSON.parse(readFileSync(path.join(i18nDir, `${lang}.json`), "utf8"));
const placeholders = (text) => [...String(text).matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("every language has exactly the English keys, with the same placeholders", () => {
  const english = load("en");
  for (const lang of LANGS) {
    const strings = load(lang);
    assert.deepEqual(Object.keys(strings).sort(), Object.keys(english).sort(), lang);
    for (const [key, value] of Object.entries(english)) {
      if (typeof value === "string") assert.deepEqual(placeholders(strings[key]), placeholders(value), `${lang} ${key}`);
      else if (isPlural(value)) for (const form of Object.values(strings[key])) assert.deepEqual(placeholders(form), placeholders(value.other), `${lang} ${key}`);
    }
    assert.equal(strings.rules_page.length, english.rules_page.length, `${lang} rules page`);
  }
});

test("every key the client asks for exists", () => {
  const english = load("en");
  for (const file of readdirSync(jsDir).filter((f) => f.endsWith(".js"))) {
    const source = readFileSync(path.join(jsDir, file), "utf8");
    for (const match of source.matchAll(/\b(?:t|plural)\("([a-z_.]+)"/g)) {
      assert.ok(match[1] in english, `${file} uses the missing key ${match[1]}`);
    }
  }
});

// Counts are worded through Intl.PluralRules (i18n.js `plural`): an entry is an
// object of plural forms, ordinal ones when its key ends in "_ordinal".
function isPlural(value) {
  return value && typeof value === "object" && !Array.isArray(value) && typeof value.other === "string";
}

test("every count has the plural forms its language needs", () => {
  const english = load("en");
  const plurals = Object.keys(english).filter((key) => isPlural(english[key]));
  assert.ok(plurals.length > 0);
  for (const lang of LANGS) {
    const strings = load(lang);
    for (const key of plurals) {
      const type = key.endsWith("_ordinal") ? "ordinal" : "cardinal";
      const rules = new Intl.PluralRules(lang, { type });
      assert.ok(isPlural(strings[key]), `${lang} ${key} has forms and an "other"`);
      for (const form of Object.keys(strings[key])) {
        assert.ok(rules.resolvedOptions().pluralCategories.includes(form), `${lang} ${key}: ${form} is no ${type} form of ${lang}`);
      }
      // Every form the counts of a game can reach (0 to 1000) is written out.
      for (let n = 0; n <= 1000; n += 1) assert.ok(strings[key][rules.select(n)], `${lang} ${key} lacks the form "${rules.select(n)}" (${n})`);
    }
  }
});

test("the client words counts with plural(), never with a hand-made singular", () => {
  for (const file of readdirSync(jsDir).filter((f) => f.endsWith(".js"))) {
    const source = readFileSync(path.join(jsDir, file), "utf8");
    for (const match of source.matchAll(/\bt\("([a-z_.]+)"/g)) {
      assert.ok(!isPlural(load("en")[match[1]]), `${file} reads the plural entry ${match[1]} with t()`);
    }
  }
});

test("the languages are written separately: pt-PT and pt-BR differ where they should", () => {
  const pt = load("pt-PT");
  const br = load("pt-BR");
  assert.equal(pt.rotate, "Rodar");
  assert.equal(br.rotate, "Girar");
  assert.match(pt.place_help, /ecrã/);
  assert.match(br.place_help, /tela/);
  assert.match(pt["err.own_team"], /equipa/);
  assert.match(br["err.own_team"], /time/);
  // No language is a copy of another.
  for (const a of LANGS) for (const b of LANGS) if (a < b) assert.notDeepEqual(load(a), load(b), `${a} = ${b}`);
});

test("every engine and server error code has a translation", () => {
  const codes = [
    "bad_json", "too_large", "unknown_type", "bad_request", "hello_first", "not_in_room", "not_a_player",
    "room_not_found", "room_full", "not_host", "already_started", "not_started", "seats_open", "not_finished",
    "bad_command", "game_over", "wrong_phase", "not_your_turn", "own_board", "own_team", "unknown_ship",
    "capital_limit", "type_limit", "over_budget", "fleet_does_not_fit", "wrong_fleet", "out_of_bounds",
    "outside_own_waters", "ships_overlap", "ships_touch", "wrong_shot_count", "duplicate_target",
    "ability_unavailable", "no_uses_left", "ability_not_ready", "not_targetable", "already_submitted",
    "no_rematch_offer",
  ];
  for (const lang of LANGS) {
    const strings = load(lang);
    for (const code of codes) assert.ok(strings[`err.${code}`], `${lang} err.${code}`);
  }
});
