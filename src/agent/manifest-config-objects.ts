// ConfigMaps and Secrets from manifest files in the agent's object store. Each file (source) owns
// the objects it loaded: loading it again creates, updates or deletes them so the store holds
// what the file holds now, and a vanished file's objects go. An object of the same name that the
// API created (or another file loaded) is left alone and the manifest's is refused, as a static
// pod is refused when an API pod has its name. Pods that read a changed object are synced
// through the store's change notification (storeConfigObjects).
import { sameJson } from "../apiserver/resources/canonical-json.js";
import { CONFIG_MAPS } from "../apiserver/resources/configmaps.js";
import { SECRETS } from "../apiserver/resources/secrets.js";
import type { KubeObject, ObjectStore } from "../apiserver/storage/object-store.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import { formatFieldErrors } from "../api/field-errors.js";
import type { ObjectRef } from "./manifest-objects.js";
import { ensureNamespace } from "./pod-store-sync.js";

const RESOURCE_OF_KIND: Readonly<Record<string, typeof CONFIG_MAPS>> = { ConfigMap: CONFIG_MAPS, Secret: SECRETS };

/** ManifestConfigObjects tracks which manifest source owns which ConfigMap or Secret in the store. */
export class ManifestConfigObjects {
  /** Owner source by `resource/namespace/name`; only objects a manifest loaded are here. */
  private readonly owners = new Map<string, string>();

  constructor(private readonly store: ObjectStore) {}

  /**
   * put makes the store hold `objects` for `source`: new ones are created, changed ones updated,
   * the source's others deleted, except those in `keep` (refused this time, so the earlier
   * version stays). Returns the errors, one line each, naming the object.
   */
  put(source: string, objects: readonly KubeObject[], keep: readonly ObjectRef[] = []): string[] {
    const errors: string[] = [];
    const kept = new Set(keep.map((ref) => keyOf(ref.resource, ref.namespace, ref.name)));
    for (const object of objects) {
      const resource = RESOURCE_OF_KIND[object.kind ?? ""];
      if (resource === undefined) continue;
      const namespace = object.metadata.namespace ?? "default";
      const name = object.metadata.name ?? "";
      const key = keyOf(resource.name, namespace, name);
      const owner = this.owners.get(key);
      const current = this.store.get(resource.name, namespace, name);
      if (current !== undefined && owner !== source) {
        errors.push(`${resource.name} "${name}" already exists (from ${owner ?? "api"})`);
        continue;
      }
      kept.add(key);
      try {
        if (current === undefined) {
          ensureNamespace(this.store, namespace);
          this.store.create(resource.name, object);
        } else if (!sameJson(contentOf(current), contentOf(object))) {
          // An update as the API's: an immutable object keeps its data.
          const refused = resource.strategy.validateUpdate(object, current);
          if (refused.length > 0) {
            errors.push(`${resource.kind} "${name}" is invalid:`, ...formatFieldErrors(refused).map((e) => `  * ${e}`));
            continue;
          }
          this.store.update(resource.name, { ...object, metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion ?? "" } });
        }
        this.owners.set(key, source);
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
        errors.push(err.message);
      }
    }
    for (const [key, owner] of [...this.owners]) {
      if (owner !== source || kept.has(key)) continue;
      this.owners.delete(key);
      const [resource = "", namespace = "", name = ""] = key.split("/");
      try {
        this.store.delete(resource, namespace, name);
      } catch (err) {
        if (!(err instanceof StoreError)) throw err;
      }
    }
    return errors;
  }

  /** loadedFromManifest reports whether a manifest loaded this object (it is not saved with the API's objects). */
  loadedFromManifest(resource: string, namespace: string, name: string): boolean {
    return this.owners.has(keyOf(resource, namespace, name));
  }
}

function keyOf(resource: string, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

/** contentOf is what a manifest says of an object: everything but the server's metadata. */
function contentOf(object: KubeObject): unknown {
  const { metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return { ...rest, labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} };
}
