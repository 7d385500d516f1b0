// The daemon endpoint's streaming routes (kubelet pkg/kubelet/server/server.go getExec,
// getAttach, getPortForward): /exec/{namespace}/{pod}[/{uid}]/{container}?command=…,
// /attach/{namespace}/{pod}[/{uid}]/{container} and /portForward/{namespace}/{pod}[/{uid}], the
// requests the API server sends for `kubectl exec`, `attach` and `port-forward`. As the kubelet
// does with a remote runtime, the endpoint asks the runtime's streaming server for a single-use
// URL (CRI Exec, Attach, PortForward) and proxies the upgraded connection to it unchanged
// (apimachinery proxy.UpgradeAwareHandler with upgradeRequired): SPDY/3.1 or WebSocket, the
// remotecommand and port-forward protocols are the streaming server's. The process runtime has
// no streaming server: its containers are refused here.
import type { IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AgentApi } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import type { ExecStatus } from "../apiserver/exec/exec-status.js";
import { PODS } from "../apiserver/resources/pods.js";
import type { StreamingRequest } from "../runtime/runtime.js";
import type { Logger } from "../util/logger.js";

/** Bound on connecting to the runtime's streaming server. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Request headers not passed to the streaming server (it gets its own Host; hop-by-hop ones are rebuilt). */
const DROPPED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "authorization"]);

/** A parsed streaming route. */
type Route =
  | { kind: "exec" | "attach"; namespace: string; pod: string; uid?: string; container: string }
  | { kind: "portforward"; namespace: string; pod: string; uid?: string };

/** parseStreamingPath recognises the three routes (with or without the pod UID), or returns undefined. */
export function parseStreamingPath(pathname: string): Route | undefined {
  const parts = pathname.split("/").slice(1).map((p) => decodeURIComponent(p));
  const [head, namespace, pod, ...rest] = parts;
  if (namespace === undefined || pod === undefined || namespace === "" || pod === "") return undefined;
  if (head === "exec" || head === "attach") {
    if (rest.length === 1 && rest[0]) return { kind: head, namespace, pod, container: rest[0] };
    if (rest.length === 2 && rest[0] && rest[1]) return { kind: head, namespace, pod, uid: rest[0], container: rest[1] };
    return undefined;
  }
  if (head === "portForward") {
    if (rest.length === 0) return { kind: "portforward", namespace, pod };
    if (rest.length === 1 && rest[0]) return { kind: "portforward", namespace, pod, uid: rest[0] };
  }
  return undefined;
}

/**
 * streamOptions reads remotecommand's query (k8s.io/kubelet cri/streaming/remotecommand
 * NewOptions): input, output, error and tty as "1"; a terminal has no separate stderr; at least
 * one stream is required.
 */
export function streamOptions(query: URLSearchParams): { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean } | string {
  const tty = query.get("tty") === "1";
  const stdin = query.get("input") === "1";
  const stdout = query.get("output") === "1";
  const stderr = query.get("error") === "1" && !tty;
  if (!stdin && !stdout && !stderr) return "you must specify at least 1 of stdin, stdout, stderr";
  return { stdin, stdout, stderr, tty };
}

/** StreamingRefusal is an answer before any upgrade: an HTTP status and its text. */
export interface StreamingRefusal {
  code: number;
  message: string;
}

/** STATUS_TEXT is the reason phrase of each status a refusal uses. */
const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error" };

function refusalOf(status: ExecStatus): StreamingRefusal {
  return { code: status.code ?? 500, message: status.message ?? "error" };
}

