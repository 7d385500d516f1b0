// How long a ConfigMap change takes to reach the file of a mounted configMap volume: an agent on
// the process runtime runs one pod that mounts a ConfigMap; each of 50 updates is timed from
// putConfigMap until the volume file on the host holds the new value (change notification, pod
// sync, atomic write). Run: `npm run build && node dist/bench/volumes/config-update.js`.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../../src/agent/agent.js";
import { ProcessRuntime } from "../../src/runtime/process/process-runtime.js";
import { MemoryConfigObjects } from "../../src/volumes/config-objects.js";
import { startLocalApiServer } from "../../src/apiserver/local-api-server.js";

const UPDATES = 50;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "probelet-bench-volumes-"));
  const runtime = new ProcessRuntime({ stateDir: join(dir, "runtime") });
  const objects = new MemoryConfigObjects();
  const agent = new Agent({ api: startLocalApiServer(), runtime, stateDir: join(dir, "state"), configObjects: objects });
  try {
    objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { v: "0" } });
    agent.start();
    const admitted = agent.admit(
      {
        metadata: { name: "bench", namespace: "default" },
        spec: { volumes: [{ name: "c", configMap: { name: "cfg" } }], containers: [{ name: "app", image: "busybox", command: ["/bin/sh", "-c", "sleep 300"], volumeMounts: [{ name: "c", mountPath: join(dir, "mnt") }] }] },
      },
      "api",
    );
    if (!admitted.ok) throw new Error(admitted.errors.join("; "));
    const file = join(dir, "state", "volumes", admitted.pod.metadata.uid ?? "", "volumes", "kubernetes.io~configmap", "c", "v");
    const waitFor = async (want: string): Promise<void> => {
      for (let i = 0; i < 10_000; i++) {
        if ((await readFile(file, "utf8").catch(() => "")) === want) return;
        await new Promise((r) => setTimeout(r, 1));
      }
      throw new Error(`the volume file never read ${want}`);
    };
    await waitFor("0");
    const samples: number[] = [];
    for (let i = 1; i <= UPDATES; i++) {
      const started = performance.now();
      objects.putConfigMap({ metadata: { name: "cfg", namespace: "default" }, data: { v: String(i) } });
      await waitFor(String(i));
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    const at = (q: number): string => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(1);
    console.log(`ConfigMap update -> mounted volume file, ${UPDATES} updates: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
  } finally {
    await agent.close(0);
    await runtime.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
