// `probelet get pods|events [NAME]`: kubectl get against the agent's status API, as a table
// (wide, all namespaces), JSON, YAML or names, and with -w the table followed by one row per
// change from the watch stream until Ctrl-C or the stream ends.
import { stringify } from "yaml";
import type { KubeEvent, WatchEvent } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { systemClock } from "../util/clock.js";
import { UsageError } from "./args.js";
import {
  CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, ServerStatusError, type StatusClient,
} from "./client.js";
import { since } from "./describe-pod.js";
import { formatTable, podHeaders, podRow } from "./pod-table.js";
import type { CommandContext } from "./probe-command.js";

/** GET_HELP is the text of `probelet get --help`. */
export const GET_HELP = `Usage:
  probelet get pods [NAME] [-o wide|json|yaml|name] [-w [--output-watch-events]] [-A | -n NS]
  probelet get events [NAME] [-o wide|json|yaml|name] [-w] [-A | -n NS]

Lists pods (aliases: pod, po) or events (event, ev) from a running agent, like kubectl get.

Flags:
  -o, --output FORMAT       wide, json, yaml or name (default: a table)
  -w, --watch               after the table, print a row for every change until Ctrl-C
      --output-watch-events with -w: add an EVENT column (ADDED, MODIFIED, DELETED)
  -A, --all-namespaces      every namespace (adds a NAMESPACE column)
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  output: { type: "string", short: "o" },
  watch: { type: "boolean", short: "w" },
  "output-watch-events": { type: "boolean" },
  "all-namespaces": { type: "boolean", short: "A" },
} as const;

type Output = "table" | "wide" | "json" | "yaml" | "name";

/** Resource is what `get` needs to know about one kind of object. */
interface Resource<T> {
  /** e.g. "pods", used in texts such as `pods "x" not found`. */
  plural: string;
  /** e.g. "pod", used in `-o name` output (`pod/web`). */
  singular: string;
  list(client: StatusClient, namespace: string | undefined): Promise<T[]>;
  get(client: StatusClient, namespace: string, name: string): Promise<T>;
  watch(client: StatusClient, namespace: string | undefined): AsyncIterable<WatchEvent<T>>;
  headers(wide: boolean, withNamespace: boolean): string[];
  row(object: T, now: number, wide: boolean, withNamespace: boolean): string[];
}

const PODS: Resource<Pod> = {
  plural: "pods",
  singular: "pod",
  list: (client, ns) => client.listPods(ns),
  get: (client, ns, name) => client.getPod(ns, name),
  watch: (client, ns) => client.watchPods(ns),
  headers: podHeaders,
  row: podRow,
};

const EVENTS: Resource<KubeEvent> = {
  plural: "events",
  singular: "event",
  list: (client, ns) => client.listEvents(ns),
  get: async (client, ns, name) => {
    const found = (await client.listEvents(ns)).find((e) => e.metadata.name === name);
    if (found) return found;
    throw new ServerStatusError({ kind: "Status", reason: "NotFound", code: 404, message: `events "${name}" not found` });
  },
  watch: (client, ns) => client.watchEvents(ns),
  headers: (wide, withNamespace) => [
    ...(withNamespace ? ["NAMESPACE"] : []),
    ...(wide ? ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"] : ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]),
  ],
  row: eventRow,
};

/** eventRow is one `get events` row as kubectl's printEvent builds it. */
export function eventRow(e: KubeEvent, now: number, wide = false, withNamespace = false): string[] {
  // kubectl printEvent: LAST SEEN is the last timestamp's age, or the first's when there is none.
  const last = since(e.lastTimestamp || e.firstTimestamp, now);
  const kind = e.involvedObject.kind.toLowerCase();
  const object = e.involvedObject.name ? `${kind}/${e.involvedObject.name}` : kind;
  const ns = withNamespace ? [e.metadata.namespace ?? ""] : [];
  if (!wide) return [...ns, last, e.type, e.reason, object, e.message.trim()];
  const source = [e.source.component, ...(e.source.host ? [e.source.host] : [])].join(", ");
  return [...ns, last, e.type, e.reason, object, e.involvedObject.fieldPath ?? "", source, e.message.trim(), since(e.firstTimestamp, now), String(Math.max(1, e.count)), e.metadata.name ?? ""];
}

/** runGetCommand runs `probelet get ARGS…` and resolves with the exit code. */
export async function runGetCommand(argv: readonly string[], ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS);
  if (values.help) {
    ctx.stdout(GET_HELP);
    return 0;
  }
  // kubectl also accepts TYPE/NAME ("pod/web").
  const [first, ...others] = positionals;
  const [type, name, ...extra] = first?.includes("/") ? [first.slice(0, first.indexOf("/")), first.slice(first.indexOf("/") + 1), ...others] : positionals;
  if (type === undefined) throw new UsageError("you must specify the type of resource to get: pods or events");
  const resource: Resource<Pod> | Resource<KubeEvent> | undefined = ["pods", "pod", "po"].includes(type) ? PODS : ["events", "event", "ev"].includes(type) ? EVENTS : undefined;
  if (resource === undefined) throw new UsageError(`the server doesn't have a resource type "${type}"`);
  if (extra.length > 0) throw new UsageError(`get takes at most one NAME, got ${[name, ...extra].join(", ")}`);
  const output = parseOutput(values.output);
  const all = values["all-namespaces"] ?? false;
  if (all && name !== undefined) throw new UsageError("a resource cannot be retrieved by name across all namespaces");
  const client = clientFromFlags(values, ctx.signal);
  const view: View = { output, all, namespace: values.namespace ?? "default", ...(name !== undefined ? { name } : {}), watchEvents: values["output-watch-events"] ?? false };
  try {
    if (values.watch) return await watchResource(resource as Resource<unknown>, client, view, ctx);
    return await printResource(resource as Resource<unknown>, client, view, ctx);
  } catch (err) {
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}

