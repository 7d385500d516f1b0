// The event Table columns (printers.go eventColumnDefinitions + printEvent): Last Seen, Type,
// Reason, Object, Message, and at priority 1 Subobject, Source, First Seen, Count, Name.
import type { ObjectMeta } from "../../api/types.js";
import { NAME_DOC } from "./column-docs.js";
import { timestampSince } from "./human-duration.js";
import { column, type ResourcePrinter } from "./resource-printer.js";

/** ServedEvent is a core/v1 Event with the fields printEvent reads. */
export interface ServedEvent {
  metadata: ObjectMeta;
  involvedObject?: { kind?: string; name?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
}

/** eventSource is formatEventSource: component (or reporting controller), then ", host" (or reporting instance) when known. */
function eventSource(event: ServedEvent): string {
  const component = event.source?.component || event.reportingComponent || "";
  const instance = event.source?.host || event.reportingInstance || "";
  return instance === "" ? component : `${component}, ${instance}`;
}

/** EVENT_PRINTER prints events as printEvent does: series and missing timestamps fall back as upstream. */
export const EVENT_PRINTER: ResourcePrinter<ServedEvent> = {
  kind: "Event",
  columns: [
    column("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    column("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    column("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column("Object", "string", "The object that this event is about."),
    column("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.", 1),
    column("Source", "string", "The component reporting this event. Should be a short machine understandable string.", 1),
    column("Message", "string", "A human-readable description of the status of this operation."),
    column("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
    column("Count", "string", "The number of times this event has occurred.", 1),
    column("Name", "string", NAME_DOC, 1, "name"),
  ],
  row: (event, now) => {
    const firstSeen = event.firstTimestamp ? timestampSince(event.firstTimestamp, now) : timestampSince(event.eventTime, now);
    let lastSeen = event.lastTimestamp ? timestampSince(event.lastTimestamp, now) : firstSeen;
    let count = event.count ?? 0;
    if (event.series) {
      lastSeen = timestampSince(event.series.lastObservedTime, now);
      count = event.series.count ?? 0;
    } else if (count === 0) {
      count = 1; // singleton events of the events.k8s.io API carry no count
    }
    const kind = (event.involvedObject?.kind ?? "").toLowerCase();
    const name = event.involvedObject?.name ?? "";
    return {
      cells: [
        lastSeen,
        event.type ?? "",
        event.reason ?? "",
        name === "" ? kind : `${kind}/${name}`,
        event.involvedObject?.fieldPath ?? "",
        eventSource(event),
        (event.message ?? "").trim(),
        firstSeen,
        count,
        event.metadata.name ?? "",
      ],
    };
  },
};
