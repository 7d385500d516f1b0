// The core/v1 resources the client commands name, with kubectl's short names, and the REST path
// of each: /api/v1/{namespaces/NS/}RESOURCE[/NAME] (cluster-scoped resources have no namespace).

/** ApiResource is one resource type of the core API group. */
export interface ApiResource {
  /** The path segment and the word in texts such as `pods "x" not found`. */
  plural: string;
  /** Lower-case kind, used in `-o name` (`pod/web`) and in `deleted` lines. */
  singular: string;
  /** The object's kind, as in a manifest. */
  kind: string;
  namespaced: boolean;
  /** Other names kubectl accepts for the type (singular and short names). */
  aliases: readonly string[];
}

/** API_RESOURCES are the resources `get` and `delete` know. */
export const API_RESOURCES: readonly ApiResource[] = [
  { plural: "pods", singular: "pod", kind: "Pod", namespaced: true, aliases: ["pod", "po"] },
  { plural: "events", singular: "event", kind: "Event", namespaced: true, aliases: ["event", "ev"] },
  { plural: "configmaps", singular: "configmap", kind: "ConfigMap", namespaced: true, aliases: ["configmap", "cm"] },
  { plural: "secrets", singular: "secret", kind: "Secret", namespaced: true, aliases: ["secret"] },
  { plural: "namespaces", singular: "namespace", kind: "Namespace", namespaced: false, aliases: ["namespace", "ns"] },
  { plural: "nodes", singular: "node", kind: "Node", namespaced: false, aliases: ["node", "no"] },
];

/** findResource resolves a type as typed on the command line (plural, singular or short name, any case). */
export function findResource(type: string): ApiResource | undefined {
  const wanted = type.toLowerCase();
  return API_RESOURCES.find((r) => r.plural === wanted || r.aliases.includes(wanted));
}

/** findResourceByKind resolves a manifest's kind (apiVersion v1). */
export function findResourceByKind(kind: string): ApiResource | undefined {
  return API_RESOURCES.find((r) => r.kind === kind);
}

/**
 * resourcePath is the REST path of a resource's collection (namespace undefined: every namespace)
 * or, with a name, of one object.
 */
export function resourcePath(resource: ApiResource, namespace: string | undefined, name?: string): string {
  const scope = resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `/api/v1${scope}/${resource.plural}${name !== undefined ? `/${encodeURIComponent(name)}` : ""}`;
}
