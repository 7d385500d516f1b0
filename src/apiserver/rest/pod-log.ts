// GET pods/{name}/log: the node's container log (kubectl logs), with the kubelet's options
// (pkg/kubelet/kuberuntime/logs ReadLogs and PodLogOptions): container, follow, previous,
// tailLines, timestamps, sinceSeconds or sinceTime (lines at or after that time), and
// limitBytes (the stream ends after that many bytes).
import type { LogRequest } from "../endpoints/host-interface.js";
import { serveLogs } from "../endpoints/log-stream.js";
import { queryBool, queryNonNegativeInt } from "../endpoints/query.js";
import type { Handler } from "../endpoints/request-context.js";
import { badRequestStatus, StatusError } from "../endpoints/status-object.js";
import { PODS } from "../resources/pods.js";

const TIMESTAMP_RE = /^(\S+) /;

/** sinceOf reads sinceSeconds or sinceTime as ms since the epoch (both at once: 400, as the API server). */
function sinceOf(query: URLSearchParams, now: number): number | undefined {
  const seconds = queryNonNegativeInt(query, "sinceSeconds");
  const time = query.get("sinceTime");
  if (seconds !== undefined && time !== null) throw new StatusError(badRequestStatus("at most one of `sinceTime` or `sinceSeconds` may be specified"));
  if (seconds !== undefined) {
    if (seconds < 1) throw new StatusError(badRequestStatus("sinceSeconds: Invalid value: 0: must be greater than 0"));
    return now - seconds * 1000;
  }
  if (time === null) return undefined;
  const parsed = Date.parse(time);
  if (Number.isNaN(parsed)) throw new StatusError(badRequestStatus(`sinceTime: Invalid value: "${time}": must be an RFC 3339 time`));
  return parsed;
}

/** shapeLog narrows lines (which carry timestamps when `since` is set) and ends them with newlines. */
async function* shapeLog(lines: AsyncIterable<string>, since: number | undefined, keepTimestamps: boolean, limitBytes: number | undefined): AsyncIterable<string> {
  let left = limitBytes ?? Number.POSITIVE_INFINITY;
  for await (const line of lines) {
    let text = line;
    if (since !== undefined) {
      const stamp = TIMESTAMP_RE.exec(text)?.[1];
      if (stamp !== undefined && Date.parse(stamp) < since) continue;
      if (!keepTimestamps && stamp !== undefined) text = text.slice(stamp.length + 1);
    }
    text = text.endsWith("\n") ? text : `${text}\n`;
    const bytes = Buffer.from(text, "utf8");
    if (bytes.length >= left) {
      yield bytes.subarray(0, left).toString("utf8");
      return;
    }
    left -= bytes.length;
    yield text;
  }
}

/** podLogHandler serves GET /api/v1/namespaces/{ns}/pods/{name}/log. */
export const podLogHandler: Handler = (ctx) => {
  const namespace = ctx.params["ns"] ?? "";
  const name = ctx.params["name"] ?? "";
  ctx.subject.name = name;
  ctx.api.store.mustGet(PODS.name, namespace, name);
  const tailLines = queryNonNegativeInt(ctx.query, "tailLines");
  const limitBytes = queryNonNegativeInt(ctx.query, "limitBytes");
  if (limitBytes === 0) throw new StatusError(badRequestStatus("limitBytes: Invalid value: 0: must be greater than 0"));
  const since = sinceOf(ctx.query, ctx.clock.now());
  const timestamps = queryBool(ctx.query, "timestamps");
  const container = ctx.query.get("container");
  const request: LogRequest & { signal: AbortSignal } = {
    namespace,
    name,
    previous: queryBool(ctx.query, "previous"),
    follow: queryBool(ctx.query, "follow"),
    timestamps: timestamps || since !== undefined,
    signal: ctx.streams.start(ctx.res),
  };
  if (container !== null && container !== "") request.container = container;
  if (tailLines !== undefined) request.tailLines = tailLines;
  return serveLogs(ctx.res, shapeLog(ctx.api.readLogs(request), since, timestamps, limitBytes), request, ctx.logger);
};
