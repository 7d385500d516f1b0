// Log rotation as the kubelet's ContainerLogManager does it, against real process-runtime
// containers writing without pause: the supervisor (SIGHUP) or the agent's own writer reopens the
// log, nothing is lost or doubled across rotations, at most containerLogMaxFiles files stay, and
// every rotated file but the newest is gzipped. The kubelet's configuration errors for the policy.
import assert from "node:assert/strict";
import { readdir, readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { ProcessRuntime } from "../runtime/process/process-runtime.js";
import { supervisorAvailable } from "../runtime/process/supervised-process.js";
import { parseCriLogLine } from "../runtime/log-format.js";
import { systemClock } from "../util/clock.js";
import { silentLogger } from "../util/logger.js";
import { testContainerConfig, testSandboxConfig, waitFor } from "../../test/process-testing.js";
import { ContainerLogManager, validateContainerLogPolicy } from "./container-log-manager.js";
import { allLogs } from "./rotated-logs.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-log-rotation-"));
const runtimes: ProcessRuntime[] = [];
after(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  await rm(dir, { recursive: true, force: true });
});

/** contents reads every file of a log, oldest first, as the CRI entries' contents. */
async function contents(log: string): Promise<string[]> {
  const out: string[] = [];
  for (const path of await allLogs(log)) {
    const raw = await readFile(path);
    const text = (path.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8");
    // A line is whole once its newline is written: the piece after the last one may be a write
    // still in progress (the kubelet's log reader waits for the newline too).
    const lines = text.split("\n");
    lines.pop();
    for (const line of lines) if (line !== "") out.push(parseCriLogLine(line).content.toString("utf8"));
  }
  return out;
}

const LINES = 6000;
const SCRIPT = `i=0; while [ $i -lt ${LINES} ]; do echo "line $i"; i=$((i+1)); [ $((i % 300)) = 0 ] && sleep 0.25; done; exec sleep 600`;

async function rotateWhileWriting(runtime: ProcessRuntime, name: string): Promise<{ log: string; files: string[]; lines: string[] }> {
  runtimes.push(runtime);
  const sandbox = testSandboxConfig(join(dir, name, "logs"));
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const id = await runtime.createContainer(sandboxId, testContainerConfig("app", SCRIPT), sandbox);
  await runtime.startContainer(id);
  const log = (await runtime.containerStatus(id)).logPath;
  const manager = new ContainerLogManager(runtime, { maxSize: 4096, maxFiles: 4, maxWorkers: 1, monitorIntervalMs: 3000 }, systemClock, silentLogger);
  let rounds = 0;
  await waitFor("every line written, rotated on the way", async () => {
    await manager.rotateLogs();
    rounds++;
    return (await contents(log)).at(-1) === `line ${LINES - 1}`;
  }, { timeoutMs: 30_000 });
  assert.ok(rounds > 3, `rotated ${rounds} times`);
  await manager.rotateLogs();
  const files = (await readdir(join(dir, name, "logs", "app"))).sort();
  const lines = await contents(log);
  await runtime.stopContainer(id, 0);
  return { log, files, lines };
}

function assertRotated(result: { files: string[]; lines: string[] }): void {
  const { files, lines } = result;
  assert.ok(files.length <= 4, `at most containerLogMaxFiles files: ${files.join(", ")}`);
  assert.ok(files.includes("0.log"));
  const rotated = files.filter((f) => f !== "0.log");
  assert.ok(rotated.length >= 2, files.join(", "));
  for (const f of rotated.slice(0, -1)) assert.match(f, /^0\.log\.\d{8}-\d{6}\.gz$/, "older rotated files are gzipped");
  assert.match(rotated.at(-1)!, /^0\.log\.\d{8}-\d{6}(\.gz)?$/);
  // The oldest files went (at most 4 kept); what is kept is contiguous, none lost or doubled.
  const numbers = lines.map((l) => Number(/^line (\d+)$/.exec(l)?.[1]));
  assert.equal(numbers.at(-1), LINES - 1);
  for (let k = 1; k < numbers.length; k++) assert.equal(numbers[k], numbers[k - 1]! + 1, `line ${numbers[k - 1]} then ${numbers[k]}`);
}

test("a supervised container's log is rotated by size while it writes: the supervisor reopens it on SIGHUP, nothing is lost", { skip: (await supervisorAvailable()) ? false : "the supervisor helper is not built (no C compiler)" }, async () => {
  assertRotated(await rotateWhileWriting(new ProcessRuntime({ stateDir: join(dir, "supervised-state") }), "supervised"));
});

test("a container whose output the agent reads through pipes is rotated the same way (its writer reopens the file)", async () => {
  assertRotated(await rotateWhileWriting(new ProcessRuntime(), "piped"));
});

test("the policy is checked with the kubelet's configuration errors", () => {
  assert.deepEqual(validateContainerLogPolicy({ maxSize: 10 << 20, maxFiles: 5, maxWorkers: 1, monitorIntervalMs: 10_000 }), []);
  assert.deepEqual(validateContainerLogPolicy({ maxSize: 10 << 20, maxFiles: 1, maxWorkers: 0, monitorIntervalMs: 2999 }), [
    "invalid configuration: containerLogMaxWorkers must be greater than or equal to 1",
    "invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s",
    "invalid configuration: containerLogMaxFiles must be greater than 1",
  ]);
});
