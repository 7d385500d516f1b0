import { test } from "node:test";
import assert from "node:assert/strict";
import type { EnvVar } from "../api/types.js";
import type { CommandResult, CommandRunner, CommandRunOptions } from "./command-runner.js";
import { probeExec } from "./exec.js";
import { expandContainerCommand, expandString, staticEnvMap } from "./expand.js";

/** RecordingRunner remembers the argv it was asked to run and succeeds. */
class RecordingRunner implements CommandRunner {
  readonly calls: (readonly string[])[] = [];

  runInContainer(_containerId: string, argv: readonly string[], _options: CommandRunOptions): Promise<CommandResult> {
    this.calls.push(argv);
    return Promise.resolve({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 });
  }
}

test("[case 89] exec command is passed through unchanged to the runner", async () => {
  const runner = new RecordingRunner();
  const command = ["/bin/bash", "-c", "some script"];
  const argv = expandContainerCommand(command, undefined);
  const outcome = await probeExec(runner, "test://cOnTaInEr_Id", argv, { timeoutMs: 1000 });
  assert.deepEqual(runner.calls, [["/bin/bash", "-c", "some script"]]);
  assert.deepEqual(outcome, { result: "success", output: "" });
});

test("[case 90] env A=script expands $(A) and keeps unknown $(B) verbatim", async () => {
  const runner = new RecordingRunner();
  const env: EnvVar[] = [{ name: "A", value: "script" }];
  const argv = expandContainerCommand(["/bin/bash", "-c", "some $(A) $(B)"], env);
  await probeExec(runner, "test://cOnTaInEr_Id", argv, { timeoutMs: 1000 });
  assert.deepEqual(runner.calls, [["/bin/bash", "-c", "some script $(B)"]]);
});

const ENV: EnvVar[] = [
  { name: "VAR_A", value: "A" },
  { name: "VAR_B", value: "B" },
  { name: "EMPTY", value: "" },
  { name: "NO_VALUE" },
  { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
  { name: "DUP", value: "first" },
  { name: "DUP", value: "second" },
  { name: "NESTED", value: "$(VAR_A)" },
  { name: "UNICODE", value: "héllo" },
];

const cases: { name: string; input: string; want: string }[] = [
  { name: "no operator", input: "plain text", want: "plain text" },
  { name: "simple reference", input: "$(VAR_A)", want: "A" },
  { name: "references inside text", input: "x$(VAR_A)-$(VAR_B)y", want: "xA-By" },
  { name: "adjacent references", input: "$(VAR_A)$(VAR_B)", want: "AB" },
  { name: "empty value expands to empty", input: "[$(EMPTY)]", want: "[]" },
  { name: "entry without value expands to empty", input: "[$(NO_VALUE)]", want: "[]" },
  { name: "valueFrom expands to empty, not verbatim", input: "[$(FROM_SECRET)]", want: "[]" },
  { name: "later duplicate wins", input: "$(DUP)", want: "second" },
  { name: "unknown reference kept verbatim", input: "$(UNKNOWN)", want: "$(UNKNOWN)" },
  { name: "empty name kept verbatim", input: "$()", want: "$()" },
  { name: "escaped operator", input: "$$", want: "$" },
  { name: "escaped reference stays literal", input: "$$(VAR_A)", want: "$(VAR_A)" },
  { name: "escape then reference", input: "$$$(VAR_A)", want: "$A" },
  { name: "double escape", input: "$$$$(VAR_A)", want: "$$(VAR_A)" },
  { name: "trailing operator kept", input: "abc$", want: "abc$" },
  { name: "lone operator kept", input: "$", want: "$" },
  { name: "operator before other character kept", input: "$VAR_A", want: "$VAR_A" },
  { name: "shell braces not expanded", input: "${VAR_A}", want: "${VAR_A}" },
  { name: "unclosed reference kept", input: "$(VAR_A", want: "$(VAR_A" },
  { name: "unclosed reference, scan resumes after the paren", input: "$(a $$ $(VAR_A $", want: "$(a $ $(VAR_A $" },
  { name: "reference name runs to the first closing paren", input: "$($(VAR_A)", want: "$($(VAR_A)" },
  { name: "closing paren found later in the string", input: "$(VAR_A $(VAR_B)", want: "$(VAR_A $(VAR_B)" },
  { name: "single pass: values are not re-expanded", input: "$(NESTED)", want: "$(VAR_A)" },
  { name: "non-ASCII value", input: "$(UNICODE)!", want: "héllo!" },
  { name: "non-ASCII around references", input: "ä$(VAR_A)ö", want: "äAö" },
  // kubernetes#136325 (expand_test.go): "$" before a multi-byte character keeps the character
  // whole; the old byte-to-rune conversion gave "a$Ã\ufffd" for "a$é".
  { name: "#136325 operator before a multi-byte character", input: "a$é", want: "a$é" },
  { name: "#136325 dollar sign followed by non-ASCII UTF-8 character", input: "$£FOO", want: "$£FOO" },
  { name: "#136325 dollar sign followed by multi-byte UTF-8 character in middle", input: "prefix-$€-suffix", want: "prefix-$€-suffix" },
  { name: "#136325 dollar sign followed by Chinese character", input: "$中文", want: "$中文" },
  { name: "#136325 dollar sign followed by a 4-byte character, then a reference", input: "$😀$(VAR_A)", want: "$😀A" },
];

for (const c of cases) {
  test(`expandString: ${c.name}`, () => {
    assert.equal(expandString(c.input, staticEnvMap(ENV)), c.want);
  });
}

test("expandContainerCommand expands every element and keeps the order", () => {
  assert.deepEqual(expandContainerCommand(["$(VAR_A)", "-c", "$(VAR_B) $$(VAR_A)"], ENV), ["A", "-c", "B $(VAR_A)"]);
});

test("expandContainerCommand with no env keeps references verbatim", () => {
  assert.deepEqual(expandContainerCommand(["echo", "$(HOME)", "$$"], undefined), ["echo", "$(HOME)", "$"]);
  assert.deepEqual(expandContainerCommand(["echo", "$(HOME)"], []), ["echo", "$(HOME)"]);
});

test("expandContainerCommand of an empty command is empty", () => {
  assert.deepEqual(expandContainerCommand([], ENV), []);
});

test("staticEnvMap maps names to literal values, valueFrom to empty, later duplicates winning", () => {
  const map = staticEnvMap(ENV);
  assert.equal(map.get("FROM_SECRET"), "");
  assert.equal(map.get("DUP"), "second");
  assert.equal(map.get("NO_VALUE"), "");
  assert.equal(map.size, 8);
});
