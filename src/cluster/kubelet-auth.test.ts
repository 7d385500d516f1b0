import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, test } from "node:test";
import { FakeApiServer, statusBody, type RecordedRequest } from "../../test/cluster/fake-apiserver.js";
import { FakeClock } from "../../test/fakes/fake-clock.js";
import { silentLogger } from "../util/logger.js";
import { RestClient } from "../client/rest-client.js";
import { AUTHORIZED_TTL_MS, KubeletAuth, requestAttributes, TOKEN_REVIEW_TTL_MS, UNAUTHORIZED_TTL_MS } from "./kubelet-auth.js";

const servers: FakeApiServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** reviewer answers TokenReviews (one good token) and SubjectAccessReviews (the `allowed` set of "user verb subresource"). */
async function reviewer(allowed: Set<string>, failReviews = false): Promise<{ server: FakeApiServer; auth: KubeletAuth; clock: FakeClock }> {
  const server = await FakeApiServer.start((r: RecordedRequest) => {
    if (failReviews) return { code: 503, body: statusBody(503, "ServiceUnavailable", "the server is currently unable to handle the request") };
    const body = r.body as { spec: Record<string, unknown> };
    if (r.path === "/apis/authentication.k8s.io/v1/tokenreviews") {
      const ok = body.spec["token"] === "good-token";
      return { code: 201, body: { kind: "TokenReview", status: ok ? { authenticated: true, user: { username: "system:serviceaccount:monitoring:prom", uid: "u-1", groups: ["system:serviceaccounts", "system:authenticated"] } } : { authenticated: false, error: "invalid bearer token" } } };
    }
    const spec = body.spec as { user: string; resourceAttributes: { verb: string; subresource: string } };
    const yes = allowed.has(`${spec.user} ${spec.resourceAttributes.verb} ${spec.resourceAttributes.subresource}`);
    return { code: 201, body: { kind: "SubjectAccessReview", status: { allowed: yes, ...(yes ? {} : { reason: "no RBAC policy matched" }) } } };
  });
  servers.push(server);
  const clock = new FakeClock();
  const client = new RestClient({ credentials: server.credentials, clock });
  return { server, auth: new KubeletAuth({ client, nodeName: "probelet-a", clock, logger: silentLogger }), clock };
}

/** bearer is a request with only an Authorization header (no client certificate). */
function bearer(token: string | undefined): IncomingMessage {
  return { socket: { authorized: false }, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } } as unknown as IncomingMessage;
}

test("GetRequestAttributes: verbs from methods, stats/metrics/log by path, pods and healthz tried before proxy (KubeletFineGrainedAuthz), everything else proxy", () => {
  assert.deepEqual(requestAttributes("GET", "/stats/summary"), { verb: "get", subresources: ["stats"] });
  assert.deepEqual(requestAttributes("GET", "/metrics"), { verb: "get", subresources: ["metrics"] });
  assert.deepEqual(requestAttributes("GET", "/metrics/resource"), { verb: "get", subresources: ["metrics"] });
  assert.deepEqual(requestAttributes("GET", "/logs/messages"), { verb: "get", subresources: ["log"] });
  assert.deepEqual(requestAttributes("GET", "/pods"), { verb: "get", subresources: ["pods", "proxy"] });
  assert.deepEqual(requestAttributes("GET", "/healthz"), { verb: "get", subresources: ["healthz", "proxy"] });
  assert.deepEqual(requestAttributes("GET", "/containerLogs/default/web/app"), { verb: "get", subresources: ["proxy"] });
  assert.deepEqual(requestAttributes("POST", "/exec/default/web/app"), { verb: "create", subresources: ["proxy"] });
  // A path that only starts like a prefix is not below it.
  assert.deepEqual(requestAttributes("GET", "/metricsfoo"), { verb: "get", subresources: ["proxy"] });
  assert.deepEqual(requestAttributes("GET", "/stats"), { verb: "get", subresources: ["stats"] });
});

