// A pod: containers with their states, conditions, the probe timeline with Explain beside it,
// and each container's log (current or previous, following).
import { useEffect, useMemo, useState } from "preact/hooks";
import { getJson, getText, streamLines } from "./api";
import { age, eventTimeMs, podStatusText, readyText, type ContainerState, type KubeEvent, type Pod } from "./model";
import { Timeline, type HistoryEntry, type HistorySegment } from "./timeline";

/** RANGES are the timeline's preset windows. */
const RANGES: readonly [string, number][] = [
  ["15 min", 15 * 60_000],
  ["1 h", 3600_000],
  ["6 h", 6 * 3600_000],
  ["24 h", 24 * 3600_000],
];

/** How often the open pod's probe history is fetched again. */
const HISTORY_REFRESH_MS = 2000;
const MAX_LOG_LINES = 2000;

function stateText(state: ContainerState | undefined): string {
  if (state === undefined) return "—";
  if (state.running) return `Running since ${state.running.startedAt ?? "?"}`;
  if (state.waiting) return `Waiting: ${state.waiting.reason ?? ""}${state.waiting.message ? ` (${state.waiting.message})` : ""}`;
  if (state.terminated) return `Terminated: ${state.terminated.reason ?? ""} exit ${state.terminated.exitCode ?? "?"} at ${state.terminated.finishedAt ?? "?"}`;
  return "—";
}

interface HistoryList {
  items?: HistoryEntry[];
  segments?: HistorySegment[];
}

