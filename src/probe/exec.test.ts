import { test } from "node:test";
import assert from "node:assert/strict";
import { CommandTimeoutError, type CommandResult, type CommandRunner, type CommandRunOptions } from "./command-runner.js";
import { decodeOutput, execTimeoutMessage, limitOutput, probeExec, type ExecProbeOptions } from "./exec.js";
import { MAX_OUTPUT_BYTES } from "./probe-result.js";

/** FakeRunner answers every command with a fixed result or rejection (kubelet's fake exec cmd). */
class FakeRunner implements CommandRunner {
  readonly calls: { containerId: string; argv: readonly string[]; options: CommandRunOptions }[] = [];

  constructor(private readonly answer: CommandResult | Error) {}

  runInContainer(containerId: string, argv: readonly string[], options: CommandRunOptions): Promise<CommandResult> {
    this.calls.push({ containerId, argv, options });
    return this.answer instanceof Error ? Promise.reject(this.answer) : Promise.resolve(this.answer);
  }
}

function result(stdout: string | Buffer, exitCode: number, stderr: string | Buffer = ""): CommandResult {
  return { stdout: Buffer.from(stdout), stderr: Buffer.from(stderr), exitCode };
}

const OPTS: ExecProbeOptions = { timeoutMs: 1000 };
const TIMEOUT_TEXT = 'command timed out: "testcmd" timed out after 1s';
const timeoutError = (): CommandTimeoutError => new CommandTimeoutError(["testcmd"], 1000, execTimeoutMessage(["testcmd"], 1000));

test("[case 63] OK — output OK, exit 0 is success with the output", async () => {
  const outcome = await probeExec(new FakeRunner(result("OK", 0)), "c", ["testcmd"], OPTS);
  assert.deepEqual(outcome, { result: "success", output: "OK" });
});

test("[case 64] OK with exit status 0 — success with the output (stderr included)", async () => {
  // Our runners report an exit status, never an "exit error with status 0"; status 0 with
  // output on both streams is the closest shape and must still be a plain success.
  const outcome = await probeExec(new FakeRunner(result("O", 0, "K")), "c", ["testcmd"], OPTS);
  assert.deepEqual(outcome, { result: "success", output: "OK" });
});

test("[case 65] Truncated — 11264 bytes of output keep the first 10240", async () => {
  const long = "logs-123".repeat(1408);
  assert.equal(long.length, 11264);
  const outcome = await probeExec(new FakeRunner(result(long, 0)), "c", ["testcmd"], OPTS);
  assert.deepEqual(outcome, { result: "success", output: long.slice(0, 10240) });
});

test("[case 66] Generic run error — unknown, empty output, the error returned", async () => {
  const error = new Error("test error");
  const outcome = await probeExec(new FakeRunner(error), "c", ["testcmd"], OPTS);
  assert.equal(outcome.result, "unknown");
  assert.equal(outcome.output, "");
  assert.equal(outcome.error, error);
});

test("[case 67] Unhealthy — exit status 1 is a failure with whatever was written", async () => {
  assert.deepEqual(await probeExec(new FakeRunner(result("", 1)), "c", ["testcmd"], OPTS), { result: "failure", output: "" });
  assert.deepEqual(await probeExec(new FakeRunner(result("bad\n", 1, "worse\n")), "c", ["testcmd"], OPTS), {
    result: "failure",
    output: "bad\nworse\n",
  });
});

test("[case 68] Timeout, ExecProbeTimeout on — failure whose output is the timeout error text", async () => {
  for (const options of [OPTS, { ...OPTS, execProbeTimeout: true }]) {
    const outcome = await probeExec(new FakeRunner(timeoutError()), "c", ["testcmd"], options);
    assert.deepEqual(outcome, { result: "failure", output: TIMEOUT_TEXT });
  }
});

test("[case 69] Timeout, ExecProbeTimeout off — unknown with the error returned", async () => {
  const error = timeoutError();
  const outcome = await probeExec(new FakeRunner(error), "c", ["testcmd"], { ...OPTS, execProbeTimeout: false });
  assert.equal(outcome.result, "unknown");
  assert.equal(outcome.output, "");
  assert.equal(outcome.error, error);
});

