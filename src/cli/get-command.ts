// `probelet get TYPE [NAME]`: kubectl get against the agent's API — pods, events, configmaps,
// secrets, namespaces and nodes — as a table (the server's Table when it answers one, else the
// CLI's own printer), wide, JSON, YAML, names, JSONPath or custom columns, narrowed by label and
// field selectors; with -w the table followed by one row per change until Ctrl-C or the stream ends.
import { stringify } from "yaml";
import type { KubeEvent } from "../apiserver/endpoints/host-interface.js";
import type { Pod } from "../api/types.js";
import { timestampSince } from "../apiserver/table/human-duration.js";
import { systemClock } from "../util/clock.js";
import { findResource, resourcePath, type ApiResource } from "./api-resources.js";
import { UsageError } from "./args.js";
import {
  AgentUnreachableError, CLIENT_FLAGS_HELP, CLIENT_OPTIONS, clientFromFlags, parseCommandArgs, reportClientError, selectorQuery, ServerStatusError,
  type ListSelectors, type StatusClient,
} from "./agent-client.js";
import { customColumnCells } from "./custom-columns.js";
import { since } from "../describe/describe-pod.js";
import { formatLabels, objectLabels } from "./label-column.js";
import { executeJsonPath, parseOutputFormat, type OutputFormat } from "./output-format.js";
import { formatTable, podHeaders, podRow, TABLE_MIN_WIDTH, TABLE_PADDING } from "./pod-table.js";
import type { CommandContext } from "./probe-command.js";
import { isTable, tableHeaders, tableRows, type ServedTable } from "./server-table.js";

/** GET_HELP is the text of `probelet get --help`. */
export const GET_HELP = `Usage:
  probelet get TYPE [NAME...] [-o FORMAT] [-l SELECTOR] [--field-selector SELECTOR] [--show-labels]
               [--no-headers] [-w [--output-watch-events]] [-A | -n NS]

Lists objects from a running agent, like kubectl get. TYPE is pods (pod, po), events (event, ev),
configmaps (cm), secrets, namespaces (ns) or nodes (no); TYPE/NAME works too. With -w an agent that
does not answer yet (one just started) is waited for, at most 30 s.

Flags:
  -o, --output FORMAT       wide, json, yaml, name, jsonpath=TEMPLATE, jsonpath-file=FILE,
                            custom-columns=HEADER:PATH,... or custom-columns-file=FILE (default: a table)
  -l, --selector SELECTOR   only objects whose labels match (e.g. app=web,tier!=db, env in (a,b))
      --field-selector SELECTOR
                            only objects whose fields match (e.g. status.phase=Running,
                            involvedObject.name=web for events)
      --show-labels         add a LABELS column
      --no-headers          print tables without the header row
  -w, --watch               after the table, print a row for every change until Ctrl-C
      --output-watch-events with -w: add an EVENT column (ADDED, MODIFIED, DELETED)
  -A, --all-namespaces      every namespace (adds a NAMESPACE column)
${CLIENT_FLAGS_HELP}
`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  output: { type: "string", short: "o" },
  selector: { type: "string", short: "l" },
  "field-selector": { type: "string" },
  "show-labels": { type: "boolean" },
  "no-headers": { type: "boolean" },
  watch: { type: "boolean", short: "w" },
  "output-watch-events": { type: "boolean" },
  "all-namespaces": { type: "boolean", short: "A" },
} as const;

/** Printer is the CLI's own table printer for a type, used when the server answers no Table. */
interface Printer<T> {
  headers(wide: boolean, withNamespace: boolean): string[];
  row(object: T, now: number, wide: boolean, withNamespace: boolean): string[];
}

const POD_PRINTER: Printer<Pod> = { headers: podHeaders, row: podRow };

