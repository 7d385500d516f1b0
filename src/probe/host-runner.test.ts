import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../util/logger.js";
import { CommandTimeoutError } from "./command-runner.js";
import { probeExec } from "./exec.js";
import { HostSpawnError } from "./host-command.js";
import { HostCommandRunner, defaultSpawnerPath, type SpawnerMode } from "./host-runner.js";

const PATH = process.env["PATH"] ?? "/usr/bin:/bin";
const work = mkdtempSync(join(tmpdir(), "probelet-host-runner-"));
after(() => rmSync(work, { recursive: true, force: true }));
let fileCounter = 0;
const tempFile = (): string => join(work, `pid-${++fileCounter}`);

/** readPid waits (bounded) until a shell wrote a PID into `file`. */
async function readPid(file: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
    if (/^\d+$/.test(text)) return Number(text);
    await sleep(10);
  }
  throw new Error(`no PID in ${file}`);
}

/**
 * processGone waits (bounded) until `pid` has no /proc entry at all: not running, not a zombie.
 * With the helper, orphans are reaped by the helper itself (a child subreaper); with the
 * child_process fallback they are reaped by init, which may take a moment.
 */
async function processGone(pid: number, timeoutMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited <= timeoutMs; waited += 20) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await sleep(20);
  }
  return false;
}

