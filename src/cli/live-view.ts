// The live view of `probelet run` and the watch output of `probelet get pods -w`: one line per
// pod change (a pod row), one per event (like `kubectl get events -w`), and the agent's own log
// lines in the same style, so the view reads as one stream.
import type { KubeEvent, WatchEvent } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { errorReplacer, type LogRecord } from "../util/logger.js";
import { podRow } from "./pod-table.js";

/** formatPodLine renders a pod watch event as a `get pods` row prefixed by the change type. */
export function formatPodLine(e: WatchEvent<Pod>, now: number): string {
  const [name, ready, status, restarts, age] = podRow(e.object, now);
  const ns = e.object.metadata.namespace ?? "default";
  const what = e.type === "DELETED" ? "Deleted" : status;
  return `pod  ${ns}/${name}  ${ready}  ${what}  restarts=${restarts}  age=${age}\n`;
}

/** formatEventLine renders an event like `kubectl get events`: TYPE REASON OBJECT MESSAGE (count). */
export function formatEventLine(e: WatchEvent<KubeEvent>): string {
  const ev = e.object;
  const obj = `${ev.involvedObject.kind.toLowerCase()}/${ev.involvedObject.name ?? ""}`;
  const field = ev.involvedObject.fieldPath ? ` ${ev.involvedObject.fieldPath}` : "";
  const count = ev.count > 1 ? ` (x${ev.count})` : "";
  return `event  ${ev.type}  ${ev.reason}  ${obj}${field}  ${ev.message}${count}\n`;
}

/**
 * formatLogLine renders an agent log record as a line of the live view:
 * `log  warn  agent.runtime  Process pods share the host's network  reason="…"` (a field's value
 * as JSON unless it is a plain word or number).
 */
export function formatLogLine(record: LogRecord): string {
  const fields = Object.entries(record.fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "number" || (typeof v === "string" && /^[\w./:@-]+$/.test(v)) ? String(v) : JSON.stringify(v, errorReplacer)}`);
  return `log  ${record.level}  ${record.sub ?? "agent"}  ${record.msg}${fields.length > 0 ? `  ${fields.join(" ")}` : ""}\n`;
}
