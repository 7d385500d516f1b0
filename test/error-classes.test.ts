// The errors convention (docs/architecture.md, "Errors"): every error class of src/ names itself,
// so a log line, a report or a check of `err.name` says which error it is. It reads the TypeScript
// sources, not the build, and runs with the unit tests.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");
/** ERROR_CLASS matches a class that extends Error or another error class, and its body's start. */
const ERROR_CLASS = /^(?:export )?class (\w+) extends \w*Error\b[^{]*\{([\s\S]{0,600})/gm;

test("every error class of src/ sets its name to the class's name", () => {
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
  const unnamed: string[] = [];
  let classes = 0;
  for (const file of files) {
    for (const [, name, body] of readFileSync(join(SRC, file), "utf8").matchAll(ERROR_CLASS)) {
      classes++;
      if (!body!.includes(`name = "${name}"`) && !body!.includes(`name: string = "${name}"`)) unnamed.push(`${file}: ${name}`);
    }
  }
  assert.ok(classes > 30, `found only ${classes} error classes: the pattern no longer matches the code`);
  assert.deepEqual(unnamed, [], "set `override readonly name = \"<Class>\"` (or this.name in the constructor)");
});