test("a bearer token is reviewed with a TokenReview and the answer cached 2 minutes; no credentials or a refused token is no user", async () => {
  const { server, auth, clock } = await reviewer(new Set());
  assert.equal(await auth.authenticate(bearer(undefined)), undefined);
  assert.deepEqual(await auth.authenticate(bearer("good-token")), { name: "system:serviceaccount:monitoring:prom", uid: "u-1", groups: ["system:serviceaccounts", "system:authenticated"] });
  assert.equal(await auth.authenticate(bearer("bad-token")), undefined);
  await auth.authenticate(bearer("good-token"));
  await auth.authenticate(bearer("bad-token"));
  assert.equal(server.requests.length, 2, "answers within the TTL come from the cache, refusals too");
  assert.deepEqual((server.requests[0]!.body as { spec: unknown }).spec, { token: "good-token" });
  await clock.advance(TOKEN_REVIEW_TTL_MS);
  await auth.authenticate(bearer("good-token"));
  assert.equal(server.requests.length, 3);
});

test("authorization: a SubjectAccessReview per subresource until one is allowed, through the node; 403 with the kubelet's text otherwise", async () => {
  const allowed = new Set(["alice get proxy", "bob get stats"]);
  const { server, auth } = await reviewer(allowed);
  const alice = { name: "alice", groups: ["devs", "system:authenticated"] };
  assert.deepEqual(await auth.authorize(alice, "GET", "/pods"), { allowed: true });
  assert.deepEqual(
    server.requests.map((r) => (r.body as { spec: unknown }).spec),
    [
      { resourceAttributes: { verb: "get", version: "v1", resource: "nodes", subresource: "pods", name: "probelet-a" }, user: "alice", groups: ["devs", "system:authenticated"] },
      { resourceAttributes: { verb: "get", version: "v1", resource: "nodes", subresource: "proxy", name: "probelet-a" }, user: "alice", groups: ["devs", "system:authenticated"] },
    ],
  );
  assert.equal(server.requests[0]!.path, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
  const bob = { name: "bob", groups: ["system:authenticated"] };
  assert.deepEqual(await auth.authorize(bob, "GET", "/stats/summary"), { allowed: true });
  assert.deepEqual(await auth.authorize(bob, "GET", "/containerLogs/default/web/app"), { allowed: false, code: 403, message: "Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[proxy])\n" });
  assert.deepEqual(await auth.authorize(bob, "GET", "/pods"), { allowed: false, code: 403, message: "Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[pods proxy])\n" });
});

test("authorization is cached as the kubelet's webhook authorizer caches it: allowed 5 minutes, refused 30 seconds", async () => {
  const allowed = new Set(["alice get metrics"]);
  const { server, auth, clock } = await reviewer(allowed);
  const alice = { name: "alice", groups: [] };
  const mallory = { name: "mallory", groups: [] };
  const reviews = (): number => server.requests.length;
  await auth.authorize(alice, "GET", "/metrics");
  await auth.authorize(mallory, "GET", "/metrics");
  assert.equal(reviews(), 2);
  await clock.advance(UNAUTHORIZED_TTL_MS - 1);
  await auth.authorize(alice, "GET", "/metrics");
  await auth.authorize(mallory, "GET", "/metrics");
  assert.equal(reviews(), 2);
  await clock.advance(1);
  // mallory's refusal expired; alice's allowance did not.
  allowed.add("mallory get metrics");
  assert.deepEqual(await auth.authorize(mallory, "GET", "/metrics"), { allowed: true });
  await auth.authorize(alice, "GET", "/metrics");
  assert.equal(reviews(), 3);
  await clock.advance(AUTHORIZED_TTL_MS - UNAUTHORIZED_TTL_MS);
  allowed.delete("alice get metrics");
  assert.equal((await auth.authorize(alice, "GET", "/metrics")).allowed, false);
  assert.equal(reviews(), 4);
});

test("a review the API server cannot answer is a 500 Authorization error, and nothing is cached", async () => {
  const { server, auth } = await reviewer(new Set(), true);
  assert.deepEqual(await auth.authorize({ name: "alice", groups: [] }, "GET", "/metrics"), { allowed: false, code: 500, message: "Authorization error (user=alice, verb=get, resource=nodes, subresource=metrics)" });
  await auth.authorize({ name: "alice", groups: [] }, "GET", "/metrics");
  assert.equal(server.requests.length, 2);
  assert.equal(await auth.authenticate(bearer("good-token")), undefined);
});
