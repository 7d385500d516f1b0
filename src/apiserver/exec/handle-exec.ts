// handleExec serves `kubectl exec` (POST/GET /api/v1/namespaces/{ns}/pods/{name}/exec with an
// Upgrade: websocket header) for the REST layer, which calls it from node:http's 'upgrade'
// event. It plays both the API server's part (options, container lookup, Status answers) and
// the kubelet's (kubelet pkg/kubelet/cri/streaming/remotecommand: streams, resize, exit status).
import type { IncomingMessage } from "node:http";
import type { Duplex, Readable } from "node:stream";
import { finished } from "node:stream/promises";
import type { WebSocket } from "ws";
import type { ExecSession, Runtime } from "../../runtime/runtime.js";
import { badRequest, exitStatus, failure, internalError, type ExecStatus } from "./exec-status.js";
import { isExecStatus, parseExecOptions, type ExecOptions } from "./exec-options.js";
import { Channel, channelMessage, decodeClientMessage, negotiateProtocol, protocolError, type ChannelProtocol } from "./remotecommand.js";
import { isWebSocketUpgrade, refuseUpgrade, upgradeToWebSocket } from "./websocket.js";

/** ExecContainer is the running container an exec goes into. */
export interface ExecContainer {
  runtime: Pick<Runtime, "execStream" | "streamingUrl">;
  containerId: string;
}

/** PodSandboxTarget is the running sandbox of a pod a port-forward goes into. */
export interface PodSandboxTarget {
  runtime: Pick<Runtime, "streamingUrl">;
  sandboxId: string;
  /** The pod's UID (a request that names another UID is refused). */
  uid: string;
}

/**
 * ExecTarget finds the container: the REST layer answers with a Status when the pod is unknown
 * (podNotFound), the container name is wrong or missing (containerNotValid,
 * containerNameRequired), the pod has completed (completedPod) or the container does not run
 * (containerNotRunning); see exec-status.ts.
 */
export interface ExecTarget {
  resolveContainer(namespace: string, pod: string, container?: string): ExecContainer | ExecStatus | Promise<ExecContainer | ExecStatus>;
}

/** OUTPUT_HIGH_WATER_BYTES is how much output may wait in the socket before the command's output is paused. */
const OUTPUT_HIGH_WATER_BYTES = 1024 * 1024;

const EXEC_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/;

/**
 * handleExec answers one exec upgrade request on its socket. Every failure before the upgrade is
 * an HTTP answer carrying the API server's Status; after it, the error channel carries the
 * outcome (Success, NonZeroExitCode, InternalError) and the socket closes with 1000. It never
 * rejects.
 */
export async function handleExec(req: IncomingMessage, socket: Duplex, head: Buffer, target: ExecTarget): Promise<void> {
  socket.on("error", () => undefined);
  try {
    const prepared = await prepareExec(req, target);
    if (isExecStatus(prepared)) {
      refuseUpgrade(socket, prepared);
      return;
    }
    const ws = await upgradeToWebSocket(req, socket, head, prepared.protocol);
    if (ws) await serveExec(ws, prepared);
  } catch (err) {
    refuseUpgrade(socket, internalError(err instanceof Error ? err.message : String(err)));
  }
}

/** upgradeRequired is the API server's answer to an exec request without an Upgrade header. */
export function upgradeRequired(): ExecStatus {
  return badRequest("Upgrade request required");
}

interface PreparedExec {
  protocol: ChannelProtocol;
  options: ExecOptions;
  container: ExecContainer;
}

async function prepareExec(req: IncomingMessage, target: ExecTarget): Promise<PreparedExec | ExecStatus> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const match = EXEC_PATH.exec(url.pathname);
  if (!match) return failure(404, "NotFound", "the server could not find the requested resource");
  const namespace = decodeURIComponent(match[1]!);
  const pod = decodeURIComponent(match[2]!);
  const upgrade = req.headers.upgrade;
  if (upgrade === undefined) return upgradeRequired();
  // Options and container are checked before the transport, as the API server does before it
  // proxies the upgrade: kubectl 1.30+ retries a refused WebSocket upgrade over SPDY, so the
  // SPDY answer must carry the same BadRequest for the same mistake.
  const options = parseExecOptions(url.searchParams);
  if (isExecStatus(options)) return options;
  const container = await target.resolveContainer(namespace, pod, options.container || undefined);
  if (isExecStatus(container)) return container;
  if (!isWebSocketUpgrade(req)) return badRequest(`unable to upgrade: ${upgrade} is not served; exec speaks WebSocket only (${V5_OR_V4})`);
  const protocolHeader = req.headers["sec-websocket-protocol"];
  const protocol = negotiateProtocol(protocolHeader);
  if (!protocol) return badRequest(protocolError(protocolHeader));
  return { protocol, options, container };
}

