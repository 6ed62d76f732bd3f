// The web client's modules (web/js) import each other without a cycle, and
// none imports app.js, the entry that imports the others (issue 15). Needs no
// browser: the import lines are read from the sources.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Read without harness.js, so that this check runs before `npm ci` too.
const jsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "web", "js");

/** Each module's file name → the file names of the modules it imports (static, re-exported or dynamic). */
function importGraph() {
  const graph = new Map();
  for (const file of readdirSync(jsDir).filter((f) => f.endsWith(".js")).sort()) {
    const source = readFileSync(path.join(jsDir, file), "utf8");
    const targets = new Set();
    for (const match of source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']\.\/([^"']+)["']/gms)) targets.add(match[1]);
    for (const match of source.matchAll(/^\s*import\s*["']\.\/([^"']+)["']/gm)) targets.add(match[1]);
    for (const match of source.matchAll(/\bimport\(\s*["']\.\/([^"']+)["']\s*\)/g)) targets.add(match[1]);
    graph.set(file, [...targets].sort());
  }
  return graph;
}

test("every module a web module imports exists", () => {
  const graph = importGraph();
  assert.ok(graph.has("app.js") && graph.get("app.js").length > 0, "app.js imports the other modules");
  for (const [file, targets] of graph) for (const target of targets) assert.ok(graph.has(target), `${file} imports ${target}, which is not in web/js`);
});

test("no web module imports app.js, the entry", () => {
  for (const [file, targets] of importGraph()) assert.ok(!targets.includes("app.js"), `${file} imports app.js`);
});

test("the web modules import each other without a cycle", () => {
  const graph = importGraph();
  // Depth first: a module met again while it is still on the path closes a cycle.
  const done = new Set();
  const visit = (file, trail) => {
    if (done.has(file)) return;
    const at = trail.indexOf(file);
    assert.ok(at < 0, `import cycle: ${[...trail.slice(at), file].join(" → ")}`);
    for (const target of graph.get(file) || []) visit(target, [...trail, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
});
