// The opt-in HTTP success rule (probe extension `http`: acceptStatus, bodyPattern) against real
// loopback servers. Without it the kubelet's 2xx/3xx rule applies (http.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { startHttpServer, type TestServer } from "../../test/servers/http-servers.js";
import type { HttpExpectation } from "../api/probe-extensions.js";
import { probeHttp } from "./http.js";
import { buildProbeHeaders } from "./http-request.js";
import type { ProbeOutcome } from "./probe-result.js";
import { PROBE_USER_AGENT } from "./user-agent.js";
import { forEachProbeEngine } from "../../test/probe-engines.js";

/** statusServer answers GET /<code> with that status and the body `{"status":"ok"}` or, on /down, `{"status":"down"}`. */
async function statusServer(t: { after(fn: () => Promise<void>): void }): Promise<TestServer> {
  const server = await startHttpServer((req, res) => {
    const code = Number(/^\/(\d{3})/.exec(req.url ?? "")?.[1] ?? 200);
    if (code >= 300 && code < 400) res.setHeader("Location", "http://other.example/");
    res.statusCode = code;
    res.end(req.url?.endsWith("/down") ? '{"status":"down"}' : '{"status":"ok"}');
  });
  t.after(() => server.close());
  return server;
}

function probe(server: TestServer, path: string, expect: HttpExpectation | undefined): Promise<ProbeOutcome> {
  const built = buildProbeHeaders([], PROBE_USER_AGENT);
  return probeHttp({ url: server.url(path), host: built.host, headers: built.headers }, { timeoutMs: 2000, followNonLocalRedirects: false, ...(expect ? { expect } : {}) });
}

forEachProbeEngine(() => {
  test("probe extension http: acceptStatus replaces the kubelet's 2xx/3xx rule; bodyPattern must match", async (t) => {
    const server = await statusServer(t);
    const ok = '{"status":"ok"}';
    const only404 = { acceptStatus: [{ from: 404, to: 404 }] };
    const twoxx = { acceptStatus: [{ from: 200, to: 299 }], bodyPattern: /"status":\s*"ok"/ };
    const cases: { name: string; path: string; expect: HttpExpectation | undefined; want: ProbeOutcome }[] = [
      { name: "without the extension: 404 fails", path: "/404", expect: undefined, want: { result: "failure", output: "HTTP probe failed with statuscode: 404" } },
      { name: "an accepted 404 succeeds with its body", path: "/404", expect: only404, want: { result: "success", output: ok } },
      { name: "a 200 outside acceptStatus fails with the kubelet's message", path: "/200", expect: only404, want: { result: "failure", output: "HTTP probe failed with statuscode: 200" } },
      { name: "an unfollowed redirect outside acceptStatus fails instead of warning", path: "/302", expect: twoxx, want: { result: "failure", output: "HTTP probe failed with statuscode: 302" } },
      { name: "2xx with a matching body succeeds", path: "/201", expect: twoxx, want: { result: "success", output: ok } },
      { name: "2xx with a body that does not match fails", path: "/200/down", expect: twoxx, want: { result: "failure", output: 'HTTP probe failed: the body does not match /"status":\\s*"ok"/' } },
      { name: "bodyPattern alone keeps the kubelet's status rule", path: "/503", expect: { bodyPattern: /ok/ }, want: { result: "failure", output: "HTTP probe failed with statuscode: 503" } },
      { name: "bodyPattern alone: a redirect warning whose body does not match fails", path: "/302/down", expect: { bodyPattern: /"ok"/ }, want: { result: "failure", output: 'HTTP probe failed: the body does not match /"ok"/' } },
    ];
    for (const c of cases) assert.deepEqual(await probe(server, c.path, c.expect), c.want, c.name);
  });
});
