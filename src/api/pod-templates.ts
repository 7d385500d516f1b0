// The pod templates of the workload kinds (apps/v1 Deployment, StatefulSet, DaemonSet,
// ReplicaSet; batch/v1 Job and CronJob), where real probes live: found in a manifest's object,
// decoded strictly with the Pod schema under their own field path (`spec.template…`, for a
// CronJob `spec.jobTemplate.spec.template…`), so a tool can check them as the API server checks
// a pod (defaulting, validation) and name every field by its path in the workload.
import { decodeValue } from "./decode.js";
import { podSchema } from "./schema.js";
import type { Pod } from "./types.js";

/** WORKLOAD_KINDS maps each workload kind to its API group and the path of its pod template. */
const WORKLOAD_KINDS: Readonly<Record<string, { group: string; path: readonly string[] }>> = {
  Deployment: { group: "apps", path: ["spec", "template"] },
  StatefulSet: { group: "apps", path: ["spec", "template"] },
  DaemonSet: { group: "apps", path: ["spec", "template"] },
  ReplicaSet: { group: "apps", path: ["spec", "template"] },
  Job: { group: "batch", path: ["spec", "template"] },
  CronJob: { group: "batch", path: ["spec", "jobTemplate", "spec", "template"] },
};

/** PodTemplate is a workload's pod template as a Pod named after the workload. */
export interface PodTemplate {
  /** kubectl's name of the workload, e.g. `deployment.apps/web`. */
  owner: string;
  /** The template's field path in the workload, e.g. `spec.template` (a Pod's paths go below it). */
  path: string;
  /** The template as a Pod: its metadata (the workload's name and namespace when it has none) and spec. */
  pod: Pod;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * podTemplateOf returns the pod template of a workload object, or undefined for any other kind;
 * `errors` gets its decoding errors (an unknown field, a wrong type, a missing template), each
 * with the template's path.
 */
export function podTemplateOf(object: Json, errors: string[]): PodTemplate | undefined {
  const kind = typeof object["kind"] === "string" ? object["kind"] : "";
  const apiVersion = typeof object["apiVersion"] === "string" ? object["apiVersion"] : "";
  const workload = WORKLOAD_KINDS[kind];
  if (workload === undefined || !apiVersion.startsWith(`${workload.group}/`)) return undefined;
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const name = typeof meta["name"] === "string" ? meta["name"] : "";
  const owner = `${kind.toLowerCase()}.${workload.group}/${name}`;
  const path = workload.path.join(".");
  let template: unknown = object;
  for (const key of workload.path) template = isObject(template) ? template[key] : undefined;
  if (!isObject(template) || !isObject(template["spec"])) {
    errors.push(`${path}.spec: Required value`);
    return undefined;
  }
  const templateMeta = isObject(template["metadata"]) ? template["metadata"] : {};
  const decoded = decodeValue(podSchema, { metadata: templateMeta, spec: template["spec"] }, path, errors) as Pod | undefined;
  if (decoded === undefined) return undefined;
  const namespace = typeof meta["namespace"] === "string" ? meta["namespace"] : undefined;
  decoded.metadata = { ...decoded.metadata, name, ...(namespace !== undefined ? { namespace } : {}) };
  return { owner, path, pod: decoded };
}
