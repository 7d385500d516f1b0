import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ProcessRuntime } from "../../runtime/process/process-runtime.js";
import { isAlive, liveChildren, testContainerConfig, testSandboxConfig, waitFor } from "../../../test/process-testing.js";
import { execQuery, runExecClient } from "../../../test/exec-client.js";
import { containerNotValid, podNotFound } from "./exec-status.js";
import { handleExec, type ExecTarget } from "./handle-exec.js";
import { Channel, channelMessage } from "./remotecommand.js";
import { MAX_MESSAGE_BYTES } from "./websocket.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-exec-"));
const runtime = new ProcessRuntime();
const sandbox = testSandboxConfig(join(dir, "logs"), { name: "web", namespace: "default" });
const podId = await runtime.runPodSandbox(sandbox);
const containerId = await runtime.createContainer(
  podId,
  testContainerConfig("app", "sleep 300", { envs: [{ key: "GREETING", value: "hello" }], workingDir: dir }),
  sandbox,
);
await runtime.startContainer(containerId);

const target: ExecTarget = {
  resolveContainer(namespace, pod, container) {
    if (namespace !== "default" || pod !== "web") return podNotFound(pod);
    if (container !== undefined && container !== "app") return containerNotValid(container, pod);
    return { runtime, containerId };
  },
};
const server: Server = createServer((_req, res) => res.writeHead(404).end());
server.on("upgrade", (req, socket, head: Buffer) => void handleExec(req, socket, head, target));
server.listen(0, "127.0.0.1");
await once(server, "listening");
const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/namespaces/default/pods/web/exec`;
const V5 = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

after(async () => {
  server.closeAllConnections();
  server.close();
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(liveChildren(), [], "no child process of the test may remain");
});

test("echo hi over v5.channel.k8s.io writes hi on stdout and ends with a Success status", async () => {
  const t = await runExecClient(`${base}?${execQuery(["echo", "hi"], { stdout: "true", stderr: "true" })}`, V5);
  assert.equal(t.protocol, "v5.channel.k8s.io");
  assert.equal(t.stdout, "hi\n");
  assert.equal(t.stderr, "");
  assert.equal(t.status.status, "Success");
  assert.equal(t.closeCode, 1000);
});

test("the command gets the container's env and working dir, and stderr goes to channel 2", async () => {
  const t = await runExecClient(`${base}?${execQuery(["sh", "-c", 'echo "$GREETING $(pwd)"; echo oops >&2'], { stdout: "true", stderr: "true" })}`, V5);
  assert.equal(t.stdout, `hello ${dir}\n`);
  assert.equal(t.stderr, "oops\n");
});

test("exit code 3 ends with a NonZeroExitCode status whose ExitCode cause is 3", async () => {
  const t = await runExecClient(`${base}?${execQuery(["sh", "-c", "exit 3"], { stdout: "true" })}`, V5);
  assert.equal(t.status.status, "Failure");
  assert.equal(t.status.reason, "NonZeroExitCode");
  assert.deepEqual(t.status.details?.causes, [{ reason: "ExitCode", message: "3" }]);
});

test("stdin reaches cat, and the v5 close signal ends cat's input so the command exits", async () => {
  const t = await runExecClient(`${base}?${execQuery(["cat"], { stdin: "true", stdout: "true", stderr: "true" })}`, V5, (ws) => {
    ws.send(channelMessage(Channel.stdin, "line one\n"));
    ws.send(channelMessage(Channel.stdin, "line two\n"));
    ws.send(Buffer.from([Channel.close, Channel.stdin]));
  });
  assert.equal(t.stdout, "line one\nline two\n");
  assert.equal(t.status.status, "Success");
});

test("v4.channel.k8s.io is served when the client offers only it", async () => {
  const t = await runExecClient(`${base}?${execQuery(["echo", "v4"], { stdout: "true" })}`, ["v4.channel.k8s.io"]);
  assert.equal(t.protocol, "v4.channel.k8s.io");
  assert.equal(t.stdout, "v4\n");
});

test("with a tty the command runs on a terminal that takes stdin and follows resize messages", async () => {
  // The resize is applied by a helper process, so the command itself polls (at most 5 s) for the new size.
  const script = 'stty size; read line; echo "got $line"; i=0; while [ "$(stty size)" = "0 0" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; stty size; test -t 0 && echo on-a-tty';
  const t = await runExecClient(`${base}?${execQuery(["sh", "-c", script], { stdin: "true", stdout: "true", tty: "true" })}`, V5, async (ws, output) => {
    await output("0 0\r\n");
    ws.send(channelMessage(Channel.stdin, "go\n"));
    await output("got go");
    ws.send(channelMessage(Channel.resize, JSON.stringify({ Width: 132, Height: 43 })));
  });
  assert.match(t.stdout, /got go\r\n43 132\r\non-a-tty\r\n/);
  assert.equal(t.status.status, "Success");
});

test("a client that goes away mid-command gets the command killed", async () => {
  const marker = join(dir, "sleeper.pid");
  const command = ["sh", "-c", `echo $$ > ${marker}; echo started; exec sleep 300`];
  let pid = 0;
  await runExecClient(`${base}?${execQuery(command, { stdout: "true" })}`, V5, async (ws, output) => {
    await output("started");
    pid = Number((await readFile(marker, "utf8")).trim());
    ws.terminate();
  });
  assert.ok(pid > 0);
  await waitFor("the exec'd command to be killed", () => !isAlive(pid), { timeoutMs: 5000, intervalMs: 50 });
});

test("refusals before the upgrade are the API server's Status answers", async () => {
  const refused = async (url: string, protocols = V5): Promise<{ statusCode: number; body: { message: string; reason: string } }> => {
    const err = (await runExecClient(url, protocols).then(
      () => assert.fail("the upgrade must be refused"),
      (e: unknown) => e,
    )) as { statusCode: number; body: string };
    return { statusCode: err.statusCode, body: JSON.parse(err.body) as { message: string; reason: string } };
  };
  assert.deepEqual(await refused(`${base}?stdout=true`).then((r) => [r.statusCode, r.body.message]), [400, "you must specify at least 1 command"]);
  assert.deepEqual(await refused(`${base}?${execQuery(["ls"], { stdout: "true", container: "db" })}`).then((r) => [r.statusCode, r.body.message]), [
    400,
    "container db is not valid for pod web",
  ]);
  const missing = await refused(`${base.replace("/pods/web/", "/pods/nope/")}?${execQuery(["ls"], { stdout: "true" })}`);
  assert.deepEqual([missing.statusCode, missing.body.reason, missing.body.message], [404, "NotFound", 'pods "nope" not found']);
  const oldProtocol = await refused(`${base}?${execQuery(["ls"], { stdout: "true" })}`, ["channel.k8s.io"]);
  assert.equal(oldProtocol.statusCode, 400);
  assert.match(oldProtocol.body.message, /^requested protocol\(s\) are not supported/);
});

test("a SPDY upgrade (kubectl before 1.30) is refused with a Status naming the WebSocket protocols", async () => {
  const url = new URL(`${base.replace("ws:", "http:")}?${execQuery(["ls"], { stdout: "true" })}`);
  const req = request(url, { method: "POST", headers: { Connection: "Upgrade", Upgrade: "SPDY/3.1", "X-Stream-Protocol-Version": "v4.channel.k8s.io" } });
  req.end();
  const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
  const body: Buffer[] = [];
  for await (const chunk of res) body.push(chunk as Buffer);
  const status = JSON.parse(Buffer.concat(body).toString()) as { code: number; message: string };
  assert.equal(res.statusCode, 400);
  assert.equal(status.message, "unable to upgrade: SPDY/3.1 is not served; exec speaks WebSocket only (v5.channel.k8s.io or v4.channel.k8s.io, kubectl 1.30 or later)");
});

test("a client message over the size limit closes the socket with 1009", async () => {
  const t = await runExecClient(`${base}?${execQuery(["cat"], { stdin: "true", stdout: "true" })}`, V5, (ws) => {
    ws.send(channelMessage(Channel.stdin, Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x61)));
  });
  assert.equal(t.closeCode, 1009);
});

test("a command that cannot start ends with an InternalError status carrying runc's text", async () => {
  const t = await runExecClient(`${base}?${execQuery(["no-such-tool", "x"], { stdout: "true" })}`, V5);
  assert.equal(t.status.status, "Failure");
  assert.equal(t.status.reason, "InternalError");
  assert.equal(
    t.status.message,
    'Internal error occurred: error executing command in container: OCI runtime exec failed: exec failed: unable to start container process: exec: "no-such-tool": executable file not found in $PATH: unknown',
  );
  assert.equal(t.closeCode, 1000);
});

test("with a tty, arguments with quotes and spaces reach the command as given", async () => {
  const t = await runExecClient(`${base}?${execQuery(["printf", "[%s]", "it's a $HOME", "`x`"], { stdout: "true", tty: "true" })}`, V5);
  assert.equal(t.stdout, "[it's a $HOME][`x`]");
  assert.equal(t.status.status, "Success");
});

test("output larger than the socket's high-water mark arrives whole and in order", async () => {
  const bytes = 8 * 1024 * 1024;
  const t = await runExecClient(`${base}?${execQuery(["sh", "-c", `head -c ${bytes} /dev/zero | tr '\\0' a; echo end`], { stdout: "true" })}`, V5);
  assert.equal(t.stdout.length, bytes + 4);
  assert.ok(t.stdout.endsWith("aaend\n"));
  assert.equal(t.status.status, "Success");
});
