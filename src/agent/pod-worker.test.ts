import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../util/logger.js";
import type { PodRecord } from "../kuberuntime/pod-record.js";
import { PodWorker, TERMINATE_ATTEMPTS, type PodWorkerHooks } from "./pod-worker.js";

const record = { pod: { metadata: { name: "p", uid: "u" }, spec: { containers: [] } } } as unknown as PodRecord;

/** microtasks lets n promise continuations run. */
async function microtasks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

function hooks(overrides: Partial<PodWorkerHooks> = {}): PodWorkerHooks & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    sync: async () => void log.push("sync"),
    terminate: async (_r, grace) => void log.push(`terminate ${grace}`),
    terminated: () => void log.push("terminated"),
    shorten: (_r, grace) => void log.push(`shorten ${grace}`),
    retryDelay: async () => void log.push("retry delay"),
    logger: silentLogger,
    ...overrides,
  };
}

test("syncs asked for while one runs coalesce into one more", async () => {
  let release!: () => void;
  const h = hooks();
  h.sync = async () => {
    h.log.push("sync");
    if (h.log.length === 1) await new Promise<void>((r) => (release = r));
  };
  const worker = new PodWorker(record, h);
  worker.queueSync();
  await microtasks(5);
  for (let i = 0; i < 5; i++) worker.queueSync();
  release();
  await worker.idle();
  assert.deepEqual(h.log, ["sync", "sync"]);
});

test("a sync asked for at any moment after the previous one ends is never lost", async () => {
  // The worker must forget its loop in the same step as its last look at the queue; asking at
  // each of the first microtasks after a sync covers every moment of that hand-over.
  // The first sync has begun when queueSync returns, so a second request always needs a second sync.
  for (let delay = 0; delay <= 12; delay++) {
    const h = hooks();
    const worker = new PodWorker(record, h);
    worker.queueSync();
    await microtasks(delay);
    worker.queueSync();
    await worker.idle();
    await microtasks(20);
    assert.deepEqual(h.log, ["sync", "sync"], `second request after ${delay} microtasks`);
  }
});

test("a sync that throws is logged and later requests still run", async () => {
  const errors: string[] = [];
  const h = hooks({ logger: { ...silentLogger, error: (msg: string) => void errors.push(msg) } });
  let calls = 0;
  h.sync = async () => {
    calls++;
    if (calls === 1) throw new Error("runtime unavailable");
  };
  const worker = new PodWorker(record, h);
  worker.queueSync();
  await worker.idle();
  worker.queueSync();
  await worker.idle();
  assert.equal(calls, 2);
  assert.deepEqual(errors, ["Error syncing pod, skipping"]);
});

test("terminate runs once, a shorter grace given meanwhile shortens it, and nothing syncs afterwards", async () => {
  let release!: () => void;
  const h = hooks();
  h.terminate = async (_r, grace) => {
    h.log.push(`terminate ${grace}`);
    await new Promise<void>((r) => (release = r));
  };
  const worker = new PodWorker(record, h);
  const done = worker.terminate(30);
  await microtasks(5);
  void worker.terminate(60); // longer: ignored
  void worker.terminate(0); // shorter: the running termination is told
  release();
  await done;
  worker.queueSync();
  await worker.idle();
  assert.deepEqual(h.log, ["terminate 30", "shorten 0", "terminated"]);
  assert.equal(worker.finished, true);
  assert.equal(worker.terminating, true);
});

test("a failed termination is tried again after the retry delay until it succeeds", async () => {
  const h = hooks();
  let failures = 2;
  h.terminate = async (_r, grace) => {
    h.log.push(`terminate ${grace}`);
    if (failures-- > 0) throw new Error("DeadlineExceeded: RemovePodSandbox");
  };
  const worker = new PodWorker(record, h);
  await worker.terminate(0);
  assert.deepEqual(h.log, ["terminate 0", "retry delay", "terminate 0", "retry delay", "terminate 0", "terminated"]);
  assert.equal(worker.finished, true);
});

test("a termination that keeps failing is given up after TERMINATE_ATTEMPTS: the pod is forgotten all the same", async () => {
  const h = hooks();
  h.terminate = async (_r, grace) => {
    h.log.push(`terminate ${grace}`);
    throw new Error("refused");
  };
  const worker = new PodWorker(record, h);
  await worker.terminate(5);
  assert.equal(h.log.filter((l) => l === "terminate 5").length, TERMINATE_ATTEMPTS);
  assert.equal(h.log.filter((l) => l === "retry delay").length, TERMINATE_ATTEMPTS - 1);
  assert.equal(h.log.at(-1), "terminated");
  assert.equal(worker.finished, true);
});
