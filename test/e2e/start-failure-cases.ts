// A container that cannot start, as the kubelet reports it (issue 12 item 10, issue 30
// failed-image): an image that is not present with pull policy Never shows the waiting reason
// ErrImageNeverPull with the kubelet's text and its two warning events; one at a registry that
// cannot be reached (a closed loopback port) with IfNotPresent is pulled and shows ErrImagePull,
// then ImagePullBackOff, with the pull events (images/image_manager.go EnsureImageExists,
// kuberuntime_container.go startContainer). The process runtime runs host programs and ignores
// images, so the cases are skipped there with that reason. Titled `[<runtime>] Start failure: …`
// for every runtime factory.
import assert from "node:assert/strict";
import type { Pod } from "../../src/api/types.js";
import { containerStatusOf, E2eEnv, NAMESPACE } from "./harness.js";
import { freePort } from "./host.js";
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

  runtimeTest(withImages, `[${factory.name}] Start failure: an image at an unreachable registry is pulled (IfNotPresent): ErrImagePull, then ImagePullBackOff, with the kubelet's events`, { timeout: 90_000 }, async (t) => {
    const env = await E2eEnv.start(t, factory);
    // A port the system just gave out and took back: nothing listens there.
    const image = `127.0.0.1:${await freePort()}/nothing:1`;
    const name = `pull-fail-${Math.random().toString(36).slice(2, 10)}`;
    const pod: Pod = { metadata: { name, namespace: NAMESPACE }, spec: { hostNetwork: env.kit.hostNetwork, containers: [{ name: "app", image, imagePullPolicy: "IfNotPresent", command: ["/bin/true"] }] } };
    env.create(pod);
    const waiting = await env.waitFor(name, "ImagePullBackOff", 60_000, (p) => (containerStatusOf(p, "app")?.state?.waiting?.reason === "ImagePullBackOff" ? containerStatusOf(p, "app")?.state?.waiting : undefined), 100);
    const reasons = env.podLog.filter((p) => p.object.metadata.name === name).map((p) => containerStatusOf(p.object, "app")?.state?.waiting?.reason);
    const firstPullError = reasons.indexOf("ErrImagePull");
    assert.ok(firstPullError >= 0 && firstPullError < reasons.indexOf("ImagePullBackOff"), `waiting reasons seen: ${reasons.join(", ")}`);
    const events = env.events(name).map((e) => `${e.type} ${e.reason} ${e.message}`);
    const failed = events.find((e) => e.startsWith(`Warning Failed Failed to pull image "${image}": `));
    assert.ok(failed, events.join("\n"));
    // containerd's own text: it cannot reach the registry.
    const pullError = failed.slice(`Warning Failed Failed to pull image "${image}": `.length);
    assert.match(pullError, /connection refused/);
    assert.equal(waiting?.message, `Back-off pulling image "${image}": ErrImagePull: ${pullError}`);
    for (const expected of [`Normal Pulling Pulling image "${image}"`, "Warning Failed Error: ErrImagePull", `Normal BackOff Back-off pulling image "${image}"`, "Warning Failed Error: ImagePullBackOff"]) {
      assert.ok(events.includes(expected), `${expected} in:\n${events.join("\n")}`);
    }
    assert.equal(env.get(name)?.status?.phase, "Pending");
  });
}

