// The kubelet's ConfigMap and Secret managers in cluster mode, with their default `Watch`
// change-detection strategy (pkg/kubelet/configmap, pkg/kubelet/secret on
// pkg/kubelet/util/manager cache_based_manager.go and watch_based_manager.go): when a pod is
// registered, every ConfigMap and Secret it references that no other registered pod references
// gets its own reflector, a list and watch of that one object
// (`/api/v1/namespaces/<ns>/configmaps?fieldSelector=metadata.name=<name>`); when the last pod
// referencing an object goes, its reflector stops (and at once for an immutable object). A lookup answers from the reflector's copy,
// "not synced" (the kubelet's `failed to sync configmap cache: …`) until its first list came
// back. The Node authorizer of v1.20 lets a node get, list and watch exactly the objects its
// pods reference (a list or watch only with that metadata.name field selector; a plain list is
// refused), so this works with node credentials, and a change reaches the node at once instead
// of after the `Cache` strategy's TTL. Objects are kept in memory only; log lines name them, never
// their values.
import type { ConfigMap, Pod, Secret } from "../api/types.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { ConfigObjectError, type ConfigObjectChange, type ConfigObjectKind, type ConfigObjects } from "../volumes/config-objects.js";
import { referencedNames } from "../volumes/volume-payload.js";
import type { RestClient } from "../client/rest-client.js";
import { Reflector } from "./reflector.js";

/** SYNC_WAIT_MS is how long a lookup waits for an object's first list (kubelet objectCache.Get: one second). */
export const SYNC_WAIT_MS = 1000;

/** The API resource and the kubelet's group-resource name (corev1.Resource("configmap")) of each kind. */
const RESOURCES: Readonly<Record<ConfigObjectKind, { plural: string; singular: string }>> = {
  ConfigMap: { plural: "configmaps", singular: "configmap" },
  Secret: { plural: "secrets", singular: "secret" },
};

const KINDS = Object.keys(RESOURCES) as ConfigObjectKind[];

type ConfigObject = ConfigMap | Secret;

/** CachedObject is one referenced object and its reflector (kubelet objectCacheItem). */
interface CachedObject {
  /** How many registered pods reference it; at 0 the reflector stops. */
  refCount: number;
  readonly stop: AbortController;
  /** Set once the first list came back; `object` is then the API server's copy (undefined: absent). */
  synced: boolean;
  object: ConfigObject | undefined;
  /** Called once at the first list. */
  readonly onSynced: Set<() => void>;
}

/** ApiConfigObjectsOptions configure an ApiConfigObjects. */
export interface ApiConfigObjectsOptions {
  /** A client with the node's credentials. */
  client: RestClient;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/** ApiConfigObjects reads the ConfigMaps and Secrets of registered pods from the API server. */
export class ApiConfigObjects implements ConfigObjects {
  private readonly items = new Map<string, CachedObject>();
  /** The registered pods, by UID (kubelet cacheBasedManager.registeredPods). */
  private readonly pods = new Map<string, Pod>();
  private readonly listeners = new Set<(change: ConfigObjectChange) => void>();
  private readonly runs = new Set<Promise<void>>();

  constructor(private readonly options: ApiConfigObjectsOptions) {}

  configMap(namespace: string, name: string): ConfigMap | undefined {
    return this.lookup("ConfigMap", namespace, name) as ConfigMap | undefined;
  }

  secret(namespace: string, name: string): Secret | undefined {
    return this.lookup("Secret", namespace, name) as Secret | undefined;
  }