interface View {
  output: Output;
  all: boolean;
  namespace: string;
  name?: string;
  watchEvents: boolean;
}

function parseOutput(value: string | undefined): Output {
  if (value === undefined) return "table";
  if (value === "wide" || value === "json" || value === "yaml" || value === "name") return value;
  throw new UsageError(`unable to match a printer suitable for the output format "${value}", allowed formats are: json,name,wide,yaml`);
}

async function printResource<T>(resource: Resource<T>, client: StatusClient, view: View, ctx: CommandContext): Promise<number> {
  const ns = view.all ? undefined : view.namespace;
  const objects = view.name !== undefined ? [await resource.get(client, view.namespace, view.name)] : await resource.list(client, ns);
  const now = (ctx.clock ?? systemClock).now();
  if (view.output === "json" || view.output === "yaml") {
    const value = view.name !== undefined ? objects[0] : { apiVersion: "v1", items: objects, kind: "List", metadata: { resourceVersion: "" } };
    ctx.stdout(formatObject(value, view.output));
    return 0;
  }
  if (view.output === "name") {
    ctx.stdout(objects.map((o) => `${resource.singular}/${objectName(o)}\n`).join(""));
    return 0;
  }
  if (objects.length === 0) {
    ctx.stderr(view.all ? "No resources found\n" : `No resources found in ${view.namespace} namespace.\n`);
    return 0;
  }
  const wide = view.output === "wide";
  const rows = [resource.headers(wide, view.all), ...objects.map((o) => resource.row(o, now, wide, view.all))];
  ctx.stdout(formatTable(rows));
  return 0;
}

/**
 * watchResource prints the current table, then a row per change. The watch replays every
 * current object as ADDED first: a replayed object identical to the one just listed is skipped.
 */
async function watchResource<T>(resource: Resource<T>, client: StatusClient, view: View, ctx: CommandContext): Promise<number> {
  const ns = view.all ? undefined : view.namespace;
  const clock = ctx.clock ?? systemClock;
  const wide = view.output === "wide";
  const prefix = (type: string): string[] => (view.watchEvents && (view.output === "table" || wide) ? [type] : []);
  const headers = [...prefix("EVENT"), ...resource.headers(wide, view.all)];
  // The EVENT column is sized for its longest value from the start; later rows may still widen others.
  const seed = prefix("MODIFIED");
  const listed = view.name !== undefined ? [await resource.get(client, view.namespace, view.name)] : await resource.list(client, ns);
  const seen = new Map(listed.map((o) => [objectName(o, true), JSON.stringify(o)]));
  let columns: Columns | undefined;
  const print = (type: string, o: T): void => {
    if (view.output === "json" || view.output === "yaml") return ctx.stdout(formatObject(o, view.output) + (view.output === "yaml" ? "---\n" : ""));
    if (view.output === "name") return ctx.stdout(`${resource.singular}/${objectName(o)}\n`);
    const row = [...prefix(type), ...resource.row(o, clock.now(), wide, view.all)];
    if (columns === undefined) {
      columns = new Columns([seed, headers, row]);
      ctx.stdout(columns.format([headers]));
    }
    ctx.stdout(columns.format([row]));
  };
  if (listed.length > 0 && (view.output === "table" || wide)) {
    const rows = listed.map((o) => [...prefix("ADDED"), ...resource.row(o, clock.now(), wide, view.all)]);
    columns = new Columns([seed, headers, ...rows]);
    ctx.stdout(columns.format([headers, ...rows]));
  } else for (const o of listed) print("ADDED", o);
  try {
    for await (const event of resource.watch(client, ns)) {
      const key = objectName(event.object, true);
      if (view.name !== undefined && objectName(event.object) !== view.name) continue;
      const text = JSON.stringify(event.object);
      if (event.type === "ADDED" && seen.get(key) === text) continue;
      seen.delete(key);
      print(event.type, event.object);
    }
  } catch (err) {
    if (!ctx.signal.aborted) throw err;
  }
  return 0;
}

/** Columns pads rows to widths fixed by the first rows seen (widening when a cell is longer), 3 spaces apart like kubectl. */
class Columns {
  private readonly widths: number[] = [];
  constructor(rows: readonly (readonly string[])[]) {
    for (const row of rows) this.widen(row);
  }

  format(rows: readonly (readonly string[])[]): string {
    return rows.map((row) => {
      this.widen(row);
      return row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd((this.widths[i] ?? 0) + 3))).join("") + "\n";
    }).join("");
  }

  private widen(row: readonly string[]): void {
    row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i] ?? 0, cell.length)));
  }
}

function objectName(o: unknown, qualified = false): string {
  const meta = (o as { metadata?: { name?: string; namespace?: string } }).metadata ?? {};
  return qualified ? `${meta.namespace ?? ""}/${meta.name ?? ""}` : (meta.name ?? "");
}

/** formatObject prints an object as kubectl does: keys sorted, JSON indented by 4, YAML with unindented sequences. */
export function formatObject(value: unknown, format: "json" | "yaml"): string {
  const sorted = sortKeys(value);
  return format === "json" ? `${JSON.stringify(sorted, null, 4)}\n` : stringify(sorted, { indentSeq: false });
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]));
}
