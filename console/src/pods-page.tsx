// The Pods page: the live pod list (from the shared watch) with each pod's health at a glance
// (its probes' results and its containers' exits over the last 10 minutes, and why), filtered by
// namespace, name and label selector, sorted by any column or by the most failures lately, with
// the owner's actions per row: logs, probe now, delete.
import { useMemo, useState } from "preact/hooks";
import { podCells, type PodCells } from "../../src/apiserver/table/pod-columns";
import type { PodHealth } from "../../src/server/pod-health-summary";
import type { WatchStatus } from "./api";
import { HealthStrip } from "./health-strip";
import { matchesLabels, parseLabelSelector, podKey, podPath, readySince, type Pod } from "./model";
import { DeletePodButton, podProbes, ProbeNowButton } from "./pod-actions";
import { usePodHealth } from "./pod-health";
import { PodLogs } from "./pod-logs";
import { Age } from "./time-text";

type SortKey = "name" | "failures" | "restarts" | "age";
type Detail = "logs" | "probe" | "delete";

interface Row {
  pod: Pod;
  key: string;
  namespace: string;
  cells: PodCells;
  restarts: number;
  health: PodHealth | undefined;
}

const restartCount = (pod: Pod): number =>
  [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].reduce((n, c) => n + (c.restartCount ?? 0), 0);

const COMPARE: Readonly<Record<SortKey, (a: Row, b: Row) => number>> = {
  name: () => 0,
  failures: (a, b) => (b.health?.failures ?? 0) - (a.health?.failures ?? 0) || b.restarts - a.restarts,
  restarts: (a, b) => b.restarts - a.restarts,
  age: (a, b) => (Date.parse(b.pod.metadata.creationTimestamp ?? "") || 0) - (Date.parse(a.pod.metadata.creationTimestamp ?? "") || 0),
};

