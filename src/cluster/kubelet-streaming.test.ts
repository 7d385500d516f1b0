import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { parseStreamingPath, requestHead, streamOptions } from "./kubelet-streaming.js";

test("the streaming routes, with and without the pod UID", () => {
  assert.deepEqual(parseStreamingPath("/exec/ns/web/app"), { kind: "exec", namespace: "ns", pod: "web", container: "app" });
  assert.deepEqual(parseStreamingPath("/attach/ns/web/u1/app"), { kind: "attach", namespace: "ns", pod: "web", uid: "u1", container: "app" });
  assert.deepEqual(parseStreamingPath("/portForward/ns/web"), { kind: "portforward", namespace: "ns", pod: "web" });
  assert.deepEqual(parseStreamingPath("/portForward/ns/web/u1"), { kind: "portforward", namespace: "ns", pod: "web", uid: "u1" });
  assert.equal(parseStreamingPath("/exec/ns/web"), undefined);
  assert.equal(parseStreamingPath("/exec/ns/web/u/c/x"), undefined);
  assert.equal(parseStreamingPath("/containerLogs/ns/web/app"), undefined);
});

test("stream options as remotecommand's NewOptions reads them: a terminal has no stderr, one stream at least", () => {
  assert.deepEqual(streamOptions(new URLSearchParams("input=1&output=1&error=1")), { stdin: true, stdout: true, stderr: true, tty: false });
  assert.deepEqual(streamOptions(new URLSearchParams("output=1&error=1&tty=1")), { stdin: false, stdout: true, stderr: false, tty: true });
  assert.equal(streamOptions(new URLSearchParams("error=1&tty=1")), "you must specify at least 1 of stdin, stdout, stderr");
  assert.equal(streamOptions(new URLSearchParams("output=true")), "you must specify at least 1 of stdin, stdout, stderr");
});

test("the request the streaming server gets: its own path and Host, the client's upgrade headers, no credentials", () => {
  const req = { method: "POST", rawHeaders: ["Host", "node:10250", "Connection", "Upgrade", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version", "v4.channel.k8s.io", "Authorization", "Bearer x", "Content-Length", "0"] } as unknown as IncomingMessage;
  assert.equal(
    requestHead(req, new URL("http://127.0.0.1:4000/exec/abc?x=1")),
    "POST /exec/abc?x=1 HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n",
  );
});
