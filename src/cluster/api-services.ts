// The cluster's services as the kubelet's service informer keeps them (kubelet.go NewMainKubelet:
// a reflector on every namespace's services, serviceHasSynced after its first list), read by the
// containers' service environment variables (src/agent/service-env.ts). One list and watch of
// /api/v1/services, which the Node authorizer allows a node.
import type { ServiceObject, ServiceSource } from "../agent/service-env.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { RestClient } from "../client/rest-client.js";
import { Reflector } from "./reflector.js";

/** A listed service, with the resourceVersion the reflector tracks. */
type ListedService = ServiceObject & { metadata: { resourceVersion?: string; uid?: string } };

/** ApiServicesOptions configure ApiServices. */
export interface ApiServicesOptions {
  client: RestClient;
  clock: Clock;
  logger: Logger;
  random?: () => number;
}

/** ApiServices is the node's copy of the cluster's services. */
export class ApiServices implements ServiceSource {
  private items: Map<string, ServiceObject> | undefined;
  private readonly stop = new AbortController();
  private run: Promise<void> | undefined;

  constructor(private readonly options: ApiServicesOptions) {}

  /** start lists and watches until close(). */
  start(): void {
    const { client, clock, logger, random } = this.options;
    const key = (s: ServiceObject): string => `${s.metadata.namespace ?? ""}/${s.metadata.name ?? ""}`;
    const reflector = new Reflector<ListedService>({
      client, clock, logger,
      ...(random !== undefined ? { random } : {}),
      path: "/api/v1/services",
      what: "*v1.Service",
      replace: (objects) => (this.items = new Map(objects.map((s) => [key(s), s]))),
      apply: (type, object) => {
        this.items ??= new Map();
        if (type === "DELETED") this.items.delete(key(object));
        else this.items.set(key(object), object);
      },
    });
    this.run = reflector.run(this.stop.signal);
  }

  /** services are the services known now, or undefined before the first list arrived. */
  services(): readonly ServiceObject[] | undefined {
    return this.items === undefined ? undefined : [...this.items.values()];
  }

  /** close stops the watch and waits for it to end. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.run;
  }
}
