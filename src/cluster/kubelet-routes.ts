// The daemon endpoint's routes, as the kubelet's server installs them (pkg/kubelet/server/
// server.go InstallAuthNotRequiredHandlers, InstallAuthRequiredHandlers, InstallSystemLogHandler):
// /healthz, /pods, /containerLogs/{podNamespace}/{podID}/{containerName}, /metrics,
// /metrics/probes, /metrics/resource and /stats/summary. Every route is reached only after
// kubelet-auth.ts let the request in. A route is a path pattern and a handler per method, so
// streaming routes (exec, attach, portForward) add rows here.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentApi } from "../apiserver/endpoints/host-interface.js";
import type { Pod } from "../api/types.js";
import { PODS } from "../apiserver/resources/pods.js";
import { serveLogs } from "../apiserver/endpoints/log-stream.js";
import { PROMETHEUS_CONTENT_TYPE, sendBody, sendJson, sendStatus, sendText } from "../apiserver/endpoints/respond.js";
import { badRequestStatus } from "../apiserver/endpoints/status-object.js";
import { statusForError } from "../apiserver/error-status.js";
import type { Logger } from "../util/logger.js";
import type { MachineStats } from "./node-stats.js";
import { renderResourceMetrics } from "./resource-metrics.js";
import { statsSummary, type Summary } from "./stats-summary.js";

/** KubeletNode is what the routes read: the agent and the machine's figures. */
export interface KubeletNode {
  agent: AgentApi;
  machine: MachineStats;
  logger: Logger;
}

/** KubeletRequest is one authorized request on its way to a handler. */
export interface KubeletRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The pattern's parameters, percent-decoded. */
  params: Record<string, string>;
  node: KubeletNode;
  /** Streams in flight (logs with follow): aborted when the server closes. */
  streams: Set<AbortController>;
}

/** KubeletHandler answers one request. */
export type KubeletHandler = (request: KubeletRequest) => void | Promise<void>;

/** KubeletRoute is a path pattern ("/containerLogs/:ns/:pod/:container") and its handlers by method. */
export interface KubeletRoute {
  pattern: string;
  methods: Readonly<Partial<Record<string, KubeletHandler>>>;
}

/** nodePods are the agent's pods bound to this node. */
function nodePods(agent: AgentApi): Pod[] {
  return agent.store.list<Pod>(PODS.name, { filter: (p) => p.spec.nodeName === agent.nodeName }).items;
}

/** summaryOf reads the machine and the node's pods into a stats Summary. */
async function summaryOf(node: KubeletNode): Promise<Summary> {
  return statsSummary(node.agent.nodeName, await node.machine.sample(), nodePods(node.agent));
}

/** healthz answers "ok", or the reason the sync loop is unhealthy. */
function healthz({ res, node }: KubeletRequest): void {
  const health = node.agent.healthz();
  sendText(res, health.ok ? 200 : 500, health.ok ? "ok" : `healthz check failed: ${health.message}`);
}

/** pods lists the node's pods (the kubelet's pod manager's pods). */
function pods({ res, node }: KubeletRequest): void {
  sendJson(res, 200, { kind: "PodList", apiVersion: "v1", metadata: {}, items: nodePods(node.agent) });
}

/** metrics serves one Prometheus text rendering. */
function metrics(render: (node: KubeletNode) => Promise<string>): KubeletHandler {
  return async ({ res, node }) => sendBody(res, 200, PROMETHEUS_CONTENT_TYPE, await render(node));
}

/** statsSummaryHandler serves GET /stats/summary. */
async function statsSummaryHandler({ res, node }: KubeletRequest): Promise<void> {
  sendJson(res, 200, await summaryOf(node));
}

/** containerLogs serves a container's log with tailLines, timestamps, follow and previous (server.go getContainerLogs). */
async function containerLogs({ req, res, url, params, node, streams }: KubeletRequest): Promise<void> {
  const { ns = "", pod = "", container = "" } = params;
  const tail = url.searchParams.get("tailLines");
  if (tail !== null && !/^\d+$/.test(tail)) {
    sendStatus(res, badRequestStatus(`tailLines: Invalid value: "${tail}": must be a non-negative integer`));
    return;
  }
  const abort = new AbortController();
  streams.add(abort);
  req.on("close", () => abort.abort());
  try {
    const request = {
      namespace: ns,
      name: pod,
      container,
      previous: url.searchParams.get("previous") === "true",
      follow: url.searchParams.get("follow") === "true",
      timestamps: url.searchParams.get("timestamps") === "true",
      ...(tail !== null ? { tailLines: Number(tail) } : {}),
      signal: abort.signal,
    };
    await serveLogs(res, endingLines(node.agent.readLogs(request)), request, node.logger);
  } catch (err) {
    if (!res.headersSent) sendStatus(res, statusForError(err, { resource: PODS.name, kind: PODS.kind, name: pod }));
  } finally {
    streams.delete(abort);
  }
}

/** endingLines ends every log line with a newline, as the kubelet's log stream carries them. */
async function* endingLines(lines: AsyncIterable<string>): AsyncIterable<string> {
  for await (const line of lines) yield line.endsWith("\n") ? line : `${line}\n`;
}

/** KUBELET_ROUTES is every route of the daemon endpoint. */
export const KUBELET_ROUTES: readonly KubeletRoute[] = [
  { pattern: "/healthz", methods: { GET: healthz } },
  { pattern: "/pods", methods: { GET: pods } },
  { pattern: "/containerLogs/:ns/:pod/:container", methods: { GET: containerLogs } },
  { pattern: "/metrics", methods: { GET: metrics(({ agent }) => agent.agentMetrics()) } },
  { pattern: "/metrics/probes", methods: { GET: metrics(({ agent }) => agent.probeMetrics()) } },
  { pattern: "/metrics/resource", methods: { GET: metrics(async (node) => renderResourceMetrics(await summaryOf(node).catch(() => undefined))) } },
  { pattern: "/stats/summary", methods: { GET: statsSummaryHandler } },
];
