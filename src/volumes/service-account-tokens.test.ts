import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { silentLogger } from "../util/logger.js";
import { ServiceAccountTokens, type TokenRequest } from "./service-account-tokens.js";

const pod = { name: "web", uid: "uid-1" };

/** issuer answers TokenRequests as the API server does (expiry = now + expirationSeconds), or fails while `down`. */
function issuer(clock: FakeClock) {
  const state = { down: false, requests: [] as { namespace: string; serviceAccount: string; request: TokenRequest }[] };
  const request = async (namespace: string, serviceAccount: string, req: TokenRequest): Promise<TokenRequest> => {
    state.requests.push({ namespace, serviceAccount, request: req });
    if (state.down) throw new Error('Post "https://127.0.0.1:6443/api/v1/namespaces/default/serviceaccounts/default/token": dial tcp 127.0.0.1:6443: connect: connection refused');
    const expirationTimestamp = new Date(clock.now() + req.spec.expirationSeconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    return { ...req, status: { token: `token-${state.requests.length}`, expirationTimestamp } };
  };
  return { state, request };
}

test("token manager GetServiceAccountToken: the TokenRequest is bound to the pod with the projection's audience and lifetime, and cached", async () => {
  const clock = new FakeClock();
  const { state, request } = issuer(clock);
  const tokens = new ServiceAccountTokens({ request, clock, logger: silentLogger, random: () => 0 });
  assert.equal(await tokens.token("default", "builder", pod, "vault", 3607), "token-1");
  assert.equal(await tokens.token("default", "builder", pod, "vault", 3607), "token-1");
  assert.equal(state.requests.length, 1);
  assert.deepEqual(state.requests[0], {
    namespace: "default",
    serviceAccount: "builder",
    request: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["vault"], expirationSeconds: 3607, boundObjectRef: { apiVersion: "v1", kind: "Pod", name: "web", uid: "uid-1" } } },
  });
  // No audience: the request carries none (the API server's own audiences apply); another cache entry.
  assert.equal(await tokens.token("default", "builder", pod, undefined, 3607), "token-2");
  assert.equal(state.requests[1]!.request.spec.audiences, undefined);
  assert.equal(tokens.size, 2);
});

test("token manager requiresRefresh: a token is requested again once 80% of its lifetime passed, less the jitter", async () => {
  const clock = new FakeClock();
  const { state, request } = issuer(clock);
  let random = 0;
  const tokens = new ServiceAccountTokens({ request, clock, logger: silentLogger, random: () => random });
  await tokens.token("default", "default", pod, undefined, 3600);
  await clock.advance(2880_000); // exactly 80%: not yet (the rule is "after")
  assert.equal(await tokens.token("default", "default", pod, undefined, 3600), "token-1");
  await clock.advance(1000); // whole seconds: expirationTimestamp has no fraction
  assert.equal(await tokens.token("default", "default", pod, undefined, 3600), "token-2");
  // With the largest jitter (9 whole seconds) the refresh comes 9 s earlier.
  random = 0.999;
  await clock.advance(2880_000 - 9000);
  assert.equal(await tokens.token("default", "default", pod, undefined, 3600), "token-2");
  await clock.advance(1);
  assert.equal(await tokens.token("default", "default", pod, undefined, 3600), "token-3");
  assert.equal(state.requests.length, 3);
});

test("token manager requiresRefresh: a long-lived token is requested again after 24 hours (maxTTL)", async () => {
  const clock = new FakeClock();
  const { request } = issuer(clock);
  const tokens = new ServiceAccountTokens({ request, clock, logger: silentLogger, random: () => 0 });
  const week = 7 * 24 * 3600;
  await tokens.token("default", "default", pod, undefined, week);
  await clock.advance(24 * 3600_000);
  assert.equal(await tokens.token("default", "default", pod, undefined, week), "token-1");
  await clock.advance(1);
  assert.equal(await tokens.token("default", "default", pod, undefined, week), "token-2");
});

test("token manager: a failed refresh keeps the cached token while it is valid; an expired one fails with the kubelet's error", async () => {
  const clock = new FakeClock();
  const { state, request } = issuer(clock);
  const tokens = new ServiceAccountTokens({ request, clock, logger: silentLogger, random: () => 0 });
  state.down = true;
  await assert.rejects(tokens.token("default", "default", pod, undefined, 3600), /^Error: failed to fetch token: Post ".*": dial tcp 127\.0\.0\.1:6443: connect: connection refused$/);
  state.down = false;
  await tokens.token("default", "default", pod, undefined, 3600);
  state.down = true;
  await clock.advance(3000_000);
  assert.equal(await tokens.token("default", "default", pod, undefined, 3600), "token-2");
  await clock.advance(600_001);
  await assert.rejects(tokens.token("default", "default", pod, undefined, 3600), /expired and refresh failed: Post /);
});

test("token manager DeleteServiceAccountToken: forgetPod drops only that pod's tokens", async () => {
  const clock = new FakeClock();
  const { state, request } = issuer(clock);
  const tokens = new ServiceAccountTokens({ request, clock, logger: silentLogger, random: () => 0 });
  await tokens.token("default", "default", pod, undefined, 3600);
  await tokens.token("default", "default", { name: "other", uid: "uid-2" }, undefined, 3600);
  tokens.forgetPod("uid-1");
  assert.equal(tokens.size, 1);
  assert.equal(await tokens.token("default", "default", pod, undefined, 3600), "token-3");
  assert.equal(state.requests.length, 3);
});
