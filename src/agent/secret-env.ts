// Which values of a container's environment come from Secrets (env valueFrom.secretKeyRef and
// envFrom.secretRef, read as makeEnvironmentVariables reads them), so that exec probe output can
// be scrubbed of them (src/prober/output-redaction.ts). The Secrets are read as they are now.
import type { Container, Pod } from "../api/types.js";
import { redactorOf, type Redact } from "../prober/output-redaction.js";
import { secretBytes, type ConfigObjects } from "../volumes/config-objects.js";

/** usesSecrets tells whether a container's environment reads any Secret. */
function usesSecrets(container: Container): boolean {
  return (container.env ?? []).some((e) => e.valueFrom?.secretKeyRef !== undefined) || (container.envFrom ?? []).some((s) => s.secretRef !== undefined);
}

/** secretEnvValues lists the values a container's environment takes from the pod's Secrets. */
export function secretEnvValues(pod: Pod, container: Container, objects: ConfigObjects): string[] {
  if (!usesSecrets(container)) return [];
  const namespace = pod.metadata.namespace ?? "default";
  const values: string[] = [];
  const read = (name: string): Map<string, Buffer> | undefined => {
    try {
      const secret = objects.secret(namespace, name);
      return secret ? secretBytes(secret) : undefined;
    } catch {
      return undefined; // not readable now: nothing to add
    }
  };
  for (const source of container.envFrom ?? []) {
    if (source.secretRef) for (const bytes of read(source.secretRef.name ?? "")?.values() ?? []) values.push(bytes.toString("utf8"));
  }
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    const bytes = ref ? read(ref.name ?? "")?.get(ref.key) : undefined;
    if (bytes) values.push(bytes.toString("utf8"));
  }
  return values;
}

/** secretRedactor is the prober's redactor over an agent's ConfigObjects. */
export function secretRedactor(objects: ConfigObjects): (pod: Pod, container: Container) => Redact | undefined {
  return (pod, container) => redactorOf(secretEnvValues(pod, container, objects));
}
