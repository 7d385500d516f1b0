import assert from "node:assert/strict";
import { test } from "node:test";
import type { WatchEvent } from "../agent/agent-api.js";
import type { AdmitResult } from "../agent/agent.js";
import type { Pod } from "../api/types.js";
import { silentLogger } from "../util/logger.js";
import { AgentBridge } from "./agent-bridge.js";
import { MIRROR_ANNOTATION } from "./mirror-pods.js";

function pod(name: string, extra: Partial<Pod["metadata"]> = {}, status?: Pod["status"]): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", uid: `uid-${name}`, ...extra }, spec: { containers: [{ name: "app", image: "busybox" }] }, ...(status ? { status } : {}) };
}

function setup(admit: (p: Pod) => AdmitResult = (p) => ({ ok: true, pod: p }), mirrorDeleting: (p: Pod) => void = () => undefined) {
  const calls: string[] = [];
  const sunk: Pod[] = [];
  const terminated: Pod[] = [];
  const statics: string[] = [];
  let watcher: (e: WatchEvent<Pod>) => void = () => undefined;
  const bridge = new AgentBridge({
    agent: {
      admit: (p, source, uid) => {
        calls.push(`admit ${p.metadata.name ?? ""} ${source} ${uid ?? ""}`);
        return admit(p);
      },
      deletePod: (_ns, name, grace) => calls.push(`delete ${name} ${grace ?? "-"}`),
      watchPods: (l) => {
        watcher = l;
        return () => undefined;
      },
    },
    sink: { statusChanged: (p) => sunk.push(p), podTerminated: (p) => terminated.push(p) },
    staticPods: (e) => statics.push(`${e.type} ${e.object.metadata.name ?? ""}`),
    mirrorDeleting,
    logger: silentLogger,
  });
  return { bridge, calls, sunk, terminated, statics, emit: (e: WatchEvent<Pod>) => watcher(e) };
}

test("API server pods are admitted with their UID, deleted with their grace period, and their statuses reach the sink", () => {
  const { bridge, calls, sunk, terminated, statics, emit } = setup();
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("web")] });
  emit({ type: "MODIFIED", object: pod("web", {}, { phase: "Running" }) });
  emit({ type: "MODIFIED", object: pod("static", { uid: "uid-static" }, { phase: "Running" }) });
  bridge.handle({ op: "DELETE", source: "apiserver", pods: [pod("web", { deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 7 })] });
  emit({ type: "DELETED", object: pod("web", {}, { phase: "Succeeded" }) });
  assert.deepEqual(calls, ["admit web apiserver uid-web", "delete web 7"]);
  assert.deepEqual(sunk.map((p) => p.status?.phase), ["Running"]);
  assert.deepEqual(terminated.map((p) => p.metadata.name), ["web"]);
  assert.deepEqual(statics, ["MODIFIED static"]);
});

test("a pod the agent cannot admit is reported Failed with UnexpectedAdmissionError and its reasons", () => {
  const { bridge, sunk } = setup(() => ({ ok: false, name: "bad", errors: ["spec.containers[0].livenessProbe: Required value: must specify a handler type"] }));
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("bad")] });
  assert.equal(sunk.length, 1);
  assert.equal(sunk[0]!.status?.phase, "Failed");
  assert.equal(sunk[0]!.status?.reason, "UnexpectedAdmissionError");
  assert.equal(sunk[0]!.status?.message, "Pod was rejected: spec.containers[0].livenessProbe: Required value: must specify a handler type");
});

test("mirror pods and pods the API server shows finished are not run, a deleted mirror goes to the mirror client, and a pod the agent never had is not deleted", () => {
  const deleting: string[] = [];
  const { bridge, calls } = setup(undefined, (p) => deleting.push(p.metadata.name ?? ""));
  bridge.handle({ op: "ADD", source: "apiserver", pods: [pod("mirror", { annotations: { [MIRROR_ANNOTATION]: "h" } }), pod("done", {}, { phase: "Succeeded" })] });
  bridge.handle({ op: "REMOVE", source: "apiserver", pods: [pod("stranger")] });
  bridge.handle({ op: "DELETE", source: "apiserver", pods: [pod("mirror", { annotations: { [MIRROR_ANNOTATION]: "h" }, deletionTimestamp: "2026-01-01T00:00:00Z" })] });
  assert.deepEqual(calls, []);
  assert.deepEqual(deleting, ["mirror"]);
});
