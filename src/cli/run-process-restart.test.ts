// After kill -9 of the agent, process containers cannot be adopted (their log pipes died with the
// agent); the next agent with the same state directory reaps the groups left behind before it
// starts the pod again, so nothing is orphaned.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("./main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pidsRunning lists live (non-zombie) PIDs whose command line is exactly argv. */
async function pidsRunning(argv: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmd = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    if (cmd === argv.join("\0") + "\0" && !/\) Z /.test(stat)) out.push(Number(name));
  }
  return out;
}

test("probelet run: a killed agent's process containers are reaped by the next agent, never orphaned", { timeout: 60_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-prestart-"));
  const marker = String(7000 + (process.pid % 1000));
  const argv = ["sleep", marker];
  await writeFile(join(dir, "pod.yaml"), `apiVersion: v1\nkind: Pod\nmetadata: { name: sleeper }\nspec:\n  containers:\n    - name: s\n      command: ["sleep", "${marker}"]\n`);
  const agents: ChildProcess[] = [];
  const start = (): ChildProcess => {
    const child = spawn(process.execPath, [cli, "run", "-f", join(dir, "pod.yaml"), "--listen", "127.0.0.1:0", "--state-dir", join(dir, "state"), "-q"], { stdio: "ignore" });
    agents.push(child);
    return child;
  };
  t.after(async () => {
    for (const a of agents) if (a.exitCode === null && a.signalCode === null) a.kill("SIGKILL");
    for (const pid of await pidsRunning(argv)) process.kill(pid, "SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  const first = start();
  let old: number[] = [];
  for (let i = 0; i < 100 && old.length === 0; i++, await sleep(100)) old = await pidsRunning(argv);
  assert.equal(old.length, 1, "the container runs");
  first.kill("SIGKILL");
  await new Promise((r) => first.once("exit", r));
  assert.deepEqual(await pidsRunning(argv), old, "the container outlived the killed agent");

  const second = start();
  let now: number[] = [];
  for (let i = 0; i < 100; i++, await sleep(100)) {
    now = await pidsRunning(argv);
    if (now.length === 1 && now[0] !== old[0]) break;
  }
  assert.equal(now.length, 1, "exactly one instance runs: the old one was reaped");
  assert.notEqual(now[0], old[0]);
  second.kill("SIGTERM");
  await new Promise((r) => second.once("exit", r));
  assert.deepEqual(await pidsRunning(argv), [], "a graceful stop leaves nothing running");
});
