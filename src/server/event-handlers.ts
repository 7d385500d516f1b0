// The event resource: GET /api/v1/events and /api/v1/namespaces/{ns}/events, as a list or
// (with ?watch) a watch, narrowed by the path's namespace and a field selector such as kubectl
// describe's `fieldSelector=involvedObject.name=web,involvedObject.namespace=default,involvedObject.uid=…`.
import type { KubeEvent, WatchEvent } from "../agent/agent-api.js";
import { parseFieldSelector, queryBool, type SelectorTerm } from "./query.js";
import { sendJson } from "./respond.js";
import type { RequestContext } from "./routes.js";
import { serveWatch } from "./watch-stream.js";

// The event fields the API server accepts in field selectors (pkg/registry/core/event ToSelectableFields).
const FIELD_GETTERS: Readonly<Record<string, (e: KubeEvent) => string>> = {
  "metadata.name": (e) => e.metadata.name ?? "",
  "metadata.namespace": (e) => e.metadata.namespace ?? "",
  "involvedObject.kind": (e) => e.involvedObject.kind,
  "involvedObject.namespace": (e) => e.involvedObject.namespace ?? "",
  "involvedObject.name": (e) => e.involvedObject.name ?? "",
  "involvedObject.uid": (e) => e.involvedObject.uid ?? "",
  "involvedObject.apiVersion": (e) => e.involvedObject.apiVersion ?? "",
  "involvedObject.fieldPath": (e) => e.involvedObject.fieldPath ?? "",
  reason: (e) => e.reason,
  reportingComponent: (e) => e.reportingComponent,
  source: (e) => e.source.component,
  type: (e) => e.type,
};

const SUPPORTED = new Set(Object.keys(FIELD_GETTERS));

/** EventFilter selects events; involvedName, when set, lets the agent narrow its own lookup. */
export interface EventFilter {
  namespace?: string;
  involvedName?: string;
  matches(event: KubeEvent): boolean;
}

/** eventFilter builds the filter of a request; a bad selector throws a 400 StatusError. */
export function eventFilter(namespace: string | undefined, fieldSelector: string | null): EventFilter {
  const terms = parseFieldSelector(fieldSelector ?? "", SUPPORTED);
  const nameTerm = terms.find((t) => t.field === "involvedObject.name" && !t.negated);
  const filter: EventFilter = {
    matches: (event) =>
      (namespace === undefined || (event.metadata.namespace ?? "default") === namespace) && terms.every((t) => termMatches(t, event)),
  };
  if (namespace !== undefined) filter.namespace = namespace;
  if (nameTerm !== undefined) filter.involvedName = nameTerm.value;
  return filter;
}

function termMatches(term: SelectorTerm, event: KubeEvent): boolean {
  const getter = FIELD_GETTERS[term.field];
  const equal = getter !== undefined && getter(event) === term.value;
  return term.negated ? !equal : equal;
}

/** EventList is core/v1 EventList as the list routes render it. */
export interface EventList {
  kind: "EventList";
  apiVersion: "v1";
  metadata: Record<string, never>;
  items: KubeEvent[];
}

/** listEvents serves the event list routes, or a watch on them with ?watch. */
export function listEvents(ctx: RequestContext): Promise<void> | void {
  const filter = eventFilter(ctx.params["ns"], ctx.query.get("fieldSelector"));
  const list = (): KubeEvent[] => ctx.api.listEvents(filter.namespace, filter.involvedName).filter((e) => filter.matches(e));
  if (queryBool(ctx.query, "watch")) {
    return serveWatch(ctx.res, ctx.streams.start(ctx.res), {
      list,
      subscribe: (listener: (event: WatchEvent<KubeEvent>) => void) => ctx.api.watchEvents(listener),
      matches: (event) => filter.matches(event),
      render: (event) => event,
    }, ctx.logger);
  }
  const body: EventList = { kind: "EventList", apiVersion: "v1", metadata: {}, items: list() };
  sendJson(ctx.res, 200, body);
}