/** PodPage shows one pod from the shared pod watch. */
export function PodPage(props: { namespace: string; name: string; pod: Pod | undefined; events: readonly KubeEvent[]; now: number }) {
  const { namespace, name, pod } = props;
  const [rangeMs, setRangeMs] = useState(15 * 60_000);
  const [zoom, setZoom] = useState<[number, number] | undefined>(undefined);
  const [history, setHistory] = useState<{ items: HistoryEntry[]; segments: HistorySegment[] }>({ items: [], segments: [] });
  const [error, setError] = useState("");
  const [explain, setExplain] = useState("");
  const base = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
  const podEvents = useMemo(
    () => props.events.filter((e) => e.involvedObject.name === name && (e.involvedObject.namespace ?? e.metadata.namespace) === namespace && (pod?.metadata.uid === undefined || e.involvedObject.uid === undefined || e.involvedObject.uid === pod.metadata.uid)).sort((a, b) => eventTimeMs(a) - eventTimeMs(b)),
    [props.events, name, namespace, pod?.metadata.uid],
  );

  useEffect(() => {
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The whole range each time: segments grow as runs go on, so a fetch of only the new part
    // would miss their growth. A day is at most a few hundred segments per probe.
    const load = async (): Promise<void> => {
      try {
        const until = new Date();
        const since = new Date(until.getTime() - rangeMs);
        const list = await getJson<HistoryList>(`${base}/probes?since=${encodeURIComponent(since.toISOString())}&until=${encodeURIComponent(until.toISOString())}`, stop.signal);
        setHistory({ items: list.items ?? [], segments: list.segments ?? [] });
        setError("");
      } catch (err) {
        if (!stop.signal.aborted) setError(String(err));
      }
      if (!stop.signal.aborted) timer = setTimeout(() => void load(), HISTORY_REFRESH_MS);
    };
    void load();
    return () => {
      stop.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [base, rangeMs]);

  const statusKey = JSON.stringify(pod?.status ?? {}) + podEvents.length;
  useEffect(() => {
    const stop = new AbortController();
    getText(`/console/explain/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`, stop.signal).then(setExplain, (err: unknown) => !stop.signal.aborted && setExplain(String(err)));
    return () => stop.abort();
  }, [namespace, name, statusKey]);

  if (pod === undefined) return <section><h1>pod/{name}</h1><p class="muted">No pod {namespace}/{name} (yet): waiting for the watch.</p></section>;
  const to = zoom?.[1] ?? props.now;
  const from = zoom?.[0] ?? props.now - rangeMs;
  return (
    <section aria-labelledby="pod-title">
      <h1 id="pod-title">pod/{name} <span class="muted">{namespace} · {readyText(pod)} ready · {podStatusText(pod)} · {age(pod.metadata.creationTimestamp, props.now)}</span></h1>
      <div class="toolbar" role="group" aria-label="timeline range">
        {RANGES.map(([label, ms]) => (
          <button key={label} aria-pressed={rangeMs === ms && zoom === undefined} onClick={() => { setRangeMs(ms); setZoom(undefined); }}>{label}</button>
        ))}
        {zoom ? <button onClick={() => setZoom(undefined)}>Reset zoom</button> : null}
        {error ? <span class="error">{error}</span> : null}
      </div>
      <div class="pod-grid">
        <Timeline pod={pod} entries={history.items} segments={history.segments} events={podEvents} from={from} to={to} onZoom={(a, b) => setZoom([a, Math.min(b, Date.now())])} />
        <aside class="explain" aria-label="explain">
          <h2>Explain</h2>
          <pre data-testid="explain">{explain}</pre>
        </aside>
      </div>
      <h2>Containers</h2>
      <table class="list">
        <thead><tr><th>Name</th><th>Ready</th><th>Restarts</th><th>State</th><th>Last state</th></tr></thead>
        <tbody>
          {(pod.status?.containerStatuses ?? []).map((c) => (
            <tr key={c.name}><td>{c.name}</td><td>{c.ready ? "yes" : "no"}</td><td>{c.restartCount ?? 0}</td><td>{stateText(c.state)}</td><td>{stateText(c.lastState)}</td></tr>
          ))}
        </tbody>
      </table>
      <h2>Conditions</h2>
      <table class="list">
        <thead><tr><th>Type</th><th>Status</th><th>Last transition</th><th>Reason</th></tr></thead>
        <tbody>
          {(pod.status?.conditions ?? []).map((c) => (
            <tr key={c.type}><td>{c.type}</td><td>{c.status}</td><td>{c.lastTransitionTime ? `${c.lastTransitionTime} (${age(c.lastTransitionTime, props.now)} ago)` : ""}</td><td>{c.reason ?? ""}</td></tr>
          ))}
        </tbody>
      </table>
      <Logs base={base} containers={(pod.spec?.containers ?? []).map((c) => c.name)} />
    </section>
  );
}

function Logs(props: { base: string; containers: readonly string[] }) {
  const [container, setContainer] = useState(props.containers[0] ?? "");
  const [previous, setPrevious] = useState(false);
  const [follow, setFollow] = useState(true);
  const [lines, setLines] = useState<string[]>([]);
  useEffect(() => {
    const stop = new AbortController();
    let buffer: string[] = [];
    let scheduled = false;
    setLines([]);
    const query = `container=${encodeURIComponent(container)}&tailLines=500${previous ? "&previous=true" : ""}${follow && !previous ? "&follow=true" : ""}`;
    streamLines(`${props.base}/log?${query}`, stop.signal, (line) => {
      buffer.push(line);
      if (buffer.length > MAX_LOG_LINES) buffer = buffer.slice(-MAX_LOG_LINES);
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(() => {
          scheduled = false;
          setLines([...buffer]);
        });
      }
    }).then(async (res) => {
      if (!res.ok) setLines([`(${res.status}) ${(await res.text()).slice(0, 300)}`]);
    }, () => undefined);
    return () => stop.abort();
  }, [props.base, container, previous, follow]);
  return (
    <section aria-labelledby="logs-title">
      <h2 id="logs-title">Logs</h2>
      <div class="toolbar">
        <label>Container <select value={container} onChange={(e) => setContainer((e.target as HTMLSelectElement).value)}>{props.containers.map((c) => <option key={c} value={c}>{c}</option>)}</select></label>
        <label><input type="checkbox" checked={previous} onChange={(e) => setPrevious((e.target as HTMLInputElement).checked)} /> previous</label>
        <label><input type="checkbox" checked={follow} disabled={previous} onChange={(e) => setFollow((e.target as HTMLInputElement).checked)} /> follow</label>
      </div>
      <pre class="logs" tabIndex={0} aria-label="container log">{lines.join("\n")}</pre>
    </section>
  );
}