/** killGroup is test cleanup for groups a failing test may have left behind. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

const helperBuilt = existsSync(defaultSpawnerPath());
const backends: { mode: SpawnerMode; skip: string | false }[] = [
  { mode: "helper", skip: helperBuilt ? false : "spawner helper not built (run scripts/build-native.sh)" },
  { mode: "node", skip: false },
];

for (const { mode, skip } of backends) {
  describe(`HostCommandRunner (${mode})`, { skip }, () => {
    const runner = new HostCommandRunner({ spawner: mode });
    after(() => runner.close());

    test("uses the requested spawner", () => {
      assert.equal(runner.spawner, mode);
    });

    test("[case 70] real process: stdout then stderr, exit 3 is a failure", async () => {
      const { cpuSeconds: _cpu, ...outcome } = await probeExec(runner, "host", ["sh", "-c", "echo out; echo err >&2; exit 3"], { timeoutMs: 5000 });
      assert.deepEqual(outcome, { result: "failure", output: "out\nerr\n" });
    });

    test("[case 71] sh -c 'sleep 5' with timeout 1 s is a failure naming the command, in about 1 s", async () => {
      const started = performance.now();
      const outcome = await probeExec(runner, "host", ["sh", "-c", "sleep 5"], { timeoutMs: 1000 });
      const elapsed = performance.now() - started;
      assert.deepEqual(outcome, { result: "failure", output: 'command timed out: "sh -c sleep 5" timed out after 1s' });
      assert.ok(elapsed >= 950 && elapsed < 3500, `took ${elapsed} ms`);
    });

    test("exit 0 is a success with the captured streams", async () => {
      const { cpuSeconds: _cpu, ...res } = await runner.run(["sh", "-c", "printf a; printf b >&2"], { timeoutMs: 5000 });
      assert.deepEqual(res, { stdout: Buffer.from("a"), stderr: Buffer.from("b"), exitCode: 0 });
    });

    test("the command's CPU is measured by the helper (wait4), and not claimed without it", async () => {
      // A shell loop that burns CPU for a while, in the command itself and in children it waits for.
      const started = performance.now();
      const res = await runner.run(["sh", "-c", "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; sh -c 'j=0; while [ $j -lt 50000 ]; do j=$((j+1)); done'"], { timeoutMs: 20_000 });
      const wallSeconds = (performance.now() - started) / 1000;
      assert.equal(res.exitCode, 0);
      if (mode === "node") {
        assert.equal(res.cpuSeconds, undefined);
        return;
      }
      assert.ok(res.cpuSeconds !== undefined && res.cpuSeconds >= 0.02, `cpuSeconds ${res.cpuSeconds}`);
      assert.ok(res.cpuSeconds <= wallSeconds * 2 + 0.05, `cpuSeconds ${res.cpuSeconds} over wall ${wallSeconds}`);
      const idle = await runner.run(["true"], { timeoutMs: 5000 });
      assert.ok(idle.cpuSeconds !== undefined && idle.cpuSeconds < res.cpuSeconds, `true took ${idle.cpuSeconds} s of CPU`);
    });

    test("a command killed by a signal reports 128 + the signal number", async () => {
      const res = await runner.run(["sh", "-c", "kill -TERM $$"], { timeoutMs: 5000 });
      assert.equal(res.exitCode, 128 + 15);
    });

    test("timeout kills the whole process group and leaves no zombie", async (t) => {
      const file = tempFile();
      const run = runner.run(["sh", "-c", `sleep 30 & echo $! > ${file}; wait`], { timeoutMs: 500 });
      const rejected = assert.rejects(run, (err: unknown) => err instanceof CommandTimeoutError && err.timeoutMs === 500);
      const grandchild = await readPid(file);
      t.after(() => killGroup(grandchild));
      await rejected;
      assert.ok(await processGone(grandchild), `grandchild ${grandchild} survived the timeout`);
    });

    test("when the leader exits, the rest of its group is killed and the leader's code returned", async (t) => {
      const file = tempFile();
      const started = performance.now();
      const res = await runner.run(["sh", "-c", `sleep 10 & echo $! > ${file}; exit 1`], { timeoutMs: 5000 });
      const grandchild = await readPid(file);
      t.after(() => killGroup(grandchild));
      assert.equal(res.exitCode, 1);
      assert.ok(performance.now() - started < 2500, "waited for the background process");
      assert.ok(await processGone(grandchild), `background process ${grandchild} was left behind`);
    });

    test("stdout flood is capped at 10240 bytes and the command completes", async () => {
      const res = await runner.run(["sh", "-c", "yes | head -c 100000; echo done >&2"], { timeoutMs: 10_000 });
      assert.equal(res.exitCode, 0);
      assert.equal(res.stdout.length, 10240);
      assert.equal(res.stdout.toString(), "y\n".repeat(5120));
      assert.equal(res.stderr.toString(), "done\n");
    });

    test("stderr flood is capped separately", async () => {
      const res = await runner.run(["sh", "-c", "yes | head -c 100000 >&2; echo done"], { timeoutMs: 10_000 });
      assert.equal(res.stderr.length, 10240);
      assert.equal(res.stdout.toString(), "done\n");
    });

    test("an endless writer times out with capped partial output", async () => {
      const started = performance.now();
      const run = runner.run(["yes"], { timeoutMs: 500 });
      await assert.rejects(run, (err: unknown) => {
        assert.ok(err instanceof CommandTimeoutError);
        assert.equal(err.message, 'command timed out: "yes" timed out after 500ms');
        assert.equal(err.partialOutput.length, 10240);
        return true;
      });
      assert.ok(performance.now() - started < 3000);
    });

    test("env and cwd are applied, and env replaces the agent's", async () => {
      const res = await runner.run(["sh", "-c", 'echo "$FOO|${HOME-unset}|$(pwd)"'], { env: { FOO: "bar baz", PATH }, cwd: work, timeoutMs: 5000 });
      assert.equal(res.stdout.toString(), `bar baz|unset|${realpathSync(work)}\n`);
    });

    test("PATH lookup uses the command's own env", async () => {
      const res = await runner.run(["true"], { env: { PATH: "/nonexistent-dir:/usr/bin:/bin" }, timeoutMs: 5000 });
      assert.equal(res.exitCode, 0);
      await assert.rejects(runner.run(["true"], { env: { PATH: "/nonexistent-dir" }, timeoutMs: 5000 }), { code: "ENOENT" });
    });

    test("no shell is involved: argv stays literal", async () => {
      const res = await runner.run(["echo", "$HOME", "a;b", "`id`", "$(id)"], { timeoutMs: 5000 });
      assert.equal(res.stdout.toString(), "$HOME a;b `id` $(id)\n");
    });

    test("a missing binary rejects with a clear ENOENT error", async () => {
      await assert.rejects(runner.run(["/no/such/binary"], { timeoutMs: 5000 }), (err: unknown) => {
        assert.ok(err instanceof HostSpawnError);
        assert.equal(err.code, "ENOENT");
        assert.equal(err.message, "fork/exec /no/such/binary: no such file or directory");
        return true;
      });
      await assert.rejects(runner.run(["probelet-no-such-command"], { timeoutMs: 5000 }), {
        code: "ENOENT",
        message: 'exec: "probelet-no-such-command": executable file not found in $PATH',
      });
    });

    test("a PATH entry whose candidate cannot be executed is skipped as Go's exec.LookPath skips it: not found, not permission denied", async () => {
      const dir = join(work, "path-not-executable");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "probelet-plain-file"), "not a program\n", { mode: 0o644 });
      await assert.rejects(runner.run(["probelet-plain-file"], { env: { PATH: `${dir}:/usr/bin:/bin` }, timeoutMs: 5000 }), {
        code: "ENOENT",
        message: 'exec: "probelet-plain-file": executable file not found in $PATH',
      });
      const res = await runner.run(["true"], { env: { PATH: `${dir}:/usr/bin:/bin` }, timeoutMs: 5000 });
      assert.equal(res.exitCode, 0);
    });

    test("a missing binary makes the probe errored (unknown + error)", async () => {
      const outcome = await probeExec(runner, "host", ["/no/such/binary"], { timeoutMs: 5000 });
      assert.equal(outcome.result, "unknown");
      assert.equal(outcome.output, "");
      assert.ok(outcome.error instanceof HostSpawnError);
    });

    test("a missing working directory rejects with a chdir error", async () => {
      await assert.rejects(runner.run(["true"], { cwd: join(work, "missing"), timeoutMs: 5000 }), {
        code: "ENOENT",
        message: `chdir ${join(work, "missing")}: no such file or directory`,
      });
    });

    test("invalid argv is rejected before spawning", async () => {
      await assert.rejects(runner.run([], { timeoutMs: 5000 }), { code: "EINVAL" });
      await assert.rejects(runner.run(["echo", "a\0b"], { timeoutMs: 5000 }), { code: "EINVAL" });
    });

    test("abort kills the group and rejects with the signal's reason", async (t) => {
      const file = tempFile();
      const controller = new AbortController();
      const run = runner.run(["sh", "-c", `echo $$ > ${file}; exec sleep 30`], { timeoutMs: 10_000, signal: controller.signal });
      run.catch(() => undefined); // handled below; avoids an unhandled rejection meanwhile
      const leader = await readPid(file);
      t.after(() => killGroup(leader));
      const reason = new Error("worker stopped");
      const rejected = assert.rejects(run, (err: unknown) => err === reason);
      controller.abort(reason);
      await rejected;
      assert.ok(await processGone(leader));
    });

    test("many commands in flight at once each get their own output", async () => {
      const runs = Array.from({ length: 24 }, (_, i) => runner.run(["sh", "-c", `sleep 0.0${i % 10}; echo ${i}`], { timeoutMs: 10_000 }));
      const results = await Promise.all(runs);
      assert.deepEqual(
        results.map((r) => r.stdout.toString()),
        Array.from({ length: 24 }, (_, i) => `${i}\n`),
      );
    });

    test("runInContainer resolves the container's context", async (t) => {
      const contexts = new HostCommandRunner({
        spawner: mode,
        resolveContext: (id) => {
          if (id !== "c1") throw new Error(`container ${id} not found`);
          return { env: { WHO: "c1", PATH }, cwd: work };
        },
      });
      t.after(() => contexts.close());
      const { cpuSeconds: _cpu, ...outcome } = await probeExec(contexts, "c1", ["sh", "-c", 'echo "$WHO $(pwd)"'], { timeoutMs: 5000 });
      assert.deepEqual(outcome, { result: "success", output: `c1 ${realpathSync(work)}\n` });
      const missing = await probeExec(contexts, "c2", ["true"], { timeoutMs: 5000 });
      assert.equal(missing.result, "unknown");
      assert.equal(missing.error?.message, "container c2 not found");
    });

    test("close kills running commands, and the runner refuses new ones", async (t) => {
      const closing = new HostCommandRunner({ spawner: mode });
      const file = tempFile();
      const run = closing.run(["sh", "-c", `echo $$ > ${file}; exec sleep 30`], { timeoutMs: 10_000 });
      run.catch(() => undefined); // handled below; avoids an unhandled rejection meanwhile
      const leader = await readPid(file);
      t.after(() => killGroup(leader));
      const rejected = assert.rejects(run);
      await closing.close();
      await rejected;
      assert.ok(await processGone(leader));
      await assert.rejects(closing.run(["true"], { timeoutMs: 1000 }), /closed/);
      await closing.close(); // idempotent
    });
  });
}

describe("HostCommandRunner helper lifecycle", { skip: helperBuilt ? false : "spawner helper not built" }, () => {
  test("a dead helper fails its in-flight commands and is restarted for the next one", async (t) => {
    const runner = new HostCommandRunner({ spawner: "helper" });
    t.after(() => runner.close());
    assert.equal((await runner.run(["true"], { timeoutMs: 5000 })).exitCode, 0);
    const helper = helperPid();
    const file = tempFile();
    const run = runner.run(["sh", "-c", `echo $$ > ${file}; exec sleep 30`], { timeoutMs: 10_000 });
    run.catch(() => undefined); // handled below; avoids an unhandled rejection meanwhile
    const leader = await readPid(file);
    t.after(() => killGroup(leader));
    const rejected = assert.rejects(run, /exec spawner helper exited unexpectedly/);
    process.kill(helper, "SIGKILL");
    await rejected;
    assert.ok(await processGone(leader), "the leader outlived its helper");
    const res = await runner.run(["sh", "-c", "echo again"], { timeoutMs: 5000 });
    assert.equal(res.stdout.toString(), "again\n");
    assert.notEqual(helperPid(), helper);
  });

  test("a command in flight keeps the process alive, and the idle helper lets it exit", () => {
    // No close(): the process must stay up for the command's answer, then exit on its own.
    const script = [
      `import { HostCommandRunner } from ${JSON.stringify(new URL("./host-runner.js", import.meta.url).href)};`,
      `const runner = new HostCommandRunner({ spawner: "helper" });`,
      `runner.run(["sh", "-c", "sleep 0.3; echo answered"], { timeoutMs: 5000 }).then((r) => process.stdout.write(r.stdout));`,
    ].join("\n");
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 15_000 });
    assert.equal(child.error, undefined, "the process did not exit on its own");
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, "answered\n");
  });

  test("a repeated command is re-encoded when its argv array, env or timeout changed in place", async (t) => {
    const runner = new HostCommandRunner({ spawner: "helper" });
    t.after(() => runner.close());
    const argv = ["sh", "-c", "echo one $X"];
    const env = { PATH, X: "a" };
    assert.equal((await runner.run(argv, { env, timeoutMs: 5000 })).stdout.toString(), "one a\n");
    argv[2] = "echo two $X";
    assert.equal((await runner.run(argv, { env, timeoutMs: 5000 })).stdout.toString(), "two a\n");
    assert.equal((await runner.run(argv, { env: { PATH, X: "b" }, timeoutMs: 5000 })).stdout.toString(), "two b\n");
    argv[2] = "sleep 5";
    await assert.rejects(runner.run(argv, { env, timeoutMs: 200 }), CommandTimeoutError);
  });

  test("a missing helper binary falls back to child_process.spawn with one warning", async (t) => {
    const warnings: string[] = [];
    const logger = recordingLogger(warnings);
    const runner = new HostCommandRunner({ helperPath: join(work, "no-helper"), logger });
    t.after(() => runner.close());
    assert.equal(runner.spawner, "node");
    assert.equal((await runner.run(["sh", "-c", "echo ok"], { timeoutMs: 5000 })).stdout.toString(), "ok\n");
    const again = new HostCommandRunner({ helperPath: join(work, "no-helper"), logger });
    assert.equal(again.spawner, "node");
    await again.close();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /helper unavailable/);
  });
});

/** helperPid finds this test process's spawner helper among its children. */
function helperPid(): number {
  const pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (stat.includes("(probelet-spawne") && Number(fields[1]) === process.pid) return Number(pid);
    } catch {
      // the process went away while scanning
    }
  }
  throw new Error("no spawner helper found");
}

function recordingLogger(warnings: string[]): Logger {
  const logger: Logger = {
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (msg) => void warnings.push(msg),
    error: () => undefined,
    child: () => logger,
    isEnabled: () => true,
  };
  return logger;
}
