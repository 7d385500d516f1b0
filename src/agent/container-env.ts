// A container's environment and argv as the kubelet builds them for the runtime
// (kubelet kubelet_pods.go makeEnvironmentVariables and container helpers
// ExpandContainerCommandAndArgs): env values may reference earlier variables with $(VAR),
// downward-API fieldRefs resolve from the pod, and command/args expand against the result.
import type { Container, EnvVar, Pod } from "../api/types.js";
import { expandString } from "../probe/expand.js";

/** EnvResult is the resolved environment plus fields that could not be resolved locally. */
export interface EnvResult {
  env: { key: string; value: string }[];
  /** Variables whose valueFrom is not supported here (secrets, config maps, resources): set to "". */
  unresolved: string[];
}

/** FIELD_REFS are the downward-API fields the agent can answer. */
function fieldRef(pod: Pod, podIP: string, path: string): string | undefined {
  switch (path) {
    case "metadata.name":
      return pod.metadata.name ?? "";
    case "metadata.namespace":
      return pod.metadata.namespace ?? "";
    case "metadata.uid":
      return pod.metadata.uid ?? "";
    case "status.podIP":
    case "status.hostIP":
      return podIP;
    case "spec.nodeName":
      return pod.spec.nodeName ?? "";
    default:
      return undefined;
  }
}

/**
 * containerEnv resolves a container's env in order: literal values expand $(VAR) against the
 * variables defined before them (single pass), fieldRefs resolve from the pod, later
 * duplicates win.
 */
export function containerEnv(pod: Pod, container: Container, podIP: string): EnvResult {
  const vars = new Map<string, string>();
  const unresolved: string[] = [];
  for (const e of container.env ?? []) vars.set(e.name, resolveOne(pod, podIP, e, vars, unresolved));
  return { env: [...vars].map(([key, value]) => ({ key, value })), unresolved };
}

function resolveOne(pod: Pod, podIP: string, e: EnvVar, vars: ReadonlyMap<string, string>, unresolved: string[]): string {
  if (e.valueFrom === undefined) return expandString(e.value ?? "", vars);
  const ref = e.valueFrom["fieldRef"] as { fieldPath?: string } | undefined;
  const value = ref?.fieldPath ? fieldRef(pod, podIP, ref.fieldPath) : undefined;
  if (value === undefined) unresolved.push(e.name);
  return value ?? "";
}

/** expandCommandAndArgs expands $(VAR) in command and args against the resolved env. */
export function expandCommandAndArgs(container: Container, env: readonly { key: string; value: string }[]): { command: string[]; args: string[] } {
  const vars = new Map(env.map((e) => [e.key, e.value]));
  return {
    command: (container.command ?? []).map((c) => expandString(c, vars)),
    args: (container.args ?? []).map((a) => expandString(a, vars)),
  };
}
