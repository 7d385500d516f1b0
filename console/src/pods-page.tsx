// The Pods page: the live pod list (from the shared watch), filtered by namespace and label.
import { useMemo, useState } from "preact/hooks";
import { age, matchesLabels, parseLabelSelector, podStatusText, readyText, restartsOf, type Pod } from "./model";

/** PodsPage lists pods; rows link to the pod page. */
export function PodsPage(props: { pods: readonly Pod[]; now: number }) {
  const [namespace, setNamespace] = useState("");
  const [selector, setSelector] = useState("");
  const namespaces = useMemo(() => [...new Set(props.pods.map((p) => p.metadata.namespace ?? "default"))].sort(), [props.pods]);
  const terms = parseLabelSelector(selector);
  const shown = useMemo(() => {
    if (typeof terms === "string") return [];
    return props.pods
      .filter((p) => (namespace === "" || (p.metadata.namespace ?? "default") === namespace) && matchesLabels(p.metadata.labels, terms))
      .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  }, [props.pods, namespace, selector]);
  return (
    <section aria-labelledby="pods-title">
      <h1 id="pods-title">Pods</h1>
      <div class="filters">
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
          Labels{" "}
          <input id="label-filter" placeholder="app=web,tier!=db" value={selector} onInput={(e) => setSelector((e.target as HTMLInputElement).value)} aria-invalid={typeof terms === "string"} />
        </label>
        {typeof terms === "string" ? <span class="error">{terms}</span> : <span class="muted">{shown.length} of {props.pods.length}</span>}
      </div>
      <table class="list" data-testid="pod-table">
        <thead>
          <tr><th>Name</th><th>Namespace</th><th>Ready</th><th>Status</th><th>Restarts</th><th>Age</th><th>Node</th></tr>
        </thead>
        <tbody>
          {shown.map((p) => {
            const ns = p.metadata.namespace ?? "default";
            const name = p.metadata.name ?? "";
            const status = podStatusText(p);
            return (
              <tr key={`${ns}/${name}`} data-pod={name}>
                <td><a href={`#/pods/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`}>{name}</a></td>
                <td>{ns}</td>
                <td>{readyText(p)}</td>
                <td class={`status status-${status.toLowerCase()}`}>{status}</td>
                <td>{restartsOf(p)}</td>
                <td>{age(p.metadata.creationTimestamp, props.now)}</td>
                <td>{p.spec?.nodeName ?? ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
