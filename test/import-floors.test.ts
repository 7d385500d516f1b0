// The import-direction check: every folder of src/ is a floor (docs/architecture.md, "Floors"),
// and a file imports only from its own floor or one below, type-only imports included, so no
// folder cycle can form; within a floor no file cycle is made of imports that load code (type-only
// ones may close a circle). Also: no two source files share a name, so a name means one thing
// (index.ts, a folder's one entry, excepted). It reads the TypeScript sources, not the build, and
// runs with the unit tests.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

/** FLOORS lists src/'s folders from the ground up; the files at src/'s root (the library entries) stand above all. */
const FLOORS: readonly string[] = [
  "util",
  "api",
  "probe",
  "client",
  "runtime",
  "prober",
  "status",
  "volumes",
  "kuberuntime",
  "apiserver",
  "agent",
  "describe",
  "server",
  "cluster",
  "console",
  "cli",
];

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
/** Relative specifiers of import/export declarations and import() types; MAX_FILES bounds the walk. */
const SPECIFIER = /(?:\bimport|\bexport)\s*(?:type\s+)?(?:[^"';]*?\bfrom\s*)?\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
const MAX_FILES = 5_000;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) out.push(path);
    if (out.length > MAX_FILES) throw new Error(`more than ${MAX_FILES} source files under ${SRC}`);
  }
  return out;
}

/** floorOf is a source file's floor index; the root files are above every floor. */
function floorOf(path: string): { name: string; level: number } {
  const parts = relative(SRC, path).split(sep);
  if (parts.length === 1) return { name: "(src root)", level: FLOORS.length };
  const level = FLOORS.indexOf(parts[0]!);
  return { name: parts[0]!, level };
}

/** upwardImports lists every import of src/ that reaches a higher floor, as "file -> specifier (from floor to floor)". */
function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = floorOf(file);
    for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts"));
      const to = floorOf(target);
      if (to.level > from.level) found.push(`${relative(SRC, file)} -> ${match[1]} (${from.name} -> ${to.name})`);
    }
  }
  return found;
}

/** VALUE_IMPORT matches the imports that load code: not `import type`, not `{ type A, type B }`. */
const VALUE_IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^"';]*?)\bfrom\s*["'](\.{1,2}\/[^"']+)["']/g;

/** valueImportCycles lists the circles of code-loading imports between src/ files, each as its files joined by " -> ". */
function valueImportCycles(): string[] {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const deps: string[] = [];
    for (const m of readFileSync(file, "utf8").matchAll(VALUE_IMPORT)) {
      const names = m[2]!.replace(/[{}]/g, "").split(",").map((n) => n.trim()).filter((n) => n !== "");
      if (m[1] !== undefined || (names.length > 0 && names.every((n) => n.startsWith("type ")))) continue;
      deps.push(resolve(dirname(file), m[3]!.replace(/\.js$/, ".ts")));
    }
    graph.set(file, deps);
  }
  // Depth-first search with colours: a grey file reached again closes a circle.
  const colour = new Map<string, "grey" | "black">();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    colour.set(file, "grey");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (!graph.has(dep)) continue;
      if (colour.get(dep) === "grey") cycles.push([...stack.slice(stack.indexOf(dep)), dep].map((f) => relative(SRC, f)).join(" -> "));
      else if (colour.get(dep) === undefined) visit(dep);
    }
    stack.pop();
    colour.set(file, "black");
  };
  for (const file of graph.keys()) if (colour.get(file) === undefined) visit(file);
  return cycles;
}

test("every folder of src/ is a floor of the plan", () => {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.filter((f) => !FLOORS.includes(f)), [], "a new folder of src/ needs its floor in FLOORS and docs/architecture.md");
});

test("no file of src/ imports from a higher floor (type-only imports included)", () => {
  assert.deepEqual(upwardImports(), []);
});

test("no circle of code-loading imports between the files of src/", () => {
  assert.deepEqual(valueImportCycles(), []);
});

test("no two source files of src/ share a name (index.ts, the one entry of its folder, excepted)", () => {
  const byName = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) byName.set(basename(file), [...(byName.get(basename(file)) ?? []), relative(SRC, file)]);
  const shared = [...byName].filter(([name, paths]) => name !== "index.ts" && paths.length > 1).map(([, paths]) => paths.join(" and "));
  assert.deepEqual(shared, [], "rename one of each pair to say what it holds");
});
