// The files of configMap, secret, downwardAPI and projected volumes, as the kubelet's volume
// plugins compute them (pkg/volume/configmap/configmap.go MakePayload, pkg/volume/secret/secret.go
// MakePayload, pkg/volume/downwardapi/downwardapi.go CollectData, pkg/volume/projected/projected.go
// collectData). A missing required object is an error with the plugin's message; a projected
// volume reports every source that failed, as collectData aggregates them.
import { allContainers } from "../api/pod-rules.js";
import type { Container, DownwardAPIVolumeFile, KeyToPath, Pod, ServiceAccountTokenProjection, Volume } from "../api/types.js";
import { DEFAULT_TOKEN_EXPIRATION_SECONDS } from "../api/defaults-volumes.js";
import type { FileProjection } from "./atomic-writer.js";
import { configMapBytes, secretBytes, type ConfigObjects } from "./config-objects.js";
import { containerResourceValue, podFieldValue, type NodeAllocatable, type PodAddresses } from "./downward-api.js";
import type { ServiceAccountTokenSource } from "./service-account-tokens.js";

/** PayloadContext is what a payload is computed from. */
export interface PayloadContext {
  pod: Pod;
  objects: ConfigObjects;
  addresses: PodAddresses;
  node: NodeAllocatable;
  /** Where serviceAccountToken projections get their tokens (cluster mode); none: they fail. */
  tokens?: ServiceAccountTokenSource;
}

/** VolumeSetUpError is a volume that cannot be set up; `message` is the plugin's error text. */
export class VolumeSetUpError extends Error {
  override readonly name = "VolumeSetUpError";
}

type Payload = Map<string, FileProjection>;

// MakePayload for keyed objects: every key with the default mode, or the listed items.
function keyedPayload(kind: "configmap" | "secret", data: Map<string, Buffer>, items: readonly KeyToPath[] | undefined, defaultMode: number, optional: boolean, out: Payload): void {
  if (!items || items.length === 0) {
    for (const [key, bytes] of data) out.set(key, { data: bytes, mode: defaultMode });
    return;
  }
  for (const item of items) {
    const bytes = data.get(item.key);
    if (bytes === undefined) {
      if (optional) continue;
      throw new VolumeSetUpError(kind === "configmap" ? `configmap references non-existent config key: ${item.key}` : `references non-existent secret key: ${item.key}`);
    }
    out.set(item.path, { data: bytes, mode: item.mode ?? defaultMode });
  }
}

function configMapInto(ctx: PayloadContext, name: string | undefined, items: readonly KeyToPath[] | undefined, mode: number, optional: boolean, out: Payload): void {
  const cm = ctx.objects.configMap(ctx.pod.metadata.namespace ?? "default", name ?? "");
  if (!cm) {
    if (optional) return;
    throw new VolumeSetUpError(`configmap "${name ?? ""}" not found`);
  }
  keyedPayload("configmap", configMapBytes(cm), items, mode, optional, out);
}

function secretInto(ctx: PayloadContext, name: string | undefined, items: readonly KeyToPath[] | undefined, mode: number, optional: boolean, out: Payload): void {
  const secret = ctx.objects.secret(ctx.pod.metadata.namespace ?? "default", name ?? "");
  if (!secret) {
    if (optional) return;
    throw new VolumeSetUpError(`secret "${name ?? ""}" not found`);
  }
  keyedPayload("secret", secretBytes(secret), items, mode, optional, out);
}

function downwardInto(ctx: PayloadContext, items: readonly DownwardAPIVolumeFile[], mode: number, out: Payload): void {
  const containers: Container[] = allContainers(ctx.pod);
  for (const item of items) {
    let value = "";
    if (item.fieldRef) value = podFieldValue(ctx.pod, item.fieldRef.fieldPath, ctx.addresses) ?? "";
    else if (item.resourceFieldRef) {
      const container = containers.find((c) => c.name === item.resourceFieldRef!.containerName);
      if (!container) throw new VolumeSetUpError(`container ${item.resourceFieldRef.containerName ?? ""} not found in pod`);
      value = containerResourceValue(item.resourceFieldRef, container, ctx.node);
    }
    out.set(item.path, { data: Buffer.from(value, "utf8"), mode: item.mode ?? mode });
  }
}

/** usesAtomicWriter says whether a volume holds files computed from objects or the pod (configMap, secret, downwardAPI, projected), written with the atomic writer. */
export function usesAtomicWriter(volume: Volume): boolean {
  return !!(volume.configMap || volume.secret || volume.downwardAPI || volume.projected);
}

