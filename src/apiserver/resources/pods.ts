// The pods resource (pkg/registry/core/pod strategy): defaulting and validation with
// src/api's rules on create, status cleared and phase Pending on create (PrepareForCreate),
// status kept on spec updates and spec kept on status updates, and ValidatePodUpdate.
import { staticPodOrigin } from "../../api/mirror-pod.js";
import { defaultAndValidatePod } from "../../api/validation.js";
import { podSchema } from "../../api/schema.js";
import type { Pod } from "../../api/types.js";
import type { KubeObject } from "../storage/object-store.js";
import { validatePodUpdate } from "./pod-update-rules.js";
import { ALL_VERBS, type ResourceDefinition } from "./resource-definition.js";

/** PODS is the pods resource. */
export const PODS: ResourceDefinition = {
  name: "pods",
  singularName: "pod",
  kind: "Pod",
  shortNames: ["po"],
  namespaced: true,
  verbs: ALL_VERBS,
  categories: ["all"],
  returnsDeletedObject: true,
  // Beyond the API server: deleting a mirror pod does not stop its static pod (the node makes the mirror again).
  deleteWarnings: (object) => {
    const origin = staticPodOrigin(object as Pod);
    return origin === undefined ? [] : [origin];
  },
  // pkg/registry/core/pod/strategy.go CheckGracefulDelete: the requested grace, else the pod's;
  // an unscheduled or terminal pod goes at once.
  gracePeriodSeconds: (object, requested) => {
    const pod = object as Pod;
    if ((pod.spec.nodeName ?? "") === "") return 0;
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") return 0;
    return requested ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  },
  strategy: {
    schema: podSchema,
    // The agent is its node's scheduler: a pod created through its API is bound to it at once.
    prepareForCreate: (object, context) => {
      const pod = object as Pod;
      return { ...pod, spec: { ...pod.spec, nodeName: pod.spec.nodeName ?? context.nodeName }, status: { phase: "Pending" } } as KubeObject;
    },
    validate: (object) => {
      const checked = defaultAndValidatePod(object as Pod);
      return checked.ok ? { object: checked.pod, errors: [] } : { object, errors: checked.errors };
    },
    prepareForUpdate: (next, current) => ({ ...next, status: (current as Pod).status }) as KubeObject,
    validateUpdate: (next, current) => validatePodUpdate(next as Pod, current as Pod),
  },
  status: {
    prepareForUpdate: (next, current) => ({ ...current, metadata: { ...current.metadata, labels: next.metadata.labels, annotations: next.metadata.annotations }, status: (next as Pod).status }) as KubeObject,
  },
};
