import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { AGENT_NODE_FLAGS } from "./node-flags.js";

const root = new URL("../../../", import.meta.url);
const flags = AGENT_NODE_FLAGS.join(" ");

test("the agent's V8 flags are passed by main.ts's shebang, ./probelet and npm start alike", async () => {
  const main = await readFile(new URL("src/cli/main.ts", root), "utf8");
  assert.equal(main.split("\n")[0], `#!/usr/bin/env -S node ${flags}`);
  const script = await readFile(new URL("probelet", root), "utf8");
  assert.match(script, new RegExp(`\\nexec node ${flags} "\\$\\(dirname "\\$0"\\)/dist/src/cli/main\\.js" "\\$@"\\n`));
  const pkg = JSON.parse(await readFile(new URL("package.json", root), "utf8")) as { scripts: Record<string, string> };
  assert.match(pkg.scripts["start"] ?? "", new RegExp(`^node ${flags} dist/src/cli/main\\.js `));
});

test("the built CLI keeps the shebang with the flags, so an installed probelet command runs with them", async () => {
  const built = await readFile(new URL("dist/src/cli/main.js", root), "utf8");
  assert.equal(built.split("\n")[0], `#!/usr/bin/env -S node ${flags}`);
});
