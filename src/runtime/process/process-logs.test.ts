import assert from "node:assert/strict";
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { after, test } from "node:test";
import { parseRfc3339Nano } from "../log-format.js";
import { ProcessRuntime } from "./process-runtime.js";
import { criLogEntries, isAlive, liveChildren, testContainerConfig, testSandboxConfig, waitForContainerState } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-process-logs-"));
const runtime = new ProcessRuntime();
const pids: number[] = [];

after(async () => {
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(liveChildren(), [], "no child process of the test may remain");
  assert.deepEqual(pids.filter(isAlive), [], "every container process is gone");
});

async function runToExit(name: string, script: string, timeoutMs = 10_000): Promise<string> {
  const sandbox = testSandboxConfig(join(dir, name));
  const pod = await runtime.runPodSandbox(sandbox);
  const id = await runtime.createContainer(pod, testContainerConfig(name, script), sandbox);
  await runtime.startContainer(id);
  pids.push(runtime.pidOf(id)!);
  const info = await waitForContainerState(runtime, id, "exited", timeoutMs);
  assert.equal(info.exitCode, 0, `${name} exited ${info.exitCode}`);
  return info.logPath;
}

const LINE_RE = /^(\S+) (stdout|stderr) ([PF]) (.*)$/s;

test("stdout and stderr become CRI log lines: F per line, P…F past 16 KiB, P for an unterminated end", async () => {
  const script = [
    "printf 'out one\\nout two\\n'",
    "printf 'err one\\n' >&2",
    "head -c 17000 /dev/zero | tr '\\0' x; echo",
    "printf '\\n'",
    "printf 'last words'",
  ].join("; ");
  const logPath = await runToExit("format", script);
  const started = Date.now();
  const entries = await criLogEntries(logPath);
  const byStream = (stream: string): [string, string][] =>
    entries.filter((e) => e.stream === stream).map((e) => [e.tag, e.content.toString()]);
  assert.deepEqual(byStream("stdout"), [
    ["F", "out one"],
    ["F", "out two"],
    ["P", "x".repeat(16384)],
    ["F", "x".repeat(17000 - 16384)],
    ["F", ""],
    ["P", "last words"],
  ]);
  assert.deepEqual(byStream("stderr"), [["F", "err one"]]);

  // The raw file: every line is "<RFC3339Nano> <stream> <tag> <content>" with UTC timestamps.
  const raw = await import("node:fs/promises").then((fs) => fs.readFile(logPath, "utf8"));
  const lines = raw.split("\n");
  assert.equal(lines.pop(), "", "the file ends with a newline");
  assert.equal(lines.length, 7);
  let previous = 0;
  for (const line of lines.filter((l) => l.includes(" stdout "))) {
    const m = LINE_RE.exec(line);
    assert.ok(m, line.slice(0, 80));
    assert.match(m[1]!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/);
    const time = parseRfc3339Nano(m[1]!)!;
    assert.ok(time >= previous && time <= started + 1000, "timestamps are ordered and recent");
    previous = time;
  }
});

test("a log flood (yes | head -c 20000000) is written completely with bounded memory and a live event loop", async () => {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const before = process.memoryUsage();
  let rssPeak = before.rss;
  let buffersPeak = before.arrayBuffers;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    rssPeak = Math.max(rssPeak, now.rss);
    buffersPeak = Math.max(buffersPeak, now.arrayBuffers);
  }, 10);
  const began = performance.now();
  let logPath: string;
  try {
    logPath = await runToExit("flood", "yes | head -c 20000000", 120_000);
  } finally {
    clearInterval(sampler);
    delay.disable();
  }
  const seconds = (performance.now() - began) / 1000;
  const growthMb = (rssPeak - before.rss) / 2 ** 20;
  const buffersMb = (buffersPeak - before.arrayBuffers) / 2 ** 20;
  const maxDelayMs = delay.max / 1e6;
  const size = (await stat(logPath)).size;
  let lines = 0;
  for await (const chunk of createReadStream(logPath) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
  }
  const summary = `${seconds.toFixed(1)} s, log ${(size / 2 ** 20).toFixed(0)} MiB, rss +${growthMb.toFixed(0)} MiB, buffers +${buffersMb.toFixed(1)} MiB, max loop delay ${maxDelayMs.toFixed(0)} ms`;
  console.log(`# flood: ${summary}`);
  assert.equal(lines, 10_000_000, "one entry per 'y' line");
  // Without backpressure the queued file writes alone reach ~60 MiB of buffers on a fast disk
  // (and most of the ~340 MiB log on a slow one); with it they stay near 7 MiB.
  assert.ok(buffersMb < 32, `buffered output grew too much: ${summary}`);
  assert.ok(growthMb < 150, `memory grew too much: ${summary}`);
  assert.ok(maxDelayMs < 1000, `event loop stalled: ${summary}`);
  await rm(logPath);
});
