// Pod admission: how a pod from each source becomes a pod the agent runs. Manifest pods are
// defaulted and validated here and get a UID derived from their source and content (the
// kubelet's static pods); API pods are written to the object store exactly as a create through
// the API would write them (the pods strategy: validation, status Pending, bound to this node)
// and reach the agent through its API pod source. A running manifest pod is reflected in the
// store as a mirror pod (static-pod-mirrors.ts).
import type { Pod } from "../api/types.js";
import { formatFieldErrors } from "../api/field-errors.js";
import { defaultAndValidatePod, type ValidationOptions } from "../api/validation.js";
import { admitToNamespace } from "../apiserver/resources/namespace-lifecycle.js";
import { NAMESPACES, newNamespace } from "../apiserver/resources/namespaces.js";
import { PODS } from "../apiserver/resources/pods.js";
import { rfc3339, type ObjectStore } from "../apiserver/storage/object-store.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import { podUidFor } from "./pod-uid.js";

/** AdmitResult is the outcome of admitting one pod. */
export type AdmitResult = { ok: true; pod: Pod } | { ok: false; name: string; errors: string[] };

/** admitManifestPod defaults and validates a manifest pod and gives it its UID (derived from source and content) and creation time. */
export function admitManifestPod(input: Pod, source: string, now: number): AdmitResult {
  const checked = defaultAndValidatePod(input);
  const name = input.metadata?.name ?? "";
  if (!checked.ok) return { ok: false, name, errors: formatFieldErrors(checked.errors) };
  const pod = checked.pod;
  pod.metadata.uid = podUidFor(pod, source);
  pod.metadata.creationTimestamp ??= rfc3339(now);
  return { ok: true, pod };
}

/** CreateApiPodOptions tune createApiPod. */
export interface CreateApiPodOptions {
  /** Keep the pod's UID and creation time (a pod restored from the state directory). */
  restore?: boolean;
  /** Validate with these options instead of the pods strategy's (a node that can request service-account tokens). */
  validation?: ValidationOptions;
}

/**
 * createApiPod writes a pod into the store as POST /api/v1/namespaces/{ns}/pods would: the pods
 * strategy validates it and binds it to nodeName. A restored pod may find its namespace gone
 * (namespaces are not saved): it is made again.
 */
export function createApiPod(store: ObjectStore, input: Pod, nodeName: string, options: CreateApiPodOptions = {}): AdmitResult {
  const name = input.metadata?.name ?? "";
  const namespace = input.metadata?.namespace ?? "default";
  const prepared = PODS.strategy.prepareForCreate({ ...input, metadata: { ...input.metadata, namespace } }, { nodeName });
  const { object, errors } = options.validation === undefined ? PODS.strategy.validate(prepared) : validatedWith(prepared as Pod, options.validation);
  if (errors.length > 0) return { ok: false, name, errors: formatFieldErrors(errors) };
  try {
    if (options.restore === true && store.get(NAMESPACES.name, undefined, namespace) === undefined) store.create(NAMESPACES.name, newNamespace(namespace));
    admitToNamespace(store, namespace);
    return { ok: true, pod: store.create<Pod>(PODS.name, { apiVersion: "v1", kind: "Pod", ...(object as Pod) }, { keepUid: options.restore === true }) };
  } catch (err) {
    if (err instanceof StoreError) return { ok: false, name, errors: [err.message] };
    throw err;
  }
}

/** validatedWith defaults and validates a pod as the pods strategy does, with other options. */
function validatedWith(pod: Pod, options: ValidationOptions): { object: Pod; errors: ReturnType<typeof PODS.strategy.validate>["errors"] } {
  const checked = defaultAndValidatePod(pod, options);
  return checked.ok ? { object: checked.pod, errors: [] } : { object: pod, errors: checked.errors };
}
