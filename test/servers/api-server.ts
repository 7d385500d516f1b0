// A real loopback status server over a FakeAgentApi (a real object store), and a small JSON
// client for the REST tests of src/apiserver.
import type { TestContext } from "node:test";
import { startStatusServer, type StatusServer, type StatusServerOptions } from "../../src/server/server.js";
import { FakeAgentApi } from "../fakes/fake-agent-api.js";

/** ApiAnswer is one response: status, headers and the parsed JSON body. */
export interface ApiAnswer {
  code: number;
  headers: Headers;
  // Tests read arbitrary nested fields of Kubernetes objects without a type for each.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: Record<string, any>;
}

/** ApiHarness is a running server, its fake agent, and a request helper. */
export interface ApiHarness {
  api: FakeAgentApi;
  server: StatusServer;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
}

/** startApiServer starts a server on 127.0.0.1:0, closed when the test ends. */
export async function startApiServer(t: TestContext, options: Partial<StatusServerOptions> = {}): Promise<ApiHarness> {
  const api = new FakeAgentApi();
  const server = await startStatusServer(api, { listen: "127.0.0.1:0", ...options });
  t.after(() => server.close());
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> => {
    const init: RequestInit = { method, headers: { ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(`${server.url}${path}`, init);
    const text = await res.text();
    return { code: res.status, headers: res.headers, body: text === "" ? {} : (JSON.parse(text) as ApiAnswer["body"]) };
  };
  return { api, server, call };
}

/** podBody is a minimal valid pod manifest. */
export function podBody(name: string, extra: { labels?: Record<string, string>; image?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, ...(extra.labels !== undefined ? { labels: extra.labels } : {}) },
    spec: { containers: [{ name: "app", image: extra.image ?? "busybox:1.36" }] },
  };
}