// The runtime URL for a route, or why there is none.
async function streamingUrlFor(route: Route, query: URLSearchParams, agent: AgentApi): Promise<string | StreamingRefusal> {
  const pod = agent.store.get<Pod>(PODS.name, route.namespace, route.pod);
  if (pod === undefined) return { code: 404, message: "pod does not exist" };
  if (route.uid !== undefined && pod.metadata.uid !== route.uid) return { code: 404, message: "pod not found" };
  let request: StreamingRequest;
  let runtime;
  if (route.kind === "portforward") {
    const target = agent.podSandbox(route.namespace, route.pod);
    if ("kind" in target) return refusalOf(target);
    runtime = target.runtime;
    request = { kind: "portforward", sandboxId: target.sandboxId, ports: [] };
  } else {
    const options = streamOptions(query);
    if (typeof options === "string") return { code: 400, message: options };
    const target = agent.execContainer(route.namespace, route.pod, route.container);
    if ("kind" in target) return refusalOf(target);
    runtime = target.runtime;
    request = route.kind === "exec" ? { kind: "exec", containerId: target.containerId, cmd: query.getAll("command"), ...options } : { kind: "attach", containerId: target.containerId, ...options };
  }
  if (runtime.streamingUrl === undefined) return { code: 400, message: `${route.kind === "portforward" ? "port-forward" : route.kind} is not supported by the process runtime: it has no streaming server` };
  try {
    return await runtime.streamingUrl(request);
  } catch (err) {
    return { code: 500, message: err instanceof Error ? err.message : String(err) };
  }
}

/** writeRefusal answers an upgraded request with a plain-text HTTP status and closes the connection. */
export function writeRefusal(socket: Duplex, refusal: StreamingRefusal): void {
  const body = `${refusal.message}\n`;
  socket.end(`HTTP/1.1 ${refusal.code} ${STATUS_TEXT[refusal.code] ?? "Internal Server Error"}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** requestHead is the upgraded request as the streaming server gets it: its path, its own Host, the client's upgrade headers. */
export function requestHead(req: IncomingMessage, target: URL): string {
  let head = `${req.method ?? "GET"} ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n`;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (DROPPED_HEADERS.has(name.toLowerCase())) continue;
    head += `${name}: ${raw[i + 1]!}\r\n`;
  }
  return `${head}\r\n`;
}

/**
 * handleStreamingUpgrade serves one upgraded request on the daemon endpoint: it refuses with a
 * plain-text HTTP answer, or connects to the runtime's streaming server, forwards the request and
 * pipes both ways until either side closes. Returns false when the path is not a streaming route.
 */
export async function handleStreamingUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, agent: AgentApi, logger: Logger): Promise<boolean> {
  const url = new URL(req.url ?? "/", "https://kubelet");
  const route = parseStreamingPath(url.pathname);
  if (route === undefined) return false;
  socket.on("error", () => undefined);
  if (req.method !== "GET" && req.method !== "POST") {
    writeRefusal(socket, { code: 405, message: "method not allowed" });
    return true;
  }
  const found = await streamingUrlFor(route, url.searchParams, agent);
  if (typeof found !== "string") {
    writeRefusal(socket, found);
    return true;
  }
  const target = new URL(found);
  if (target.protocol !== "http:") {
    writeRefusal(socket, { code: 500, message: `unsupported streaming URL scheme ${target.protocol}` });
    return true;
  }
  const backend: Socket = connect({ host: target.hostname.replace(/^\[|\]$/g, ""), port: Number(target.port || 80), timeout: CONNECT_TIMEOUT_MS });
  backend.once("timeout", () => backend.destroy(new Error(`dial tcp ${target.host}: i/o timeout`)));
  backend.once("connect", () => {
    backend.setTimeout(0);
    backend.write(requestHead(req, target));
    if (head.length > 0) backend.write(head);
    backend.pipe(socket);
    socket.pipe(backend);
  });
  backend.once("error", (err) => {
    logger.warn("Error while proxying request", { route: route.kind, err: err.message });
    if (!backend.readableDidRead) writeRefusal(socket, { code: 500, message: err.message });
    else socket.destroy();
  });
  socket.once("close", () => backend.destroy());
  backend.once("close", () => socket.end());
  return true;
}
