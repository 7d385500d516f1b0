// @internal For tests. A scripted Kubernetes API server on loopback HTTPS for the cluster unit
// tests: each request is recorded and answered by the test's handler; watches stream lines the
// handler writes.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only polling needs a referenced timer (the Clock's timers are unref'd on purpose).
import { setTimeout as delay } from "node:timers/promises";
import { loadOrCreateServingCert } from "../../src/server/serving-cert.js";
import type { ClusterCredentials } from "../../src/cluster/kubeconfig.js";

/** @internal For tests. RecordedRequest is one request the fake server got. */
export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: unknown;
}

/** @internal For tests. FakeAnswer is a handler's reply; `stream` keeps the response open for a watch. */
export type FakeAnswer = { code: number; body?: unknown; headers?: Record<string, string> } | { stream: (res: ServerResponse) => void };

/** @internal For tests. FakeApiServer is a running fake. */
export class FakeApiServer {
  private constructor(
    readonly requests: RecordedRequest[],
    private readonly server: Server,
    private readonly dir: string,
    readonly credentials: ClusterCredentials,
  ) {}

  /** start listens on 127.0.0.1 with a fresh self-signed certificate; `handler` answers every request. */
  static async start(handler: (req: RecordedRequest) => FakeAnswer): Promise<FakeApiServer> {
    const dir = await mkdtemp(join(tmpdir(), "probelet-fake-apiserver-"));
    const cert = await loadOrCreateServingCert(dir, ["127.0.0.1"]);
    const requests: RecordedRequest[] = [];
    const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => void answer(req, res));
    const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        contentType: req.headers["content-type"],
        authorization: req.headers["authorization"],
        body: text === "" ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(recorded);
      const reply = handler(recorded);
      if ("stream" in reply) {
        res.writeHead(200, { "content-type": "application/json" });
        reply.stream(res);
        return;
      }
      res.writeHead(reply.code, { "content-type": "application/json", ...reply.headers });
      res.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
    };
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const port = (server.address() as AddressInfo).port;
    return new FakeApiServer(requests, server, dir, { server: `https://127.0.0.1:${port}`, ca: cert.cert, insecureSkipTlsVerify: false, token: "test-token" });
  }

  /** waitForRequests resolves once at least `count` requests matched (at most 5 s). */
  async waitForRequests(count: number, match: (r: RecordedRequest) => boolean = () => true): Promise<RecordedRequest[]> {
    for (let i = 0; i < 500; i++) {
      const found = this.requests.filter(match);
      if (found.length >= count) return found;
      await delay(10);
    }
    throw new Error(`expected ${count} matching requests, got: ${this.requests.map((r) => `${r.method} ${r.path}`).join(", ")}`);
  }

  /** close stops the server and removes its certificate. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** @internal For tests. statusBody is a metav1.Status error body. */
export function statusBody(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/** @internal For tests. waitUntil polls `condition` every 5 ms, failing with `what` after 5 s. */
export async function waitUntil(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (condition()) return;
    await delay(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}
