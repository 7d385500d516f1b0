// kubernetes#139168 on the process runtime: an env value that is not UTF-8 (a Secret's bytes)
// reaches a supervised container as its exact bytes.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseCriLogLine } from "../log-format.js";
import { ProcessRuntime } from "./process-runtime.js";
import { supervisorAvailable } from "./supervised-process.js";
import { testContainerConfig, testSandboxConfig, waitForContainerState } from "../../../test/process-testing.js";

const skip = (await supervisorAvailable()) ? false : "the supervisor helper is not built (no C compiler)";

test("#139168: a supervised container's env value ff fe 41 arrives as those three bytes, not as U+FFFD", { skip }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "probelet-env-bytes-"));
  const runtime = new ProcessRuntime({ stateDir: join(dir, "state") });
  t.after(async () => {
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  });
  const sandbox = testSandboxConfig(join(dir, "logs"));
  const sandboxId = await runtime.runPodSandbox(sandbox);
  const raw = Buffer.from([0xff, 0xfe, 0x41]);
  const envs = [{ key: "RAW", value: raw.toString("utf8"), valueBase64: raw.toString("base64") }, { key: "TEXT", value: "é" }];
  const id = await runtime.createContainer(sandboxId, testContainerConfig("app", 'printf %s "$RAW" | od -An -tx1; printf %s "$TEXT" | od -An -tx1', { envs }), sandbox);
  await runtime.startContainer(id);
  await waitForContainerState(runtime, id, "exited");
  const lines = (await readFile(join(dir, "logs", "app", "0.log"), "utf8")).split("\n").filter((l) => l !== "");
  assert.deepEqual(lines.map((l) => parseCriLogLine(l).content.toString().trim()), ["ff fe 41", "c3 a9"]);
});