test("probeExec passes container ID, argv, timeout and signal to the runner", async () => {
  const runner = new FakeRunner(result("", 0));
  const signal = new AbortController().signal;
  await probeExec(runner, "test://cOnTaInEr_Id", ["/bin/sh", "-c", "true"], { timeoutMs: 2500, signal });
  assert.deepEqual(runner.calls, [{ containerId: "test://cOnTaInEr_Id", argv: ["/bin/sh", "-c", "true"], options: { timeoutMs: 2500, signal } }]);
});

test("probeExec orders stdout before stderr and caps the combined output", async () => {
  const outcomes = await Promise.all([
    probeExec(new FakeRunner(result("out\n", 3, "err\n")), "c", ["x"], OPTS),
    probeExec(new FakeRunner(result("a".repeat(8000), 0, "b".repeat(8000))), "c", ["x"], OPTS),
    probeExec(new FakeRunner(result("a".repeat(12000), 0, "b".repeat(10))), "c", ["x"], OPTS),
  ]);
  assert.deepEqual(outcomes[0], { result: "failure", output: "out\nerr\n" });
  assert.equal(outcomes[1]!.output, "a".repeat(8000) + "b".repeat(2240));
  assert.equal(outcomes[2]!.output, "a".repeat(10240));
});

test("probeExec decodes invalid UTF-8 without throwing", async () => {
  const bytes = Buffer.from([0x6f, 0x6b, 0xff, 0xc3, 0x28, 0x0a]);
  const outcome = await probeExec(new FakeRunner(result(bytes, 0)), "c", ["x"], OPTS);
  assert.deepEqual(outcome, { result: "success", output: "ok\ufffd\ufffd(\n" });
});

test("probeExec turns a rejection after abort into a failure", async () => {
  const controller = new AbortController();
  controller.abort();
  const outcome = await probeExec(new FakeRunner(new Error("killed")), "c", ["x"], { ...OPTS, signal: controller.signal });
  assert.deepEqual(outcome, { result: "failure", output: "exec probe aborted: killed" });
});

test("probeExec wraps a non-Error rejection", async () => {
  const runner: CommandRunner = { runInContainer: () => Promise.reject("boom" as unknown as Error) };
  const outcome = await probeExec(runner, "c", ["x"], OPTS);
  assert.equal(outcome.result, "unknown");
  assert.equal(outcome.output, "");
  assert.ok(outcome.error instanceof Error);
  assert.equal(outcome.error.message, "boom");
});

const messages: { name: string; argv: string[]; timeoutMs: number; want: string }[] = [
  { name: "shell command, 1 s", argv: ["/bin/sh", "-c", "sleep 10"], timeoutMs: 1000, want: 'command timed out: "/bin/sh -c sleep 10" timed out after 1s' },
  { name: "sub-second timeout", argv: ["x"], timeoutMs: 500, want: 'command timed out: "x" timed out after 500ms' },
  { name: "minutes", argv: ["x"], timeoutMs: 90_000, want: 'command timed out: "x" timed out after 1m30s' },
  { name: "fractional seconds", argv: ["x"], timeoutMs: 1500, want: 'command timed out: "x" timed out after 1.5s' },
  { name: "quotes and escapes", argv: ["sh", "-c", 'echo "a"\tb\\'], timeoutMs: 2000, want: 'command timed out: "sh -c echo \\"a\\"\\tb\\\\" timed out after 2s' },
  { name: "empty argv", argv: [], timeoutMs: 1000, want: 'command timed out: "" timed out after 1s' },
];

for (const m of messages) {
  test(`execTimeoutMessage: ${m.name}`, () => {
    assert.equal(execTimeoutMessage(m.argv, m.timeoutMs), m.want);
  });
}

test("limitOutput keeps at most the limit, stdout first", () => {
  assert.equal(limitOutput(Buffer.from("abc"), Buffer.from("def"), 4).toString(), "abcd");
  assert.equal(limitOutput(Buffer.from("abcdef"), Buffer.from("x"), 4).toString(), "abcd");
  assert.equal(limitOutput(Buffer.from("ab"), Buffer.from("cd")).toString(), "abcd");
  assert.equal(limitOutput(Buffer.alloc(MAX_OUTPUT_BYTES + 1), Buffer.alloc(5)).length, MAX_OUTPUT_BYTES);
});

test("decodeOutput renders a multi-byte character cut by the cap as U+FFFD", () => {
  const euro = Buffer.from("€"); // e2 82 ac
  assert.equal(decodeOutput(euro.subarray(0, 2)), "\ufffd");
});
