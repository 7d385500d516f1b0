// The API server's part that runs in the agent's process: the object store (every resource
// registered, the initial namespaces made) and the controllers that act on it, here the
// namespace controller (pkg/controller/namespace). The composer (`probelet run`) builds it and
// hands the store to the agent, as the kubelet is handed its clients: the node runs against the
// API server, it does not make one.
import { systemClock, type Clock } from "../util/clock.js";
import { newApiStore } from "./resources/registry.js";
import { startNamespaceController } from "./rest/namespace-controller.js";
import { ObjectStore } from "./storage/object-store.js";

/** LocalApiServer is the object store with its controllers running. */
export interface LocalApiServer {
  /** The Kubernetes API's objects: pods, events, namespaces, configmaps, secrets, the node. */
  readonly store: ObjectStore;
  /** stop stops the controllers; the store stays readable. */
  stop(): void;
}

/**
 * startLocalApiServer makes the API store (in `store`, when given one, e.g. with a fixed clock)
 * and starts its namespace controller on `clock`.
 */
export function startLocalApiServer(clock: Clock = systemClock, store: ObjectStore = new ObjectStore()): LocalApiServer {
  const api = newApiStore(store);
  const stop = startNamespaceController(api, clock);
  return { store: api, stop };
}
