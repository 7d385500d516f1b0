// EventStore: the agent's core/v1 Events. It implements the prober's EventRecorder and passes
// every event through client-go's event correlator (event-correlator.ts: repeats counted,
// similar events combined, spam dropped), as the kubelet's recorder does before the API server
// sees them; it keeps a bounded number of events.
import type { Pod } from "../api/types.js";
import type { EventRecorder, EventTarget, EventType } from "../prober/events.js";
import type { Clock } from "../util/clock.js";
import type { KubeEvent, WatchEvent } from "./agent-api.js";
import { EventCorrelator } from "./event-correlator.js";

/** MAX_EVENTS bounds memory: the oldest events are dropped first. */
export const MAX_EVENTS = 2000;

/** fieldPathFor renders a container's fieldPath as the kubelet does ("spec.containers{app}"). */
export function fieldPathFor(pod: Pod, containerName: string): string {
  if ((pod.spec.initContainers ?? []).some((c) => c.name === containerName)) return `spec.initContainers{${containerName}}`;
  return `spec.containers{${containerName}}`;
}

/** EventStore records, aggregates and serves events. */
export class EventStore implements EventRecorder {
  /** By name, insertion-ordered by last update: the first entry is the least recently seen. */
  private readonly events = new Map<string, KubeEvent>();
  private readonly correlator: EventCorrelator;
  private readonly listeners = new Set<(e: WatchEvent<KubeEvent>) => void>();
  private sequence = 0;

  constructor(
    private readonly clock: Clock,
    private readonly host: string,
  ) {
    this.correlator = new EventCorrelator(clock);
  }

  event(target: EventTarget, type: EventType, reason: string, message: string): void {
    const { pod } = target;
    const fieldPath = target.containerName !== undefined ? fieldPathFor(pod, target.containerName) : undefined;
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
    const namespace = pod.metadata.namespace ?? "default";
    const fresh: KubeEvent = {
      apiVersion: "v1",
      kind: "Event",
      metadata: {
        // client-go names an event "<object>.<hex nanoseconds>"; the sequence keeps names unique within a millisecond.
        name: `${pod.metadata.name ?? ""}.${(this.clock.now() * 1000 + this.sequence++).toString(16)}`,
        namespace,
        creationTimestamp: now,
      },
      involvedObject: {
        kind: "Pod",
        apiVersion: "v1",
        namespace,
        ...(pod.metadata.name !== undefined ? { name: pod.metadata.name } : {}),
        ...(pod.metadata.uid !== undefined ? { uid: pod.metadata.uid } : {}),
        ...(fieldPath !== undefined ? { fieldPath } : {}),
      },
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
    const existing = correlated.update ? this.events.get(name) : undefined;
    // An update keeps the stored event's identity (creation time); only what a patch changes moves.
    const stored: KubeEvent = existing === undefined ? event : { ...existing, count: event.count, lastTimestamp: event.lastTimestamp, message: event.message, involvedObject: event.involvedObject };
    this.events.delete(name);
    this.events.set(name, stored);
    if (existing === undefined && this.events.size > MAX_EVENTS) {
      const oldest = this.events.keys().next().value;
      if (oldest !== undefined) this.events.delete(oldest);
    }
    this.notify({ type: existing === undefined ? "ADDED" : "MODIFIED", object: stored });
  }

  /** list returns events sorted by lastTimestamp, optionally for one namespace and involved object name. */
  list(namespace?: string, involvedName?: string): KubeEvent[] {
    return [...this.events.values()]
      .filter((e) => (namespace === undefined || e.metadata.namespace === namespace) && (involvedName === undefined || e.involvedObject.name === involvedName))
      .sort((a, b) => (a.lastTimestamp < b.lastTimestamp ? -1 : a.lastTimestamp > b.lastTimestamp ? 1 : 0));
  }

  /** forgetPod drops the events of a pod UID (called when a pod is gone for good). */
  forgetPod(uid: string): void {
    for (const [name, e] of this.events) if (e.involvedObject.uid === uid) this.events.delete(name);
  }

  /** watch registers a listener for new and updated events; returns an unsubscribe function. */
  watch(listener: (e: WatchEvent<KubeEvent>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(e: WatchEvent<KubeEvent>): void {
    for (const listener of this.listeners) listener(e);
  }
}
