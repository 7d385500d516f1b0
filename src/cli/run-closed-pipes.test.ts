// `probelet run` whose output pipes are closed by the reader (a terminal gone, `| head`): the agent
// neither dies (orphaning its pods) nor spins reporting the broken pipe to the broken pipe; it
// keeps serving and still stops gracefully.
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { agentSandbox } from "../../test/agent-process.js";
import { getText } from "../../test/cri/agent-cli.js";

/** cpuSeconds is a process's user + system CPU time (/proc/PID/stat, clock ticks of 10 ms). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

test("an agent whose stdout and stderr readers went away keeps serving without spinning, and stops gracefully", async (t) => {
  const { dir, start } = await agentSandbox(t, "probelet-closed-pipes-");
  const manifests = join(dir, "manifests");
  await mkdir(manifests);
  const state = join(dir, "state");
  const agent = await start(["--manifests", manifests, "--listen", "127.0.0.1:0", "--state-dir", state]);
  const pid = agent.child.pid!;
  agent.child.stdout!.destroy();
  agent.child.stderr!.destroy();
  // An invalid manifest makes the agent report an error on stderr, into the closed pipe.
  await writeFile(join(manifests, "bad.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: \"\"}]}\n");
  await new Promise((r) => setTimeout(r, 1500));
  const before = await cpuSeconds(pid);
  await new Promise((r) => setTimeout(r, 1000));
  assert.ok((await cpuSeconds(pid)) - before < 0.5, "the agent is idle, not looping on EPIPE");
  assert.equal(await getText(`${agent.url}/healthz`, state), "ok");
  const exited = new Promise<number | null>((r) => agent.child.once("exit", (code) => r(code)));
  agent.child.kill("SIGINT");
  assert.equal(await exited, 0, "a graceful stop, not a crash");
});
