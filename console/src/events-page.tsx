// The Events page: the agent's events, newest first, filtered by type, namespace, object and text.
import { useMemo, useState } from "preact/hooks";
import { eventTimeMs, podPath, type KubeEvent } from "./model";
import { Age } from "./time-text";

/** EventsPage lists events from the shared watch. */
export function EventsPage(props: { events: readonly KubeEvent[]; now: number }) {
  const [type, setType] = useState("");
  const [text, setText] = useState("");
  const shown = useMemo(() => {
    const needle = text.toLowerCase();
    return props.events
      .filter((e) => (type === "" || e.type === type) && (needle === "" || `${e.metadata.namespace} ${e.involvedObject.name} ${e.reason} ${e.message}`.toLowerCase().includes(needle)))
      .sort((a, b) => eventTimeMs(b) - eventTimeMs(a))
      .slice(0, 1000);
  }, [props.events, type, text]);
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <div class="filters">
        <label>
          Type{" "}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            <option value="Normal">Normal</option>
            <option value="Warning">Warning</option>
          </select>
        </label>
        <label>
          Filter <input value={text} placeholder="pod, reason or message" onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        </label>
        <span class="muted">{shown.length} shown</span>
      </div>
      <div class="table-scroll">
        <table class="list">
          <thead>
            <tr><th>Last seen</th><th>Type</th><th>Reason</th><th>Object</th><th>Message</th></tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr key={`${e.metadata.namespace}/${e.metadata.name}`} class={e.type === "Warning" ? "warning" : ""}>
                <td><Age since={e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp} now={props.now} />{(e.count ?? 1) > 1 ? ` (×${e.count})` : ""}</td>
                <td>{e.type}</td>
                <td>{e.reason}</td>
                <td>
                  {e.involvedObject.kind === "Pod" ? (
                    <a href={podPath(e.involvedObject.namespace ?? "default", e.involvedObject.name ?? "")}>pod/{e.involvedObject.name}</a>
                  ) : (
                    `${(e.involvedObject.kind ?? "").toLowerCase()}/${e.involvedObject.name}`
                  )}
                </td>
                <td class="message">{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {shown.length === 0 ? <p class="empty" data-testid="empty">{props.events.length === 0 ? "No events yet." : `No event matches these filters (${props.events.length} hidden).`}</p> : null}
    </section>
  );
}