const EVENT_PRINTER: Printer<KubeEvent> = {
  headers: (wide, withNamespace) => [
    ...(withNamespace ? ["NAMESPACE"] : []),
    ...(wide ? ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"] : ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]),
  ],
  row: (e, now, wide, withNamespace) => eventRow(e, now, wide, withNamespace),
};

/** METADATA_PRINTER is kubectl's printer for objects it has no columns for: NAME and AGE. */
const METADATA_PRINTER: Printer<{ metadata?: { name?: string; namespace?: string; creationTimestamp?: string } }> = {
  headers: (_wide, withNamespace) => [...(withNamespace ? ["NAMESPACE"] : []), "NAME", "AGE"],
  row: (o, now, _wide, withNamespace) => [...(withNamespace ? [o.metadata?.namespace ?? ""] : []), o.metadata?.name ?? "", timestampSince(o.metadata?.creationTimestamp, now)],
};

function printerFor(resource: ApiResource): Printer<unknown> {
  if (resource.plural === "pods") return POD_PRINTER as Printer<unknown>;
  if (resource.plural === "events") return EVENT_PRINTER as Printer<unknown>;
  return METADATA_PRINTER as Printer<unknown>;
}

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
  const { type, names } = typeAndNames(positionals);
  const resource = findResource(type);
  if (resource === undefined) throw new UsageError(`the server doesn't have a resource type "${type}"`);
  const selectors: ListSelectors = {};
  if (values.selector !== undefined) selectors.labelSelector = values.selector;
  if (values["field-selector"] !== undefined) selectors.fieldSelector = values["field-selector"];
  if (names.length > 0 && (selectors.labelSelector !== undefined || selectors.fieldSelector !== undefined)) {
    throw new UsageError("name cannot be provided when a selector is specified");
  }
  const format = await parseOutputFormat(values.output);
  const all = values["all-namespaces"] ?? false;
  if (all && names.length > 0) throw new UsageError("a resource cannot be retrieved by name across all namespaces");
  if (values.watch && names.length > 1) throw new UsageError(`watch is only supported on individual resources and resource collections, but ${names.length} resources were found`);
  const view: View = {
    resource, format, selectors, namespace: values.namespace ?? "default", ...(names.length === 1 ? { name: names[0]! } : {}),
    all, withNamespace: all && resource.namespaced,
    watchEvents: values["output-watch-events"] ?? false, showLabels: values["show-labels"] ?? false, noHeaders: values["no-headers"] ?? false,
  };
  try {
    if (values.watch) return await watchResource(() => clientFromFlags(values, ctx.signal), view, ctx);
    if (names.length > 1) return await printNamed(clientFromFlags(values, ctx.signal), view, names, ctx);
    return await printResource(clientFromFlags(values, ctx.signal), view, ctx);
  } catch (err) {
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}

/** typeAndNames reads `TYPE [NAME...]` or kubectl's `TYPE/NAME...` (every argument then TYPE/NAME of one type). */
function typeAndNames(positionals: readonly string[]): { type: string; names: string[] } {
  const [first, ...rest] = positionals;
  if (first === undefined) throw new UsageError("you must specify the type of resource to get: pods, events, configmaps, secrets, namespaces or nodes");
  if (!first.includes("/")) return { type: first, names: rest };
  const split = positionals.map((p) => {
    const slash = p.indexOf("/");
    if (slash < 0) throw new UsageError(`there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'probelet get resource/<resource_name>' instead of 'probelet get resource resource/<resource_name>'`);
    return { type: p.slice(0, slash), name: p.slice(slash + 1) };
  });
  if (split.some((s) => findResource(s.type) !== findResource(split[0]!.type))) throw new UsageError("get TYPE/NAME... takes names of one type");
  return { type: split[0]!.type, names: split.map((s) => s.name) };
}

/**
 * printNamed prints several named objects as kubectl does: one table (or a List), in the order
 * given; a name that is not found is reported on stderr, the others are still printed (exit 1).
 */
async function printNamed(client: StatusClient, view: View, names: readonly string[], ctx: CommandContext): Promise<number> {
  const objects: unknown[] = [];
  let table: ServedTable | undefined;
  const missing: string[] = [];
  for (const name of names) {
    try {
      const fetched = await fetchObjects(client, { ...view, name }, isTableFormat(view.format));
      objects.push(...fetched.objects);
      if (fetched.table !== undefined) table = table === undefined ? fetched.table : { ...table, rows: [...table.rows, ...fetched.table.rows] };
    } catch (err) {
      if (!(err instanceof ServerStatusError) || err.status.reason !== "NotFound") throw err;
      missing.push(err.message);
    }
  }
  const { name: _one, ...list } = view;
  if (objects.length > 0) printObjects(list, { objects, ...(table !== undefined ? { table } : {}) }, ctx);
  for (const message of missing) ctx.stderr(`${message}\n`);
  return missing.length > 0 ? 1 : 0;
}

interface View {
  resource: ApiResource;
  format: OutputFormat;
  selectors: ListSelectors;
  /** The namespace of -n (or "default"); not used with --all-namespaces. */
  namespace: string;
  name?: string;
  all: boolean;
  /** A NAMESPACE column: --all-namespaces on a namespaced resource. */
  withNamespace: boolean;
  watchEvents: boolean;
  showLabels: boolean;
  noHeaders: boolean;
}

const isTableFormat = (format: OutputFormat): boolean => format.kind === "table" || format.kind === "wide";

/** Fetched is what the server answered: a Table (for table output, when it serves them) and the objects. */
interface Fetched {
  table?: ServedTable;
  objects: unknown[];
}

/** fetchObjects GETs the named object or the selected list; events by name are found in the list (the agent serves no single event). */
async function fetchObjects(client: StatusClient, view: View, asTable: boolean): Promise<Fetched> {
  const namespace = view.all ? undefined : view.namespace;
  if (view.name !== undefined && view.resource.plural === "events") {
    const found = (await client.listEvents(view.namespace)).find((e) => e.metadata.name === view.name);
    if (found) return { objects: [found] };
    throw new ServerStatusError({ kind: "Status", reason: "NotFound", code: 404, message: `events "${view.name}" not found` });
  }
  const path = resourcePath(view.resource, view.name !== undefined ? view.namespace : namespace, view.name) + (view.name === undefined ? selectorQuery(view.selectors) : "");
  const answer = await client.getResource(path, asTable);
  if (isTable(answer)) return { table: answer, objects: answer.rows.map((r) => r.object) };
  if (view.name !== undefined) return { objects: [answer] };
  return { objects: (answer as { items?: unknown[] } | null)?.items ?? [] };
}

async function printResource(client: StatusClient, view: View, ctx: CommandContext): Promise<number> {
  printObjects(view, await fetchObjects(client, view, isTableFormat(view.format)), ctx);
  return 0;
}

/** printObjects prints what was fetched in the view's format (a named view prints its one object, not a List). */
function printObjects(view: View, { table, objects }: Fetched, ctx: CommandContext): void {
  const now = (ctx.clock ?? systemClock).now();
  const format = view.format;
  const value = view.name !== undefined ? objects[0] : { apiVersion: "v1", items: objects, kind: "List", metadata: { resourceVersion: "" } };
  if (format.kind === "json" || format.kind === "yaml") {
    ctx.stdout(formatObject(value, format.kind));
    return;
  }
  if (format.kind === "jsonpath") {
    ctx.stdout(executeJsonPath(format.path, value));
    return;
  }
  if (format.kind === "name") {
    ctx.stdout(objects.map((o) => `${view.resource.singular}/${objectName(o)}\n`).join(""));
    return;
  }
  if (objects.length === 0 && (table?.rows.length ?? 0) === 0) {
    const scoped = view.all || !view.resource.namespaced;
    ctx.stderr(scoped ? "No resources found\n" : `No resources found in ${view.namespace} namespace.\n`);
    return;
  }
  let rows: string[][];
  if (format.kind === "custom-columns") rows = [format.columns.map((c) => c.header), ...objects.map((o) => customColumnCells(format.columns, o))];
  else if (table !== undefined) {
    const tableView = { wide: format.kind === "wide", withNamespace: view.withNamespace, showLabels: view.showLabels };
    rows = [tableHeaders(table, tableView), ...tableRows(table, tableView)];
  } else rows = [headersOf(view), ...objects.map((o) => rowOf(view, o, now))];
  ctx.stdout(formatTable(view.noHeaders ? rows.slice(1) : rows));
}

/** headersOf are the CLI printer's titles for a view (LABELS last with --show-labels). */
function headersOf(view: View): string[] {
  if (view.format.kind === "custom-columns") return view.format.columns.map((c) => c.header);
  return [...printerFor(view.resource).headers(view.format.kind === "wide", view.withNamespace), ...(view.showLabels ? ["LABELS"] : [])];
}

/** rowOf is one object's cells in the CLI printer (or the custom columns). */
function rowOf(view: View, object: unknown, now: number): string[] {
  if (view.format.kind === "custom-columns") return customColumnCells(view.format.columns, object);
  const cells = printerFor(view.resource).row(object, now, view.format.kind === "wide", view.withNamespace);
  return view.showLabels ? [...cells, formatLabels(objectLabels(object))] : cells;
}

/** AGENT_WAIT_MS bounds how long `get -w` waits for an agent that does not answer yet (one just started). */
export const AGENT_WAIT_MS = 30_000;

/** AGENT_RETRY_MS is how often `get -w` tries again meanwhile. */
const AGENT_RETRY_MS = 500;

/**
 * firstList lists what a watch starts from. An agent that does not answer (nothing listens yet:
 * `npm start` still starting) is waited for, at most AGENT_WAIT_MS, with one line on stderr; each
 * try makes a new client, so credentials the starting agent writes meanwhile are read.
 */
async function firstList(newClient: () => StatusClient, view: View, ctx: CommandContext): Promise<{ client: StatusClient; listed: unknown[] }> {
  const clock = ctx.clock ?? systemClock;
  const deadline = clock.monotonic() + AGENT_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const client = newClient();
    try {
      return { client, listed: (await fetchObjects(client, view, false)).objects };
    } catch (err) {
      if (!(err instanceof AgentUnreachableError) || clock.monotonic() >= deadline || ctx.signal.aborted) throw err;
      if (attempt === 0) ctx.stderr(`Waiting for the probelet agent at ${client.server} (at most ${AGENT_WAIT_MS / 1000} s)...\n`);
      await clock.sleep(AGENT_RETRY_MS, ctx.signal);
    }
  }
}

