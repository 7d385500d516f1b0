// The resources the agent serves, one definition each, and the store they live in: the
// registry is what discovery lists and what the REST routes are built from.
import { ObjectStore } from "../storage/object-store.js";
import { CONFIG_MAPS } from "./configmaps.js";
import { EVENTS } from "./events.js";
import { INITIAL_NAMESPACES, NAMESPACES, newNamespace } from "./namespaces.js";
import { NODES } from "./nodes.js";
import { PODS } from "./pods.js";
import type { ResourceDefinition } from "./resource-definition.js";
import { SECRETS } from "./secrets.js";

/** RESOURCES are every served core/v1 resource, in discovery's order. */
export const RESOURCES: readonly ResourceDefinition[] = [CONFIG_MAPS, EVENTS, NAMESPACES, NODES, PODS, SECRETS];

/** findResource returns a resource by its plural name. */
export function findResource(name: string): ResourceDefinition | undefined {
  return RESOURCES.find((r) => r.name === name);
}

/** newApiStore makes an ObjectStore with every resource registered and the initial namespaces created. */
export function newApiStore(store = new ObjectStore()): ObjectStore {
  for (const resource of RESOURCES) store.register(resource.name, { namespaced: resource.namespaced });
  for (const name of INITIAL_NAMESPACES) {
    if (store.get(NAMESPACES.name, undefined, name) === undefined) store.create(NAMESPACES.name, newNamespace(name));
  }
  return store;
}
