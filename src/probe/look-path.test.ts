import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executableProblem, lookPath } from "./look-path.js";

const work = mkdtempSync(join(tmpdir(), "probelet-look-path-"));
after(() => rmSync(work, { recursive: true, force: true }));
const bin = join(work, "bin");
mkdirSync(join(bin, "tool-dir"), { recursive: true });
writeFileSync(join(bin, "tool"), "#!/bin/sh\n", { mode: 0o755 });
writeFileSync(join(bin, "plain"), "data\n", { mode: 0o644 });

test("lookPath takes the first PATH entry with an executable file of that name, skipping missing entries", async () => {
  assert.deepEqual(await lookPath("tool", `${join(work, "missing")}:${bin}`, "/"), { found: join(bin, "tool") });
});

test("lookPath skips a directory and a non-executable file of that name and reports the name missing (Go's ErrNotFound)", async () => {
  assert.deepEqual(await lookPath("tool-dir", bin, "/"), { missing: true });
  assert.deepEqual(await lookPath("plain", bin, "/"), { missing: true });
});

test("an empty PATH entry means the working directory, and the found path stays relative as Go returns it", async () => {
  assert.deepEqual(await lookPath("tool", ":/nonexistent", bin), { found: "tool" });
});

test("a name with a slash is checked as is: the stat error, EISDIR for a directory, EACCES without execute permission", async () => {
  assert.deepEqual(await lookPath("./tool", "", bin), { found: "./tool" });
  assert.deepEqual(await lookPath(join(bin, "nope"), "", "/"), { problem: "ENOENT" });
  assert.equal(await executableProblem(join(bin, "tool-dir")), "EISDIR");
  assert.equal(await executableProblem(join(bin, "plain")), "EACCES");
});