/**
 * watchResource prints the current table, then a row per change. The watch replays every
 * current object as ADDED first: a replayed object identical to the one just listed is skipped.
 */
async function watchResource(newClient: () => StatusClient, view: View, ctx: CommandContext): Promise<number> {
  const namespace = view.all ? undefined : view.namespace;
  const clock = ctx.clock ?? systemClock;
  const format = view.format;
  const tabular = isTableFormat(format) || format.kind === "custom-columns";
  const prefix = (type: string): string[] => (view.watchEvents && tabular ? [type] : []);
  const headers = [...prefix("EVENT"), ...headersOf(view)];
  // The EVENT column is sized for its longest value from the start; later rows may still widen others.
  const seed = prefix("MODIFIED");
  const { client, listed } = await firstList(newClient, view, ctx);
  const seen = new Map(listed.map((o) => [objectName(o, true), JSON.stringify(o)]));
  let columns: Columns | undefined;
  const print = (type: string, o: unknown): void => {
    if (format.kind === "json" || format.kind === "yaml") return ctx.stdout(formatObject(o, format.kind) + (format.kind === "yaml" ? "---\n" : ""));
    if (format.kind === "jsonpath") return ctx.stdout(executeJsonPath(format.path, o));
    if (format.kind === "name") return ctx.stdout(`${view.resource.singular}/${objectName(o)}\n`);
    const row = [...prefix(type), ...rowOf(view, o, clock.now())];
    if (columns === undefined) {
      columns = new Columns([seed, headers, row]);
      if (!view.noHeaders) ctx.stdout(columns.format([headers]));
    }
    ctx.stdout(columns.format([row]));
  };
  if (listed.length > 0 && tabular) {
    const rows = listed.map((o) => [...prefix("ADDED"), ...rowOf(view, o, clock.now())]);
    columns = new Columns([seed, headers, ...rows]);
    ctx.stdout(columns.format(view.noHeaders ? rows : [headers, ...rows]));
  } else for (const o of listed) print("ADDED", o);
  const path = resourcePath(view.resource, namespace) + selectorQuery(view.selectors, { watch: "true" });
  try {
    for await (const event of client.watchResource<unknown>(path)) {
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

/** Columns pads rows to widths fixed by the first rows seen (widening when a cell is longer), as formatTable does. */
class Columns {
  private readonly widths: number[] = [];
  constructor(rows: readonly (readonly string[])[]) {
    for (const row of rows) this.widen(row);
  }

  format(rows: readonly (readonly string[])[]): string {
    return rows.map((row) => {
      this.widen(row);
      return row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(this.widths[i] ?? TABLE_MIN_WIDTH))).join("") + "\n";
    }).join("");
  }

  private widen(row: readonly string[]): void {
    row.forEach((cell, i) => (this.widths[i] = Math.max(this.widths[i] ?? TABLE_MIN_WIDTH, cell.length + TABLE_PADDING)));
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
