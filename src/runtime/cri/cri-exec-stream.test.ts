// kubectl exec on containerd: handleExec in front of a CriRuntime container, driven by a real
// WebSocket client over v5.channel.k8s.io, with containerd's streaming server (v4) behind.
// Skipped, with the reason, without root, containerd or PROBELET_CRI_SOCKET.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { criSuite, SLEEPER, shContainer } from "../../../test/cri/containerd-env.js";
import { execQuery, runExecClient } from "../../../test/exec-client.js";
import { handleExec, type ExecContainer } from "../../apiserver/exec/handle-exec.js";
import { Channel, channelMessage } from "../../apiserver/exec/remotecommand.js";
import { exitCodeOf } from "./cri-exec-stream.js";

const { skip, runtime, pods } = criSuite();
const V5 = ["v5.channel.k8s.io", "v4.channel.k8s.io"];
let current: ExecContainer | undefined;
const server = createServer((_req, res) => res.writeHead(404).end());
server.on("upgrade", (req, socket, head: Buffer) => void handleExec(req, socket, head, { resolveContainer: () => current! }));
server.listen(0, "127.0.0.1");
await once(server, "listening");
const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/namespaces/default/pods/p/exec`;
after(() => {
  server.closeAllConnections();
  server.close();
});

test("exit statuses from containerd's error channel map to exit codes, anything else is an error", () => {
  assert.equal(exitCodeOf('{"status":"Success"}'), 0);
  assert.equal(exitCodeOf('{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"42"}]}}'), 42);
  assert.throws(() => exitCodeOf(""), /closed without an exit status/);
  assert.throws(() => exitCodeOf("{"), /not JSON/);
  assert.throws(() => exitCodeOf('{"status":"Failure","reason":"InternalError","message":"boom"}'), /boom/);
});

test("[cri] exec runs inside the container: stdout, stderr, exit code, stdin and a tty with resize", { skip }, async (t) => {
  const pod = await pods.newPod(t);
  const containerId = await pods.start(pod, shContainer("app", SLEEPER, { envs: [{ key: "GREETING", value: "hello" }] }));
  current = { runtime, containerId };

  const hi = await runExecClient(`${base}?${execQuery(["sh", "-c", "echo $GREETING; cat /etc/probelet-image; echo warn >&2"], { stdout: "true", stderr: "true" })}`, V5);
  assert.equal(hi.stdout, "hello\nprobelet test image\n");
  assert.equal(hi.stderr, "warn\n");
  assert.equal(hi.status.status, "Success");

  const failed = await runExecClient(`${base}?${execQuery(["sh", "-c", "exit 3"], { stdout: "true" })}`, V5);
  assert.equal(failed.status.reason, "NonZeroExitCode");
  assert.deepEqual(failed.status.details?.causes, [{ reason: "ExitCode", message: "3" }]);

  // containerd speaks v4, which cannot end stdin: the command reads one line instead of to EOF.
  const echoed = await runExecClient(`${base}?${execQuery(["sh", "-c", 'read line; echo "got $line"'], { stdin: "true", stdout: "true" })}`, V5, (ws) => {
    ws.send(channelMessage(Channel.stdin, "ping\n"));
  });
  assert.equal(echoed.stdout, "got ping\n");

  const script = 'read line; echo "got $line"; i=0; while [ "$(stty size)" != "43 132" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; stty size; test -t 0 && echo on-a-tty';
  const tty = await runExecClient(`${base}?${execQuery(["sh", "-c", script], { stdin: "true", stdout: "true", tty: "true" })}`, V5, async (ws, output) => {
    ws.send(channelMessage(Channel.stdin, "go\n"));
    await output("got go");
    ws.send(channelMessage(Channel.resize, JSON.stringify({ Width: 132, Height: 43 })));
  });
  // The terminal echoes the input; busybox stty complains while the size is still unset.
  assert.match(tty.stdout, /^go\r\ngot go\r\n/);
  assert.match(tty.stdout, /43 132\r\non-a-tty\r\n$/);
  assert.equal(tty.status.status, "Success");
});
