// The PLEG's relist wakes a pod only when one of its containers appeared, vanished or changed
// state (kubelet pleg/generic.go Relist, computeEvents per container ID), whatever order the
// runtime lists them in.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContainerConfig, ContainerSummary, PodSandboxConfig } from "../runtime/runtime.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { FakeRuntime } from "../../test/fakes/fake-runtime.js";
import { silentLogger } from "../util/logger.js";
import { Pleg } from "./pleg.js";

/** ReorderingRuntime lists its containers in the reverse order at every other call, as containerd's map-ordered ListContainers may. */
class ReorderingRuntime extends FakeRuntime {
  private relists = 0;
  override async relistContainers(): Promise<ContainerSummary[]> {
    const list = await super.relistContainers();
    return this.relists++ % 2 === 0 ? list : list.reverse();
  }
}

test("GenericPLEG Relist: a pod whose two instances are listed in another order is not woken; a removed instance does not wake it (isSyncPodWorthy), a new one does", async () => {
  const clock = new FakeClock();
  const runtime = new ReorderingRuntime(clock);
  const config: PodSandboxConfig = { podUid: "u1", name: "p", namespace: "default", attempt: 0, hostNetwork: false, logDirectory: "/tmp/none", labels: {}, annotations: {} };
  const sandbox = await runtime.runPodSandbox(config);
  const instance = async (attempt: number): Promise<string> => {
    const container: ContainerConfig = { name: "c", attempt, image: "img", command: ["app"], args: [], envs: [], labels: {}, annotations: {}, logPath: `c/${attempt}.log` };
    const id = await runtime.createContainer(sandbox, container, config);
    await runtime.startContainer(id);
    runtime.exit(id, 1);
    return id;
  };
  const first = await instance(0);
  await instance(1);
  const pleg = new Pleg(runtime, clock, silentLogger);
  let woken = 0;
  const pod = { sandboxId: sandbox, queueSync: () => void woken++ };
  for (let i = 0; i < 6; i++) await pleg.relist([pod]);
  assert.equal(woken, 1, "woken by the first relist only, not by the order of the list");
  await runtime.removeContainer(first);
  await pleg.relist([pod]);
  assert.equal(woken, 1, "ContainerRemoved is not worth a sync");
  await instance(2);
  await pleg.relist([pod]);
  assert.equal(woken, 2, "a new instance wakes it");
});
