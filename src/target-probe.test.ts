// The probelet/probe entry's edges: an invalid spec names its fields before anything runs; a
// readiness wait goes on past failureThreshold (a readiness probe never gives up) until its
// signal ends it with the signal's reason, and nothing keeps running after that.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProbeSpecError, probeOnce, waitUntilReady, type ProbeAttempt } from "./target-probe.js";

test("an invalid spec is refused with the API server's field errors, relative to the probe (a startup probe's successThreshold must be 1)", async () => {
  await assert.rejects(waitUntilReady({ tcpSocket: { port: 70000 }, successThreshold: 2 }, { type: "startup" }), (err: unknown) => {
    assert.ok(err instanceof ProbeSpecError);
    assert.deepEqual(err.errors, ["tcpSocket.port: Invalid value: 70000: must be between 1 and 65535, inclusive", "successThreshold: Invalid value: 2: must be 1"]);
    return true;
  });
  await assert.rejects(probeOnce({}), /probe is invalid: Required value: must specify a handler type/);
});

test("a readiness wait goes on past failureThreshold until its signal aborts; it rejects with the reason", async () => {
  const attempts: ProbeAttempt[] = [];
  const controller = new AbortController();
  const reason = new Error("gave up waiting");
  const waiting = waitUntilReady({ exec: { command: ["false"] }, periodSeconds: 1, failureThreshold: 1 }, {
    signal: controller.signal,
    onProbe: (a) => {
      attempts.push(a);
      if (attempts.length === 2) controller.abort(reason);
    },
  });
  await assert.rejects(waiting, (err) => err === reason);
  assert.deepEqual(attempts.map((a) => `${a.result} ${a.run}/${a.threshold}`), ["failure 1/1", "failure 2/1"]);
  await assert.rejects(waitUntilReady({ exec: { command: ["true"] } }, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
});

test("probeOnce says unknown, with the reason, when the probe cannot run", async () => {
  const attempt = await probeOnce({ exec: { command: ["true"] } }, { runner: { runInContainer: () => Promise.reject(new Error("no container")) } });
  assert.equal(attempt.result, "unknown");
  assert.match(attempt.output, /no container/);
});