  onChange(listener: (change: ConfigObjectChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** registerPod starts reflectors for the objects the pod newly references and stops those it dropped. */
  registerPod(pod: Pod): void {
    const uid = pod.metadata.uid ?? "";
    const namespace = pod.metadata.namespace ?? "default";
    const previous = this.pods.get(uid);
    this.pods.set(uid, pod);
    for (const kind of KINDS) {
      const names = referencedNames(pod, kind);
      const before = previous === undefined ? new Set<string>() : referencedNames(previous, kind);
      for (const name of names) if (!before.has(name)) this.addReference(kind, namespace, name);
      for (const name of before) if (!names.has(name)) this.deleteReference(kind, namespace, name);
    }
  }

  /** unregisterPod drops the pod's references; objects no registered pod references stop being watched. */
  unregisterPod(pod: Pod): void {
    const uid = pod.metadata.uid ?? "";
    const previous = this.pods.get(uid);
    if (previous === undefined) return;
    this.pods.delete(uid);
    for (const kind of KINDS) for (const name of referencedNames(previous, kind)) this.deleteReference(kind, previous.metadata.namespace ?? "default", name);
  }

  /** synced resolves once every object the pod references was listed, or after SYNC_WAIT_MS. */
  async synced(pod: Pod): Promise<void> {
    const namespace = pod.metadata.namespace ?? "default";
    const waits: Promise<void>[] = [];
    for (const kind of KINDS) {
      for (const name of referencedNames(pod, kind)) {
        const item = this.items.get(key(kind, namespace, name));
        if (item !== undefined && !item.synced) waits.push(new Promise((resolve) => item.onSynced.add(resolve)));
      }
    }
    if (waits.length === 0) return;
    const timer = new AbortController();
    await Promise.race([Promise.all(waits), this.options.clock.sleep(SYNC_WAIT_MS, timer.signal)]);
    timer.abort();
  }

  /** watched is how many objects have a reflector now. */
  get watched(): number {
    return this.items.size;
  }

  /** close stops every reflector. */
  async close(): Promise<void> {
    for (const item of this.items.values()) item.stop.abort();
    this.items.clear();
    this.pods.clear();
    await Promise.all([...this.runs]);
  }

  /** lookup is objectCache.Get: the reflector's copy once it listed, an error before or when nothing registered it. */
  private lookup(kind: ConfigObjectKind, namespace: string, name: string): ConfigObject | undefined {
    const item = this.items.get(key(kind, namespace, name));
    if (item === undefined) throw new ConfigObjectError(`object "${namespace}"/"${name}" not registered`);
    if (!item.synced) throw new ConfigObjectError(`failed to sync ${RESOURCES[kind].singular} cache: timed out waiting for the condition`);
    return item.object;
  }

  private addReference(kind: ConfigObjectKind, namespace: string, name: string): void {
    const k = key(kind, namespace, name);
    const existing = this.items.get(k);
    if (existing !== undefined) {
      existing.refCount++;
      return;
    }
    const item: CachedObject = { refCount: 1, stop: new AbortController(), synced: false, object: undefined, onSynced: new Set() };
    this.items.set(k, item);
    const { client, clock, logger, random } = this.options;
    const { plural, singular } = RESOURCES[kind];
    const set = (object: ConfigObject | undefined): void => this.store(item, { kind, namespace, name }, object);
    const reflector = new Reflector<ConfigObject>({
      client, clock, logger,
      ...(random !== undefined ? { random } : {}),
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/${plural}?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`,
      what: `${singular} "${namespace}/${name}"`,
      replace: (objects) => set(objects.find((o) => o.metadata.name === name)),
      apply: (type, object) => set(type === "DELETED" ? undefined : object),
    });
    const run = reflector.run(item.stop.signal).finally(() => this.runs.delete(run));
    this.runs.add(run);
  }

  private deleteReference(kind: ConfigObjectKind, namespace: string, name: string): void {
    const k = key(kind, namespace, name);
    const item = this.items.get(k);
    if (item === undefined || --item.refCount > 0) return;
    item.stop.abort();
    this.items.delete(k);
  }

  /** store keeps the API server's copy and notifies when what a lookup answers changed (or became known). */
  private store(item: CachedObject, change: ConfigObjectChange, object: ConfigObject | undefined): void {
    if (item.stop.signal.aborted) return;
    const changed = !item.synced || version(item.object) !== version(object);
    item.object = object;
    if (!item.synced) {
      item.synced = true;
      for (const resolve of item.onSynced) resolve();
      item.onSynced.clear();
    }
    if (changed) for (const listener of [...this.listeners]) listener(change);
    // kubelet objectCache.Get: an immutable object cannot change, so its watch stops (the copy stays).
    if (object?.immutable === true) item.stop.abort();
  }
}

function key(kind: ConfigObjectKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/** version identifies an object's state: its resourceVersion, or absent. */
function version(object: ConfigObject | undefined): string {
  return object === undefined ? "" : `rv:${object.metadata.resourceVersion ?? JSON.stringify(object)}`;
}
