// POST /api/v1/namespaces/{ns}/pods/{name}/probes/trigger?probeType=&container=: "probe now",
// the kubelet's manual trigger of a probe worker (beyond the API server; agent/probe-trigger.ts).
// The answer is the probe's history entry once it has run; a probe that cannot run now is a 409
// saying why, one that does not finish in time a 504.
import { PROBE_TYPES, type ProbeType } from "../prober/probe-type.js";
import { sendJson } from "../apiserver/endpoints/respond.js";
import type { RequestContext } from "../apiserver/endpoints/request-context.js";
import { badRequestStatus, StatusError } from "../apiserver/endpoints/status-object.js";

/** A container name is at most 63 characters (a DNS label). */
const MAX_CONTAINER_CHARS = 63;

/** triggerProbe serves the route; the entry comes back as a ProbeHistoryEntry object. */
export async function triggerProbe(ctx: RequestContext): Promise<void> {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  const type = (ctx.query.get("probeType") ?? "").toLowerCase() as ProbeType;
  if (!PROBE_TYPES.includes(type)) throw new StatusError(badRequestStatus(`invalid probeType "${(ctx.query.get("probeType") ?? "").slice(0, 64)}": want liveness, readiness or startup`));
  const container = ctx.query.get("container") ?? undefined;
  if (container !== undefined && (container === "" || container.length > MAX_CONTAINER_CHARS)) throw new StatusError(badRequestStatus(`invalid container: 1 to ${MAX_CONTAINER_CHARS} characters`));
  const entry = await ctx.api.triggerProbe(ns, name, container, type);
  sendJson(ctx.res, 200, { kind: "ProbeHistoryEntry", apiVersion: "probelet/v1alpha1", ...entry });
}