const V5_OR_V4 = "v5.channel.k8s.io or v4.channel.k8s.io, kubectl 1.30 or later";

async function serveExec(ws: WebSocket, { protocol, options, container }: PreparedExec): Promise<void> {
  ws.on("error", () => undefined);
  ws.pause();
  let session: ExecSession;
  try {
    session = await container.runtime.execStream(container.containerId, options.command, { stdin: options.stdin, tty: options.tty });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    closeWithStatus(ws, internalError(`error executing command in container: ${message}`));
    return;
  }
  if (ws.readyState !== ws.OPEN) {
    // The client left while the command was starting.
    abandon(session);
    return;
  }
  ws.once("close", () => abandon(session));
  ws.on("message", (data: Buffer) => onClientMessage(ws, session, options, decodeClientMessage(data, protocol)));
  ws.resume();
  // kubelet remotecommand websocket.go: an empty message on the lowest written channel tells the client the streams are open.
  ws.send(channelMessage(options.stdout ? Channel.stdout : options.stderr ? Channel.stderr : Channel.error));
  if (!options.stdin) session.stdin.end();
  const outputs = [forward(ws, session.stdout, options.stdout ? Channel.stdout : undefined)];
  outputs.push(forward(ws, session.stderr, options.stderr ? Channel.stderr : undefined));
  try {
    const [exitCode] = await Promise.all([session.exit, ...outputs]);
    closeWithStatus(ws, exitStatus(options.command, exitCode));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    closeWithStatus(ws, internalError(`error executing command in container: ${message}`));
  }
}

/** abandon ends a session whose client is gone: the command is killed, its remaining output drains unread. */
function abandon(session: ExecSession): void {
  session.kill();
  session.stdout.resume();
  session.stderr.resume();
  session.exit.catch(() => undefined);
}

function onClientMessage(ws: WebSocket, session: ExecSession, options: ExecOptions, message: ReturnType<typeof decodeClientMessage>): void {
  switch (message.kind) {
    case "stdin":
      if (!options.stdin || session.stdin.writableEnded) return;
      if (!session.stdin.write(message.data)) {
        ws.pause();
        const resume = (): void => {
          session.stdin.off("drain", resume).off("close", resume);
          ws.resume();
        };
        session.stdin.on("drain", resume).on("close", resume);
      }
      return;
    case "resize":
      if (options.tty) session.resize({ width: message.width, height: message.height });
      return;
    case "close":
      if (message.channel === Channel.stdin && !session.stdin.writableEnded) session.stdin.end();
      return;
    case "ignored":
      return;
  }
}

/** forward copies a stream to a channel (or drains it when the client did not ask for it), pausing while the socket is behind. */
async function forward(ws: WebSocket, stream: Readable, channel: number | undefined): Promise<void> {
  stream.on("data", (chunk: Buffer) => {
    if (channel === undefined || ws.readyState !== ws.OPEN) return;
    ws.send(channelMessage(channel, chunk), () => {
      if (stream.isPaused() && ws.bufferedAmount < OUTPUT_HIGH_WATER_BYTES) stream.resume();
    });
    if (ws.bufferedAmount >= OUTPUT_HIGH_WATER_BYTES) stream.pause();
  });
  await finished(stream).catch(() => undefined);
}

function closeWithStatus(ws: WebSocket, status: ExecStatus): void {
  // The close handshake reads the client's close frame: a paused socket would never finish it.
  ws.resume();
  if (ws.readyState !== ws.OPEN) return;
  ws.send(channelMessage(Channel.error, JSON.stringify(status)));
  ws.close(1000);
}
