// docs/architecture.md cannot rot: every file or folder it names exists. A path is a backticked
// `src/…`, `test/…`, `native/…`, `console/…`, `proto/…`, `scripts/…` or `bench/…` token; in a
// table cell a bare file name (`worker-policy.ts`) is in the folder of the cell's last path before
// it, as the doc writes neighbours. A `*` stands for any name in an existing folder.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DOC = "docs/architecture.md";
const TOKEN = /`([^`\s]+)`/g;
const FULL_PATH = /^(?:src|test|native|console|proto|scripts|bench)\/[\w./*-]*$/;
const BARE_FILE = /^[\w.-]+\.(?:ts|tsx|c|proto|sh)$/;

/** namedPaths lists every path the doc names, as "path (line N)", resolved against the repository root. */
function namedPaths(text: string): { path: string; line: number }[] {
  const found: { path: string; line: number }[] = [];
  text.split("\n").forEach((lineText, index) => {
    const cells = lineText.startsWith("|") ? lineText.split("|") : [lineText];
    for (const cell of cells) {
      let folder: string | undefined;
      for (const [, token] of cell.matchAll(TOKEN)) {
        if (FULL_PATH.test(token!)) {
          found.push({ path: token!, line: index + 1 });
          folder = token!.endsWith("/") ? token!.slice(0, -1) : posix.dirname(token!);
        } else if (folder !== undefined && lineText.startsWith("|") && BARE_FILE.test(token!)) {
          found.push({ path: posix.join(folder, token!), line: index + 1 });
        }
      }
    }
  });
  return found;
}

function exists(path: string): boolean {
  if (!path.includes("*")) return existsSync(join(ROOT, path));
  return existsSync(join(ROOT, path.slice(0, path.indexOf("*")).replace(/[^/]*$/, "")));
}

test("every file and folder docs/architecture.md names exists", () => {
  const paths = namedPaths(readFileSync(join(ROOT, DOC), "utf8"));
  assert.ok(paths.length > 150, `found only ${paths.length} paths: the pattern no longer matches the doc`);
  assert.deepEqual(paths.filter((p) => !exists(p.path)).map((p) => `${p.path} (line ${p.line})`), []);
});