/**
 * tokenInto requests the token of a serviceAccountToken projection, bound to the pod (projected.go
 * collectData): its mode is the volume's default, 0600 when the pod sets an fsGroup.
 */
async function tokenInto(ctx: PayloadContext, projection: ServiceAccountTokenProjection, defaultMode: number, out: Payload): Promise<void> {
  const { pod } = ctx;
  if (ctx.tokens === undefined) throw new VolumeSetUpError("cannot use TokenManager when kubelet is in standalone mode");
  const fsGroup = (pod.spec.securityContext as { fsGroup?: unknown } | undefined)?.fsGroup;
  const token = await ctx.tokens.token(pod.metadata.namespace ?? "default", pod.spec.serviceAccountName ?? "", { name: pod.metadata.name ?? "", uid: pod.metadata.uid ?? "" }, projection.audience, projection.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS);
  out.set(projection.path, { data: Buffer.from(token, "utf8"), mode: typeof fsGroup === "number" ? 0o600 : defaultMode });
}

/** projectedPayload collects every source of a projected volume; the errors of all failed sources are reported together (utilerrors.NewAggregate). */
async function projectedPayload(ctx: PayloadContext, volume: NonNullable<Volume["projected"]>, mode: number, out: Payload): Promise<void> {
  const errors: string[] = [];
  for (const source of volume.sources ?? []) {
    try {
      if (source.configMap) configMapInto(ctx, source.configMap.name, source.configMap.items, mode, source.configMap.optional === true, out);
      if (source.secret) secretInto(ctx, source.secret.name, source.secret.items, mode, source.secret.optional === true, out);
      if (source.downwardAPI) downwardInto(ctx, source.downwardAPI.items ?? [], mode, out);
      if (source.serviceAccountToken) await tokenInto(ctx, source.serviceAccountToken, mode, out);
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      errors.push(err.message);
    }
  }
  if (errors.length === 1) throw new VolumeSetUpError(errors[0]!);
  if (errors.length > 1) throw new VolumeSetUpError(`[${errors.join(", ")}]`);
}

/** volumePayload computes the files of a configMap, secret, downwardAPI or projected volume. */
export async function volumePayload(ctx: PayloadContext, volume: Volume): Promise<Payload> {
  const out: Payload = new Map();
  const mode = (m: number | undefined): number => m ?? 0o644;
  if (volume.configMap) {
    const s = volume.configMap;
    configMapInto(ctx, s.name, s.items, mode(s.defaultMode), s.optional === true, out);
  } else if (volume.secret) {
    const s = volume.secret;
    secretInto(ctx, s.secretName, s.items, mode(s.defaultMode), s.optional === true, out);
  } else if (volume.downwardAPI) {
    downwardInto(ctx, volume.downwardAPI.items ?? [], mode(volume.downwardAPI.defaultMode), out);
  } else if (volume.projected) {
    await projectedPayload(ctx, volume.projected, mode(volume.projected.defaultMode), out);
  }
  return out;
}

/**
 * referencedNames lists the ConfigMaps or Secrets a pod reads, in env, envFrom or a volume (kubelet
 * configmap_manager.go getConfigMapNames, secret_manager.go getSecretNames; image pull secrets
 * are left out: the agent pulls no images with them).
 */
export function referencedNames(pod: Pod, kind: "ConfigMap" | "Secret"): Set<string> {
  const names = new Set<string>();
  const add = (name: string | undefined): void => {
    if (name) names.add(name);
  };
  for (const c of allContainers(pod)) {
    for (const e of c.envFrom ?? []) add((kind === "ConfigMap" ? e.configMapRef : e.secretRef)?.name);
    for (const e of c.env ?? []) add((kind === "ConfigMap" ? e.valueFrom?.configMapKeyRef : e.valueFrom?.secretKeyRef)?.name);
  }
  for (const v of pod.spec.volumes ?? []) {
    add(kind === "ConfigMap" ? v.configMap?.name : v.secret?.secretName);
    for (const s of v.projected?.sources ?? []) add((kind === "ConfigMap" ? s.configMap : s.secret)?.name);
  }
  return names;
}

/** referencesObject says whether a pod reads the named ConfigMap or Secret (env, envFrom or a volume). */
export function referencesObject(pod: Pod, kind: "ConfigMap" | "Secret", name: string): boolean {
  return referencedNames(pod, kind).has(name);
}
