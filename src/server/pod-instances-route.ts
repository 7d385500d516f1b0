// GET /api/v1/namespaces/{ns}/pods/{name}/instances: every run of the pod's containers the agent
// has seen (beyond the API server, whose status keeps only the current and the last one), so a
// crash loop's restarts and exits can all be drawn (agent/container-instances.ts).
import type { ContainerInstance } from "../api/container-instance.js";
import { sendJson } from "../apiserver/endpoints/respond.js";
import type { RequestContext } from "../apiserver/endpoints/request-context.js";

/** ContainerInstanceList is the route's answer, oldest start first. */
export interface ContainerInstanceList {
  kind: "ContainerInstanceList";
  apiVersion: "probelet/v1alpha1";
  metadata: { namespace: string; name: string };
  items: ContainerInstance[];
}

/** podInstances serves the route. */
export function podInstances(ctx: RequestContext): void {
  const { ns = "", name = "" } = ctx.params;
  ctx.subject.name = name;
  const list: ContainerInstanceList = { kind: "ContainerInstanceList", apiVersion: "probelet/v1alpha1", metadata: { namespace: ns, name }, items: ctx.api.containerInstances(ns, name) };
  sendJson(ctx.res, 200, list);
}
