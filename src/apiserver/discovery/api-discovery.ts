// Legacy discovery (what kubectl falls back to when aggregated discovery is not offered):
// GET /api (APIVersions), GET /apis (APIGroupList, no groups) and GET /api/v1
// (APIResourceList built from the resource registry, subresources included).
import type { ResourceDefinition } from "../resources/resource-definition.js";

/** apiVersions is GET /api's APIVersions; serverAddress is the address the request came to. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

/** apiGroupList is GET /apis: the agent serves the core group only. */
export function apiGroupList(): Record<string, unknown> {
  return { kind: "APIGroupList", apiVersion: "v1", groups: [] };
}

/** APIResource is metav1.APIResource. */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: readonly string[];
  shortNames?: readonly string[];
  categories?: readonly string[];
}

/** apiResourceList is GET /api/v1: every resource and its subresources (pods/log, pods/status, …). */
export function apiResourceList(resources: readonly ResourceDefinition[]): Record<string, unknown> {
  const list: APIResource[] = [];
  for (const r of resources) {
    const entry: APIResource = { name: r.name, singularName: r.singularName, namespaced: r.namespaced, kind: r.kind, verbs: r.verbs };
    if (r.shortNames.length > 0) entry.shortNames = r.shortNames;
    if (r.categories.length > 0) entry.categories = r.categories;
    list.push(entry);
    if (r.status !== undefined) list.push({ name: `${r.name}/status`, singularName: "", namespaced: r.namespaced, kind: r.kind, verbs: ["get", "patch", "update"] });
    if (r.name === "pods") {
      list.push({ name: "pods/exec", singularName: "", namespaced: true, kind: "PodExecOptions", verbs: ["create", "get"] });
      list.push({ name: "pods/log", singularName: "", namespaced: true, kind: "Pod", verbs: ["get"] });
    }
  }
  list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: "APIResourceList", groupVersion: "v1", resources: list };
}
