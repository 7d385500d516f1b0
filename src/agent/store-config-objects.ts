// ConfigObjects over the agent's object store (src/apiserver/storage/object-store.ts): lookups
// read the stored ConfigMaps and Secrets, and every change the store commits to either resource
// is a change notification. Wiring the store into the agent is then
// `new Agent({ …, configObjects: storeConfigObjects(store) })`.
import type { ConfigMap, Secret } from "../api/types.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import type { ConfigObjectChange, ConfigObjectKind, ConfigObjects } from "../volumes/config-objects.js";

/** CONFIG_OBJECT_RESOURCES are the store's resource names for the two kinds. */
export const CONFIG_OBJECT_RESOURCES: Readonly<Record<ConfigObjectKind, string>> = { ConfigMap: "configmaps", Secret: "secrets" };

/**
 * storeConfigObjects reads ConfigMaps and Secrets from `store`, registering both (namespaced)
 * resources if the store does not have them yet (registration is idempotent).
 */
export function storeConfigObjects(store: ObjectStore): ConfigObjects {
  for (const resource of Object.values(CONFIG_OBJECT_RESOURCES)) store.register(resource, { namespaced: true });
  return {
    configMap: (namespace, name) => store.get<ConfigMap>(CONFIG_OBJECT_RESOURCES.ConfigMap, namespace, name),
    secret: (namespace, name) => store.get<Secret>(CONFIG_OBJECT_RESOURCES.Secret, namespace, name),
    onChange(listener: (change: ConfigObjectChange) => void): () => void {
      const from = Number(store.resourceVersion);
      const stops = (Object.entries(CONFIG_OBJECT_RESOURCES) as [ConfigObjectKind, string][]).map(([kind, resource]) =>
        store.watch(resource, from > 0 ? { fromResourceVersion: from } : {}, (event) =>
          listener({ kind, namespace: event.object.metadata.namespace ?? "default", name: event.object.metadata.name ?? "" }),
        ),
      );
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}