/** PodsPage lists pods; rows link to the pod page. */
export function PodsPage(props: { pods: readonly Pod[]; now: number; status: WatchStatus }) {
  const [namespace, setNamespace] = useState("");
  const [search, setSearch] = useState("");
  const [selector, setSelector] = useState("");
  const [sort, setSort] = useState<SortKey>("name");
  const [detail, setDetail] = useState<{ key: string; view: Detail } | undefined>(undefined);
  const health = usePodHealth(props.pods.length > 0);
  const namespaces = useMemo(() => [...new Set(props.pods.map((p) => p.metadata.namespace ?? "default"))].sort(), [props.pods]);
  const terms = parseLabelSelector(selector);
  const needle = search.trim().toLowerCase();
  const rows = useMemo(() => {
    if (typeof terms === "string") return [];
    return props.pods
      .filter((p) => (namespace === "" || (p.metadata.namespace ?? "default") === namespace) && (needle === "" || (p.metadata.name ?? "").toLowerCase().includes(needle)) && matchesLabels(p.metadata.labels, terms))
      .map((pod): Row => {
        const ns = pod.metadata.namespace ?? "default";
        const key = podKey(ns, pod.metadata.name ?? "");
        return { pod, key, namespace: ns, cells: podCells(pod, props.now), restarts: restartCount(pod), health: health.byPod.get(key) };
      })
      .sort((a, b) => COMPARE[sort](a, b) || a.key.localeCompare(b.key));
  }, [props.pods, props.now, namespace, needle, selector, sort, health]);
  const toggle = (key: string, view: Detail): void => setDetail(detail?.key === key && detail.view === view ? undefined : { key, view });
  const header = (label: string, key: SortKey | undefined, title?: string) => (
    <th aria-sort={key !== undefined && sort === key ? (key === "name" ? "ascending" : "descending") : undefined} title={title}>
      {key === undefined ? label : <button type="button" class="sort" aria-pressed={sort === key} onClick={() => setSort(key)}>{label}</button>}
    </th>
  );
  const filtered = namespace !== "" || needle !== "" || selector.trim() !== "";
  return (
    <section aria-labelledby="pods-title">
      <h1 id="pods-title">Pods</h1>
      <div class="filters">
        <label>
          Name <input id="name-filter" type="search" placeholder="part of a name" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Namespace{" "}
          <select value={namespace} onChange={(e) => setNamespace((e.target as HTMLSelectElement).value)}>
            <option value="">all</option>
            {namespaces.map((n) => (
              <option key={n} value={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          Labels <input id="label-filter" placeholder="app=web,tier!=db" value={selector} onInput={(e) => setSelector((e.target as HTMLInputElement).value)} aria-invalid={typeof terms === "string"} />
        </label>
        {typeof terms === "string" ? <span class="error">{terms}</span> : <span class="muted">{rows.length} of {props.pods.length}</span>}
        {health.error !== "" ? <span class="error" title="the health strips are not up to date">{health.error}</span> : null}
      </div>
      <div class="table-scroll">
        <table class="list pods" data-testid="pod-table">
          <thead>
            <tr>
              {header("Name", "name")}
              <th>Namespace</th>
              <th title="ready containers (sidecars included, as kubectl counts them) of all">Ready</th>
              <th>Status</th>
              {header("Restarts", "restarts")}
              {header("Last 10 min", "failures", "probe results and exits over the last 10 minutes; sorts by the most failures lately")}
              <th title="since when the pod has been Ready, or not Ready">Ready since</th>
              <th>IP</th>
              <th>Node</th>
              {header("Age", "age")}
              <th><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const name = r.pod.metadata.name ?? "";
              const ready = readySince(r.pod);
              const open = detail?.key === r.key ? detail.view : undefined;
              return [
                <tr key={r.key} data-pod={name}>
                  <td><a href={podPath(r.namespace, name)}>{name}</a></td>
                  <td>{r.namespace}</td>
                  <td>{r.cells.ready}</td>
                  <td class={`status status-${r.cells.status.toLowerCase().replace(/[^a-z]/g, "")}`}>{r.cells.status}</td>
                  <td>{r.cells.restarts}</td>
                  <td class="health-cell"><HealthStrip health={r.health} since={health.since} until={health.until} created={Date.parse(r.pod.metadata.creationTimestamp ?? "") || 0} /></td>
                  <td class={ready.ready ? "" : "muted"}>{ready.since === undefined ? "—" : <>{ready.ready ? "" : "not ready "}<Age since={ready.since} now={props.now} /></>}</td>
                  <td>{r.cells.ip}</td>
                  <td>{r.cells.node}</td>
                  <td><Age since={r.pod.metadata.creationTimestamp} now={props.now} /></td>
                  <td class="actions">
                    <span class="row-actions">
                      <button type="button" aria-expanded={open === "logs"} onClick={() => toggle(r.key, "logs")}>Logs</button>
                      <button type="button" aria-expanded={open === "probe"} disabled={podProbes(r.pod).length === 0} title={podProbes(r.pod).length === 0 ? "this pod has no probes" : "run every probe of the pod now"} onClick={() => toggle(r.key, "probe")}>Probe</button>
                      <button type="button" aria-expanded={open === "delete"} onClick={() => toggle(r.key, "delete")}>Delete</button>
                    </span>
                  </td>
                </tr>,
                open !== undefined ? (
                  <tr key={`${r.key}/detail`} class="detail" data-detail={name}>
                    <td colSpan={11}>
                      {open === "logs" ? <PodLogs pod={r.pod} tailLines={100} /> : null}
                      {open === "probe" ? <ProbeNowButton pod={r.pod} probes={podProbes(r.pod)} label="Probe again" runAtOnce /> : null}
                      {open === "delete" ? <DeletePodButton pod={r.pod} confirming onCancel={() => setDetail(undefined)} /> : null}
                    </td>
                  </tr>
                ) : null,
              ];
            })}
          </tbody>
        </table>
      </div>
      <EmptyState total={props.pods.length} shown={rows.length} status={props.status} filtered={filtered} clear={() => { setNamespace(""); setSearch(""); setSelector(""); }} />
    </section>
  );
}

/** EmptyState says why the list is empty: still connecting, no pods at all, or filters that match none. */
function EmptyState(props: { total: number; shown: number; status: WatchStatus; filtered: boolean; clear: () => void }) {
  if (props.shown > 0) return null;
  if (props.total === 0 && props.status !== "live") return <p class="empty" data-testid="empty">Connecting to the agent…</p>;
  if (props.total === 0) {
    return (
      <p class="empty" data-testid="empty">
        No pods yet. Start some with <code>probelet run -f pod.yaml</code>, or <code>probelet apply -f pod.yaml</code> while the agent runs.
      </p>
    );
  }
  return (
    <p class="empty" data-testid="empty">
      No pod matches these filters ({props.total} hidden). {props.filtered ? <button type="button" onClick={props.clear}>Clear filters</button> : null}
    </p>
  );
}
