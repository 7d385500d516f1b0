import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { status } from "@grpc/grpc-js";
import { FakeCriError, startFakeCriServer } from "../../../test/cri/fake-cri-server.js";
import { RuntimeError } from "../runtime.js";
import { CriClient } from "./client.js";
import { CriRuntime } from "./cri-runtime.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-cri-client-"));
after(() => rm(dir, { recursive: true, force: true }));

async function listen(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

function isUnavailable(socket: string, reason: RegExp): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof RuntimeError, String(err));
    assert.equal(err.code, "Unavailable");
    assert.ok(err.message.startsWith(`cannot reach the CRI runtime at ${socket}: `), err.message);
    assert.match(err.message, reason);
    return true;
  };
}

test("version on a missing socket → Unavailable at once, naming the socket", async (t) => {
  const socket = join(dir, "missing.sock");
  const runtime = new CriRuntime({ socket });
  t.after(() => runtime.close());
  const started = performance.now();
  await assert.rejects(runtime.version(), isUnavailable(socket, /connect ENOENT/));
  assert.ok(performance.now() - started < 2_000, "no waiting for a socket that is not there");
  assert.equal(runtime.type, "containerd");
});

test("version on a socket that is not a CRI server (HTTP/1) → Unavailable at once", async (t) => {
  const socket = join(dir, "http1.sock");
  const server = createHttpServer((_req, res) => res.end("hello"));
  await listen(server, socket);
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const runtime = new CriRuntime({ socket, callTimeoutMs: 5_000 });
  t.after(() => runtime.close());
  const started = performance.now();
  await assert.rejects(runtime.version(), isUnavailable(socket, /Protocol error|Connection dropped|RST_STREAM/));
  assert.ok(performance.now() - started < 3_000, "fails on the protocol error, not at the deadline");
  server.closeAllConnections();
});

test("version on a socket that accepts and never answers → Unavailable at the call deadline, no hang", async (t) => {
  const socket = join(dir, "silent.sock");
  const accepted = new Set<Socket>();
  const server = createNetServer((s) => accepted.add(s));
  await listen(server, socket);
  t.after(async () => {
    for (const s of accepted) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const runtime = new CriRuntime({ socket, callTimeoutMs: 300 });
  t.after(() => runtime.close());
  const started = performance.now();
  await assert.rejects(runtime.version(), isUnavailable(socket, /^.*: CRI Version did not finish within 300 ms$/));
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 250 && elapsed < 3_000, `took ${elapsed} ms`);
});

test("gRPC status codes become RuntimeErrors with the runtime's text", async (t) => {
  const fake = await startFakeCriServer({
    ContainerStatus: () => new FakeCriError(status.NOT_FOUND, 'an error occurred when try to find container "nope": not found'),
    StartContainer: () => new FakeCriError(status.UNKNOWN, "failed to start containerd task: boom"),
    RemoveContainer: () => new FakeCriError(status.PERMISSION_DENIED, "no"),
    StopContainer: () => new Promise(() => undefined),
  });
  t.after(() => fake.close());
  const client = new CriClient({ socket: fake.socket, callTimeoutMs: 200 });
  t.after(() => client.close());
  const cases: [() => Promise<unknown>, RuntimeError["code"], string][] = [
    [() => client.call("ContainerStatus", { container_id: "nope" }), "NotFound", 'an error occurred when try to find container "nope": not found'],
    [() => client.call("StartContainer", { container_id: "x" }), "Unknown", "failed to start containerd task: boom"],
    [() => client.call("RemoveContainer", { container_id: "x" }), "Unknown", "CRI RemoveContainer failed: PERMISSION_DENIED: no"],
    [() => client.call("StopContainer", { container_id: "x", timeout: "0" }), "DeadlineExceeded", "CRI StopContainer did not finish within 200 ms"],
    [() => client.call("Version", { version: "0.1.0" }), "Unknown", "CRI Version failed: UNIMPLEMENTED: fake: Version not implemented"],
  ];
  for (const [call, code, message] of cases) {
    await assert.rejects(call(), (err: unknown) => {
      assert.ok(err instanceof RuntimeError, String(err));
      assert.equal(err.code, code);
      assert.equal(err.message, message);
      return true;
    });
  }
});

test("an aborted call is cancelled and rejects with the signal's reason", async (t) => {
  const fake = await startFakeCriServer({ ExecSync: () => new Promise(() => undefined) });
  t.after(() => fake.close());
  const client = new CriClient({ socket: fake.socket });
  t.after(() => client.close());
  const controller = new AbortController();
  const pending = client.call("ExecSync", { container_id: "c", cmd: ["true"], timeout: "5" }, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("worker stopped")), 50);
  await assert.rejects(pending, { message: "worker stopped" });
  const aborted = AbortSignal.abort(new Error("already"));
  await assert.rejects(client.call("Version", { version: "0.1.0" }, { signal: aborted }), { message: "already" });
});

test("int64 fields stay exact on the wire both ways (decimal strings)", async (t) => {
  const fake = await startFakeCriServer({
    StopContainer: () => ({}),
    ListPodSandbox: () => ({
      items: [{ id: "s", metadata: { name: "p", uid: "u", namespace: "n", attempt: 0 }, state: "SANDBOX_READY", created_at: "9223372036854775807" }],
    }),
  });
  t.after(() => fake.close());
  const client = new CriClient({ socket: fake.socket });
  t.after(() => client.close());
  await client.call("StopContainer", { container_id: "c", timeout: "9007199254740993" });
  assert.equal(fake.requests("StopContainer")[0]?.["timeout"], "9007199254740993");
  const { items } = await client.call("ListPodSandbox", {});
  assert.equal(items[0]?.created_at, "9223372036854775807");
  assert.equal(items[0]?.state, "SANDBOX_READY");
});
