// A container that cannot start, as the kubelet reports it (issue 12 item 10): an image that is
// not present, with the pull policy Never that every CRI image has here (no registry), shows
// the waiting reason ErrImageNeverPull with the kubelet's text and its two warning events
// (images/image_manager.go EnsureImageExists, kuberuntime_container.go startContainer). The
// process runtime runs host programs and ignores images, so the case is skipped there with that
// reason. Titled `[<runtime>] Start failure: …` for every runtime factory.
import assert from "node:assert/strict";
import type { Pod } from "../../src/api/types.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

const ABSENT_IMAGE = "localhost/probelet/absent:1";

/** registerStartFailureCases declares the start failure cases for one runtime (call inside a describe). */
export function registerStartFailureCases(factory: RuntimeFactory): void {
  const withImages: RuntimeFactory = { ...factory, available: () => (factory.name === "process" ? "the process runtime runs host programs and ignores images" : factory.available()) };
  runtimeTest(withImages, `[${factory.name}] Start failure: an absent image with pull policy Never waits in ErrImageNeverPull with the kubelet's events`, { timeout: 60_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    const name = `no-image-${Math.random().toString(36).slice(2, 10)}`;
    const pod: Pod = { metadata: { name, namespace: NAMESPACE }, spec: { hostNetwork: env.kit.hostNetwork, containers: [{ name: "app", image: ABSENT_IMAGE, imagePullPolicy: "Never", command: ["/bin/true"] }] } };
    env.create(pod);
    const text = `Container image "${ABSENT_IMAGE}" is not present with pull policy of Never`;
    const waiting = await env.waitFor(name, "ErrImageNeverPull", 30_000, (p) => (containerStatusOf(p, "app")?.state?.waiting?.reason === "ErrImageNeverPull" ? containerStatusOf(p, "app")?.state?.waiting : undefined), 100);
    assert.equal(waiting?.message, text);
    const events = env.events(name).map((e) => `${e.type} ${e.reason} ${e.message}`);
    assert.ok(events.includes(`Warning ErrImageNeverPull ${text}`), events.join("\n"));
    assert.ok(events.includes("Warning Failed Error: ErrImageNeverPull"), events.join("\n"));
    assert.equal(env.get(name)?.status?.phase, "Pending");
  });
}
