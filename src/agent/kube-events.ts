// EventStore: the agent's core/v1 Events. It implements the prober's EventRecorder and passes
// every event through client-go's event correlator (event-correlator.ts: repeats counted,
// similar events combined, spam dropped), as the kubelet's recorder does before the API server
// sees them, then writes them into the object store's events resource (created, or updated on
// a repeat); it keeps a bounded number of events there.
import type { Pod } from "../api/types.js";
import type { EventRecorder, EventTarget, EventType } from "../prober/event-recorder.js";
import type { Clock } from "../util/clock.js";
import type { ObjectStore } from "../apiserver/storage/object-store.js";
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";
import { EventCorrelator } from "./event-correlator.js";

/** MAX_EVENTS bounds memory: the oldest events are dropped first. */
export const MAX_EVENTS = 2000;

/** fieldPathFor renders a container's fieldPath as the kubelet does ("spec.containers{app}"). */
export function fieldPathFor(pod: Pod, containerName: string): string {
  if ((pod.spec.initContainers ?? []).some((c) => c.name === containerName)) return `spec.initContainers{${containerName}}`;
  return `spec.containers{${containerName}}`;
}

/** EVENTS_RESOURCE is the store's resource for events. */
const EVENTS_RESOURCE = "events";

/** EventStore records and aggregates events into the object store. */
export class EventStore implements EventRecorder {
  /** "<namespace>/<name>" of the stored events, insertion-ordered by last update: the first is the least recently seen. */
  private readonly recent = new Map<string, { namespace: string; name: string }>();
  private readonly correlator: EventCorrelator;
  private sequence = 0;

  constructor(
    private readonly clock: Clock,
    private readonly host: string,
    private readonly store: ObjectStore,
    /** The UID an event names for a pod's UID (a manifest pod's events name its mirror pod). */
    private readonly involvedUid: (uid: string) => string = (uid) => uid,
  ) {
    this.correlator = new EventCorrelator(clock);
  }

  event(target: EventTarget, type: EventType, reason: string, message: string): void {
    const { pod } = target;
    const fieldPath = target.containerName !== undefined ? fieldPathFor(pod, target.containerName) : undefined;
    const namespace = pod.metadata.namespace ?? "default";
    this.record(namespace, pod.metadata.name ?? "", {
      kind: "Pod",
      apiVersion: "v1",
      namespace,
      ...(pod.metadata.name !== undefined ? { name: pod.metadata.name } : {}),
      ...(pod.metadata.uid !== undefined ? { uid: this.involvedUid(pod.metadata.uid) } : {}),
      ...(fieldPath !== undefined ? { fieldPath } : {}),
    }, type, reason, message);
  }

  /**
   * nodeEvent records an event about the node itself, as the kubelet records its node's events
   * (involvedObject Node with the node's name as name and UID, in the default namespace).
   */
  nodeEvent(type: EventType, reason: string, message: string): void {
    this.record("default", this.host, { kind: "Node", name: this.host, uid: this.host }, type, reason, message);
  }

  private record(namespace: string, objectName: string, involvedObject: KubeEvent["involvedObject"], type: EventType, reason: string, message: string): void {
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
    const fresh: KubeEvent = {
      apiVersion: "v1",
      kind: "Event",
      metadata: {
        // client-go names an event "<object>.<hex nanoseconds>"; the sequence keeps names unique within a millisecond.
        name: `${objectName}.${(this.clock.now() * 1000 + this.sequence++).toString(16)}`,
        namespace,
        creationTimestamp: now,
      },
      involvedObject,
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      source: { component: "kubelet", host: this.host },
      reportingComponent: "kubelet",
      reportingInstance: this.host,
    };
    const correlated = this.correlator.correlate(fresh);
    if (correlated === undefined) return;
    const { event } = correlated;
    const name = event.metadata.name ?? "";
    const key = `${namespace}/${name}`;
    const existing = correlated.update ? this.store.get<KubeEvent>(EVENTS_RESOURCE, namespace, name) : undefined;
    this.recent.delete(key);
    this.recent.set(key, { namespace, name });
    if (existing !== undefined) {
      // An update keeps the stored event's identity (creation time); only what a patch changes moves.
      this.store.update(EVENTS_RESOURCE, { ...existing, count: event.count, lastTimestamp: event.lastTimestamp, message: event.message, involvedObject: event.involvedObject });
      return;
    }
    if (this.store.get(EVENTS_RESOURCE, namespace, name) === undefined) this.store.create(EVENTS_RESOURCE, event);
    if (this.recent.size > MAX_EVENTS) {
      const oldest = this.recent.entries().next().value;
      if (oldest !== undefined) {
        this.recent.delete(oldest[0]);
        if (this.store.get(EVENTS_RESOURCE, oldest[1].namespace, oldest[1].name) !== undefined) this.store.delete(EVENTS_RESOURCE, oldest[1].namespace, oldest[1].name);
      }
    }
  }
}
