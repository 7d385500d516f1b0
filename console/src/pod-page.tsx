// A pod: the probe timeline, opened on what happened (the pod's life or its last failure
// episode, whichever is shorter), with Explain beside it; its probes with "Probe now" and their
// recent runs; every container (init containers and sidecars included) with its state; the
// conditions; and each container's log. A pod that does not exist says so.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { ContainerInstance } from "../../src/api/container-instance";
import { failedExit } from "../../src/agent/exit-status";
import { podCells } from "../../src/apiserver/table/pod-columns";
import type { ContainerState } from "../../src/api/types";
import { getJson, getText } from "./api";
import { errorText, RequestError } from "./api-error";
import { openWindow } from "./episode";
import { eventTimeMs, podApiPath, podContainers, type KubeEvent, type Pod } from "./model";
import { DeletePodButton } from "./pod-actions";
import { PodLogs } from "./pod-logs";
import { ProbesPanel } from "./probes-panel";
import { Age, Time } from "./time-text";
import { Timeline, type HistoryEntry, type HistorySegment } from "./timeline";

/** RANGES are the timeline's preset windows. */
const DAY_MS = 24 * 3600_000;
const RANGES: readonly [string, number][] = [
  ["15 min", 15 * 60_000],
  ["1 h", 3600_000],
  ["6 h", 6 * 3600_000],
  ["24 h", DAY_MS],
];

/** How often the open pod's probe history and container runs are fetched again. */
const REFRESH_MS = 2000;

interface History {
  items: HistoryEntry[];
  segments: HistorySegment[];
  instances: ContainerInstance[];
}

/** View is what the chart shows: a zoom (its end following the present when `follow`), or the whole range. */
interface Zoom {
  from: number;
  to: number;
  follow: boolean;
  why: string;
}

function StateText(props: { state: ContainerState | undefined; now: number }) {
  const s = props.state;
  if (s?.running) return <>Running since <Time at={s.running.startedAt} now={props.now} /></>;
  if (s?.waiting) return <>Waiting: {s.waiting.reason ?? ""}{s.waiting.message ? ` (${s.waiting.message})` : ""}</>;
  if (s?.terminated) {
    const t = s.terminated;
    return <>Terminated: {t.reason ?? ""} exit {t.exitCode}{t.signal !== undefined ? ` signal ${t.signal}` : ""} at <Time at={t.finishedAt} now={props.now} />{t.message ? ` (${t.message})` : ""}</>;
  }
  return <span class="muted">—</span>;
}

/** incidents are the times something went wrong: probe failures, exits, restarts and Warning events. */
function incidents(history: History, events: readonly KubeEvent[]): number[] {
  const times: number[] = [];
  for (const e of history.items) if (e.result === "Failure") times.push(Date.parse(e.time));
  for (const s of history.segments) if (s.result === "Failure") times.push(Date.parse(s.start), Date.parse(s.end));
  const firsts = new Set<string>();
  for (const i of history.instances) {
    if (i.finishedAt !== undefined && failedExit(i)) times.push(Date.parse(i.finishedAt));
    // The first run of each container is its start, not a restart.
    if (firsts.has(i.container)) times.push(Date.parse(i.startedAt ?? ""));
    firsts.add(i.container);
  }
  for (const ev of events) if (ev.type === "Warning") times.push(eventTimeMs(ev));
  return times;
}

