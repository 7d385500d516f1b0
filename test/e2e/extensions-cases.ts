// Opt-in probe extensions end to end (docs/extensions.md): a pod whose readiness probe accepts a
// 404 with a matching body and probes every 200 ms until it first succeeds becomes Ready within a
// second or two of its endpoint turning healthy, although its periodSeconds is 30; then it is
// probed at the kubelet's period. Titled `[<runtime>] …` for every runtime factory.
import assert from "node:assert/strict";
import type { Container } from "../../src/api/types.js";
import { startHttpServer } from "../servers/http-servers.js";
import { E2eEnv, isPodReady } from "./harness.js";
import { podWith } from "./pod-specs.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

/** registerExtensionCases adds the probe extension case for one runtime. */
export function registerExtensionCases(factory: RuntimeFactory): void {
  runtimeTest(factory, `[${factory.name}] probe extensions: acceptStatus and bodyPattern decide readiness; fastPeriodMs makes it Ready fast, then the period applies`, { timeout: 60_000 }, async (t) => {
    let healthyAt = Number.POSITIVE_INFINITY;
    const requests: number[] = [];
    const target = await startHttpServer((_req, res) => {
      requests.push(Date.now());
      // Before it is "healthy" the endpoint answers 404 with a body that does not match.
      res.statusCode = 404;
      res.end(Date.now() >= healthyAt ? "state=ok" : "state=starting");
    });
    t.after(() => target.close());
    const env = await E2eEnv.start(t, factory);
    const container: Container = {
      name: "app",
      ...env.kit.agnhost("pause"),
      readinessProbe: { httpGet: { host: "127.0.0.1", port: target.port, path: "/ready" }, periodSeconds: 30 },
    };
    const pod = podWith(env.kit, "container", "extensions", container);
    pod.metadata.annotations = { "probe.probelet.dev/app.readiness": 'fastPeriodMs: 200\nhttp: {acceptStatus: [404], bodyPattern: "^state=ok$"}' };
    const name = env.create(pod).metadata.name ?? "";
    // Probed fast while failing: several probes in the first two seconds, none Ready.
    await env.waitFor(name, "three fast readiness probes", 10_000, () => (requests.length >= 3 ? true : undefined), 50);
    assert.equal(isPodReady(env.get(name)), false);
    assert.ok(env.events(name).some((e) => e.reason === "Unhealthy" && e.message === "Readiness probe failed: HTTP probe failed: the body does not match /^state=ok$/"), env.describe(name));
    healthyAt = Date.now();
    const readyAt = await env.waitFor(name, "Ready", 10_000, (p) => (isPodReady(p) ? Date.now() : undefined), 50);
    assert.ok(readyAt - healthyAt < 2000, `Ready ${readyAt - healthyAt} ms after the endpoint turned healthy (period 30 s, fast 200 ms)`);
    // Then the kubelet's period: no further probe within the next two seconds.
    const probesAtReady = requests.length;
    await new Promise((r) => setTimeout(r, 2000));
    assert.ok(requests.length <= probesAtReady + 1, `${requests.length - probesAtReady} probes after Ready`);
    assert.equal(isPodReady(env.get(name)), true);
  });
}
