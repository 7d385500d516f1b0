// -f inputs as a user gives them to `lint` and `run`: the built CLI, exit 2 with the file name
// and the reason for input that is too large, too deep, malformed or empty.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { runCli } from "../../test/cli-harness.js";

const POD_JSON = `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "web"},
  "spec": {"containers": [{"name": "app", "image": "busybox"}]}
}
`;

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-input-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function file(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

test("bounded input: lint -f and run -f refuse a file over 3 MiB with exit 2, the file name and the limit", async (t) => {
  const dir = await tempDir(t);
  const big = await file(dir, "big.yaml", `${POD_JSON}# ${"x".repeat(3 * 1024 * 1024)}\n`);
  const expected = `error: error reading "${big}"\n* too large: limit is 3145728 bytes\n`;
  const lint = await runCli(["lint", "-f", big]);
  assert.equal(lint.code, 2);
  assert.equal(lint.stderr, expected);
  const run = await runCli(["run", "-f", big, "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state")]);
  assert.equal(run.code, 2);
  assert.equal(run.stderr, expected);
  const stdin = await runCli(["lint", "-f", "-"], { input: `# ${"x".repeat(3 * 1024 * 1024)}\n` });
  assert.equal(stdin.code, 2);
  assert.equal(stdin.stderr, 'error: error reading "STDIN"\n* too large: limit is 3145728 bytes\n');
});

test("bounded input: a YAML file over 1 MiB is refused with exit 2, the file name and the YAML limit", async (t) => {
  const dir = await tempDir(t);
  const big = await file(dir, "big.yaml", `${POD_JSON}# ${"x".repeat(2 * 1024 * 1024)}\n`);
  const lint = await runCli(["lint", "-f", big]);
  assert.equal(lint.code, 2);
  assert.equal(lint.stderr, `error: error validating "${big}"\n* ${big}: too large: limit is 1048576 bytes for YAML (JSON may have up to 3145728 bytes)\n`);
});

test("bounded input: lint -f and run -f refuse a 10,000-deep file with exit 2, the file name and 'exceeded max depth'", async (t) => {
  const dir = await tempDir(t);
  const deepJson = await file(dir, "deep.json", `{"metadata":${'{"a":'.repeat(10_000)}1${"}".repeat(10_001)}`);
  const lint = await runCli(["lint", "-f", deepJson]);
  assert.equal(lint.code, 2);
  assert.equal(lint.stderr, `error: error validating "${deepJson}"\n* ${deepJson}:1:508: exceeded max depth of 100\n`);
  const deepYaml = await file(dir, "deep.yaml", `metadata: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`);
  const run = await runCli(["run", "-f", deepYaml, "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state")]);
  assert.equal(run.code, 2, run.stderr);
  assert.ok(run.stderr.split("\n").includes(`error: ${deepYaml}:1: exceeded max depth of 100`), run.stderr);
});

test("validation: an empty, comment-only or null manifest is exit 2 'no objects passed'", async (t) => {
  const dir = await tempDir(t);
  for (const [name, text] of [["empty.yaml", ""], ["comments.yaml", "# nothing here\n---\n"], ["null.yaml", "null\n"], ["null.json", "null"]] as const) {
    const path = await file(dir, name, text);
    const lint = await runCli(["lint", "-f", path]);
    assert.equal(lint.code, 2, name);
    assert.equal(lint.stderr, `error: error validating "${path}"\n* no objects passed: the input is empty, only comments, or null\n`, name);
  }
  const run = await runCli(["run", "-f", "-", "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state")], { input: "# only a comment\n" });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^error: STDIN: no objects passed: the input is empty, only comments, or null\n/m);
});

test("validation: .json files are parsed as strict JSON with line and column in errors; YAML files as YAML", async (t) => {
  const dir = await tempDir(t);
  const good = await file(dir, "pod.json", POD_JSON);
  const ok = await runCli(["lint", "-f", good]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "1 pod checked, no findings\n");
  const yamlish = await file(dir, "flow.json", POD_JSON.replace('"kind": "Pod"', "kind: Pod"));
  const bad = await runCli(["lint", "-f", yamlish]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, `error: error validating "${yamlish}"\n* ${yamlish}:3:3: invalid character 'k' looking for beginning of object key string\n`);
  const sameAsYaml = await file(dir, "flow.yaml", POD_JSON.replace('"kind": "Pod"', "kind: Pod"));
  assert.equal((await runCli(["lint", "-f", sameAsYaml])).code, 0);
});