/** PodPage shows one pod from the shared pod watch. */
export function PodPage(props: { namespace: string; name: string; pod: Pod | undefined; events: readonly KubeEvent[]; now: number }) {
  const { namespace, name, pod } = props;
  const created = Date.parse(pod?.metadata.creationTimestamp ?? "");
  // Open on the shortest preset that holds the pod's whole life (at most a day).
  const [rangeMs, setRangeMs] = useState(() => RANGES.find(([, ms]) => Number.isNaN(created) || ms >= (props.now - created) * 1.1)?.[1] ?? DAY_MS);
  const [zoom, setZoom] = useState<Zoom | undefined>(undefined);
  const [opened, setOpened] = useState(false);
  const [history, setHistory] = useState<History | undefined>(undefined);
  const [error, setError] = useState("");
  const [explain, setExplain] = useState("");
  const [missing, setMissing] = useState("");
  const base = podApiPath(namespace, name);
  const podEvents = useMemo(
    () => props.events.filter((e) => e.involvedObject.name === name && (e.involvedObject.namespace ?? e.metadata.namespace) === namespace && (pod?.metadata.uid === undefined || e.involvedObject.uid === undefined || e.involvedObject.uid === pod.metadata.uid)).sort((a, b) => eventTimeMs(a) - eventTimeMs(b)),
    [props.events, name, namespace, pod?.metadata.uid],
  );

  // Not in the watch: ask the API, so a pod that does not exist says so instead of waiting.
  useEffect(() => {
    if (pod !== undefined) {
      setMissing("");
      return;
    }
    const stop = new AbortController();
    getJson<Pod>(base, stop.signal).then(
      () => setMissing(""),
      (err: unknown) => {
        if (stop.signal.aborted) return;
        setMissing(err instanceof RequestError && err.status === 404 ? `There is no pod "${name}" in namespace "${namespace}": it was deleted, or never existed.` : (errorText(err) ?? ""));
      },
    );
    return () => stop.abort();
  }, [base, pod === undefined]);

  useEffect(() => {
    if (pod === undefined) return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The whole range each time: segments grow as runs go on, so a fetch of only the new part
    // would miss their growth. A day is at most a few hundred segments per probe.
    const load = async (): Promise<void> => {
      try {
        const until = new Date();
        const since = new Date(until.getTime() - rangeMs);
        const [list, instances] = await Promise.all([
          getJson<{ items?: HistoryEntry[]; segments?: HistorySegment[] }>(`${base}/probes?since=${encodeURIComponent(since.toISOString())}&until=${encodeURIComponent(until.toISOString())}`, stop.signal),
          getJson<{ items?: ContainerInstance[] }>(`${base}/instances`, stop.signal),
        ]);
        setHistory({ items: list.items ?? [], segments: list.segments ?? [], instances: instances.items ?? [] });
        setError("");
      } catch (err) {
        const text = errorText(err);
        if (text !== undefined && !stop.signal.aborted) setError(text);
      }
      if (!stop.signal.aborted) timer = setTimeout(() => void load(), REFRESH_MS);
    };
    void load();
    return () => {
      stop.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [base, rangeMs, pod === undefined]);

  // Once the first history is in, open on what happened.
  useEffect(() => {
    if (opened || history === undefined || pod === undefined) return;
    setOpened(true);
    const w = openWindow(created, Date.now(), incidents(history, podEvents));
    setZoom({ from: w.from, to: w.to, follow: w.follow, why: w.reason === "episode" ? "the last failure episode" : "the pod's life" });
  }, [history, pod === undefined]);

  const statusKey = JSON.stringify(pod?.status ?? {}) + podEvents.length;
  useEffect(() => {
    if (pod === undefined) return;
    const stop = new AbortController();
    getText(`/console/explain/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`, stop.signal).then(setExplain, (err: unknown) => {
      const text = errorText(err);
      if (text !== undefined && !stop.signal.aborted) setExplain(text);
    });
    return () => stop.abort();
  }, [namespace, name, statusKey]);

  if (pod === undefined) {
    return (
      <section aria-labelledby="pod-title">
        <h1 id="pod-title">pod/{name}</h1>
        {missing !== "" ? <p class="empty" data-testid="pod-missing">{missing} <a href="#/pods">All pods</a></p> : <p class="muted">Loading pod {namespace}/{name}…</p>}
      </section>
    );
  }
  const cells = podCells(pod, props.now);
  const to = zoom === undefined ? props.now : zoom.follow ? props.now : zoom.to;
  const from = zoom?.from ?? props.now - rangeMs;
  return (
    <section aria-labelledby="pod-title">
      <div class="pod-head">
        <h1 id="pod-title">pod/{name} <span class="muted">{namespace} · {cells.ready} ready · {cells.status} · <Age since={pod.metadata.creationTimestamp} now={props.now} /> old</span></h1>
        <DeletePodButton pod={pod} />
      </div>
      <div class="toolbar" role="group" aria-label="timeline range">
        {RANGES.map(([label, ms]) => (
          <button key={label} type="button" aria-pressed={rangeMs === ms && zoom === undefined} onClick={() => { setRangeMs(ms); setZoom(undefined); }}>{label}</button>
        ))}
        {zoom ? (
          <>
            <span class="muted" data-testid="zoom">{zoom.why !== "" ? `Showing ${zoom.why}` : "Zoomed"}</span>
            <button type="button" onClick={() => setZoom(undefined)}>Reset zoom</button>
          </>
        ) : null}
        {error ? <span class="error" role="status">{error}</span> : null}
      </div>
      <div class="pod-grid">
        <Timeline
          pod={pod}
          entries={history?.items ?? []}
          segments={history?.segments ?? []}
          instances={history?.instances ?? []}
          events={podEvents}
          from={from}
          to={to}
          now={props.now}
          onZoom={(a, b) => setZoom({ from: Math.max(a, props.now - rangeMs), to: Math.min(b, Date.now()), follow: false, why: "" })}
        />
        <aside class="explain" aria-label="explain">
          <h2>Explain</h2>
          <pre data-testid="explain">{explain}</pre>
        </aside>
      </div>
      <h2>Probes</h2>
      <ProbesPanel pod={pod} entries={history?.items ?? []} segments={history?.segments ?? []} now={props.now} />
      <h2>Containers</h2>
      <div class="table-scroll">
        <table class="list wrap" data-testid="containers">
          <thead><tr><th>Name</th><th>Kind</th><th>Ready</th><th>Restarts</th><th>State</th><th>Last state</th></tr></thead>
          <tbody>
            {podContainers(pod).map((c) => (
              <tr key={c.spec.name} data-container={c.spec.name}>
                <td>{c.spec.name}</td>
                <td>{c.kind}</td>
                <td>{c.status?.ready ? "yes" : "no"}</td>
                <td>{c.status?.restartCount ?? 0}</td>
                <td class="message"><StateText state={c.status?.state} now={props.now} /></td>
                <td class="message"><StateText state={c.status?.lastState} now={props.now} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Conditions</h2>
      <div class="table-scroll">
        <table class="list">
          <thead><tr><th>Type</th><th>Status</th><th>Last transition</th><th>Reason</th></tr></thead>
          <tbody>
            {(pod.status?.conditions ?? []).map((c) => (
              <tr key={c.type}><td>{c.type}</td><td>{c.status}</td><td><Time at={c.lastTransitionTime} now={props.now} /></td><td>{c.reason ?? ""}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 id="logs-title">Logs</h2>
      <PodLogs pod={pod} />
    </section>
  );
}
