import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { systemClock } from "../../util/clock.js";
import { CNI_TIMEOUT_MS, CniError, MAX_CNI_OUTPUT_BYTES, runCniPlugin, type CniRequest } from "./cni-plugin.js";
import { FakeClock } from "../../../test/fakes/fake-clock.js";
import { isAlive, waitFor } from "../../../test/process-testing.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-cni-plugin-"));
after(() => rm(dir, { recursive: true, force: true }));

/** plugin writes a fake CNI plugin: a shell script named `type` in the test's plugin dir. */
async function plugin(type: string, script: string): Promise<void> {
  const path = join(dir, type);
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o700);
}

function request(type: string, command: CniRequest["command"] = "ADD"): CniRequest {
  return { command, type, containerId: "abc", netns: "/run/x/netns/abc", ifName: "eth0", pluginDir: dir, config: { cniVersion: "1.0.0", name: "n", type } };
}

test("runCniPlugin passes the CNI variables in the environment and the configuration on stdin, and reads the result's interfaces and IPs", async () => {
  const seen = join(dir, "seen");
  await plugin("good", `env | grep '^CNI_' | sort > ${seen}; cat >> ${seen}; echo '{"cniVersion":"1.0.0","interfaces":[{"name":"br"},{"name":"eth0","sandbox":"/n"}],"ips":[{"interface":1,"address":"10.88.0.2/24"}]}'`);
  const result = await runCniPlugin(request("good"), systemClock);
  assert.deepEqual(result, { interfaces: [{ name: "br" }, { name: "eth0", sandbox: "/n" }], ips: [{ interface: 1, address: "10.88.0.2/24" }] });
  const lines = (await readFile(seen, "utf8")).split("\n");
  assert.deepEqual(lines.slice(0, 5), ["CNI_COMMAND=ADD", "CNI_CONTAINERID=abc", "CNI_IFNAME=eth0", "CNI_NETNS=/run/x/netns/abc", `CNI_PATH=${dir}`]);
  assert.deepEqual(JSON.parse(lines[5] ?? ""), { cniVersion: "1.0.0", name: "n", type: "good" });
});

test("runCniPlugin words a plugin's error object as libcni does: plugin type, operation, message and details", async () => {
  await plugin("failing", `echo '{"cniVersion":"1.0.0","code":11,"msg":"failed to allocate","details":"no IP addresses available in range set"}'; exit 1`);
  await assert.rejects(runCniPlugin(request("failing"), systemClock), new CniError('plugin type="failing" failed (add): failed to allocate: no IP addresses available in range set'));
  await plugin("stderr-only", `echo 'first' >&2; echo 'last words' >&2; exit 3`);
  await assert.rejects(runCniPlugin(request("stderr-only", "DEL"), systemClock), new CniError('plugin type="stderr-only" failed (del): last words'));
});

test("runCniPlugin refuses a missing plugin, a result without ips, and output over its bound", async () => {
  await assert.rejects(runCniPlugin(request("absent"), systemClock), /plugin type="absent" failed \(add\): spawn .*absent ENOENT/);
  await plugin("no-ips", `echo '{"cniVersion":"1.0.0"}'`);
  await assert.rejects(runCniPlugin(request("no-ips"), systemClock), /the plugin's result has no "ips" list/);
  await plugin("flood", `head -c ${MAX_CNI_OUTPUT_BYTES * 4} /dev/zero; sleep 30`);
  await assert.rejects(runCniPlugin(request("flood"), systemClock), /output exceeds 65536 bytes/);
});

test("runCniPlugin reads nothing of a successful DEL's output", async () => {
  await plugin("del", "echo not json");
  assert.deepEqual(await runCniPlugin(request("del", "DEL"), systemClock), { interfaces: [], ips: [] });
});

test("runCniPlugin kills a plugin that does not answer within CNI_TIMEOUT_MS, with its process group", async () => {
  const pidFile = join(dir, "hung.pid");
  await plugin("hung", `sleep 300 & echo $! > ${pidFile}; wait`);
  const clock = new FakeClock();
  const refused = assert.rejects(runCniPlugin(request("hung"), clock), new CniError('plugin type="hung" failed (add): no answer within 30s'));
  const child = Number(await waitFor("the plugin to start its child", async () => (await readFile(pidFile, "utf8").catch(() => "")).trim() || undefined));
  await clock.advance(CNI_TIMEOUT_MS);
  await refused;
  await waitFor("the plugin's child to go with its group", () => !isAlive(child));
});
