// Events the prober records against a pod's container (kubelet pkg/kubelet/events).
import type { Pod } from "../api/types.js";

/** EventType is a Kubernetes event type. */
export type EventType = "Normal" | "Warning";

/** Event reasons the kubelet uses for probes and container lifecycle. */
export const EventReason = {
  Unhealthy: "Unhealthy",
  ProbeWarning: "ProbeWarning",
  Killing: "Killing",
  Created: "Created",
  Started: "Started",
  BackOff: "BackOff",
  Failed: "Failed",
} as const;

/** EventTarget names what an event is about: a pod and, optionally, one of its containers. */
export interface EventTarget {
  pod: Pod;
  /** Container name; the event's involvedObject.fieldPath derives from it. */
  containerName?: string;
}

/** EventRecorder receives events (kubelet record.EventRecorder). */
export interface EventRecorder {
  event(target: EventTarget, type: EventType, reason: string, message: string): void;
}

/** RecordedEvent is one event as captured by MemoryEventRecorder. */
export interface RecordedEvent {
  target: EventTarget;
  type: EventType;
  reason: string;
  message: string;
}

/** MemoryEventRecorder keeps events in memory (useful for tests and one-shot tools). */
export class MemoryEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  event(target: EventTarget, type: EventType, reason: string, message: string): void {
    this.events.push({ target, type, reason, message });
  }

  /** strings renders events like the kubelet's FakeRecorder: "<type> <reason> <message>". */
  strings(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
  }
}

/** noopEventRecorder drops every event. */
export const noopEventRecorder: EventRecorder = { event: () => undefined };
