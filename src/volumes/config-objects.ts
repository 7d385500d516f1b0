// The kubelet's view of ConfigMaps and Secrets (pkg/kubelet/configmap/configmap_manager.go,
// pkg/kubelet/secret/secret_manager.go): a lookup by namespace and name plus a change
// notification. The agent's object store implements it; MemoryConfigObjects is the in-process
// implementation used when objects are handed in directly (tests, embedders).
import type { ConfigMap, Pod, Secret } from "../api/types.js";

/** ConfigObjectKind names the two kinds a pod can take config from. */
export type ConfigObjectKind = "ConfigMap" | "Secret";

/** ConfigObjectChange identifies one changed (added, updated or deleted) object. */
export interface ConfigObjectChange {
  kind: ConfigObjectKind;
  namespace: string;
  name: string;
}

/**
 * ConfigObjectError is an object that could not be read (not "not found": that is undefined), e.g.
 * `failed to sync configmap cache: timed out waiting for the condition`; the message is the
 * kubelet's. Even an optional reference fails on it (makeEnvironmentVariables skips only NotFound).
 */
export class ConfigObjectError extends Error {
  override readonly name = "ConfigObjectError";
}

/** ConfigObjects is where the agent reads the ConfigMaps and Secrets its pods reference. */
export interface ConfigObjects {
  /** configMap returns the named ConfigMap, or undefined when it does not exist; may throw ConfigObjectError. */
  configMap(namespace: string, name: string): ConfigMap | undefined;
  /** secret returns the named Secret, or undefined when it does not exist; may throw ConfigObjectError. */
  secret(namespace: string, name: string): Secret | undefined;
  /** onChange calls `listener` after every change; the returned function unsubscribes. */
  onChange(listener: (change: ConfigObjectChange) => void): () => void;
  /**
   * registerPod tells a source that fetches objects (the API server's, in cluster mode) that the
   * pod's references are needed from now on (kubelet Manager.RegisterPod, called by the pod
   * manager on every pod add and update). Sources that hold every object leave it out.
   */
  registerPod?(pod: Pod): void;
  /** unregisterPod says the pod is gone (kubelet Manager.UnregisterPod). */
  unregisterPod?(pod: Pod): void;
  /**
   * synced resolves once every object the pod references was read, or after at most a second (the
   * kubelet's objectCache.Get polls its reflector's hasSynced for up to one second).
   */
  synced?(pod: Pod): Promise<void>;
}

/** MemoryConfigObjects keeps ConfigMaps and Secrets in maps and notifies on every put and delete. */
export class MemoryConfigObjects implements ConfigObjects {
  private readonly objects = new Map<string, ConfigMap | Secret>();
  private readonly listeners = new Set<(change: ConfigObjectChange) => void>();

  configMap(namespace: string, name: string): ConfigMap | undefined {
    return this.objects.get(key("ConfigMap", namespace, name)) as ConfigMap | undefined;
  }

  secret(namespace: string, name: string): Secret | undefined {
    return this.objects.get(key("Secret", namespace, name)) as Secret | undefined;
  }

  onChange(listener: (change: ConfigObjectChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** putConfigMap adds or replaces a ConfigMap (namespace "default" when unset). */
  putConfigMap(configMap: ConfigMap): void {
    this.put("ConfigMap", configMap);
  }

  /** putSecret adds or replaces a Secret (namespace "default" when unset). */
  putSecret(secret: Secret): void {
    this.put("Secret", secret);
  }

  /** delete removes an object; deleting what is not there changes nothing and notifies nobody. */
  delete(kind: ConfigObjectKind, namespace: string, name: string): void {
    if (this.objects.delete(key(kind, namespace, name))) this.notify({ kind, namespace, name });
  }

  private put(kind: ConfigObjectKind, object: ConfigMap | Secret): void {
    const namespace = object.metadata.namespace ?? "default";
    const name = object.metadata.name ?? "";
    this.objects.set(key(kind, namespace, name), structuredClone(object));
    this.notify({ kind, namespace, name });
  }

  private notify(change: ConfigObjectChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }
}

function key(kind: ConfigObjectKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** configMapBytes returns a ConfigMap's keys as bytes: data as UTF-8, binaryData decoded from base64. */
export function configMapBytes(configMap: ConfigMap): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(configMap.data ?? {})) out.set(k, Buffer.from(v, "utf8"));
  for (const [k, v] of Object.entries(configMap.binaryData ?? {})) out.set(k, Buffer.from(v, "base64"));
  return out;
}

/** secretBytes returns a Secret's keys as bytes: data decoded from base64, stringData (not yet merged) as UTF-8. */
export function secretBytes(secret: Secret): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(secret.data ?? {})) out.set(k, Buffer.from(v, "base64"));
  for (const [k, v] of Object.entries(secret.stringData ?? {})) out.set(k, Buffer.from(v, "utf8"));
  return out;
}
