// A container's log, current or previous, following, for any container of the pod (init
// containers and sidecars included). Shown on the pod page and opened from the pod list; a log
// that cannot be read says why in one line.
import { useEffect, useState } from "preact/hooks";
import { streamLines } from "./api";
import { errorText, requestError } from "./api-error";
import { podApiPath, podContainers, type Pod } from "./model";

const MAX_LOG_LINES = 2000;
/** DEFAULT_CONTAINER_ANNOTATION picks the container kubectl logs shows first. */
const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

/** PodLogs shows one container's log; the pod's default container first. */
export function PodLogs(props: { pod: Pod; tailLines?: number }) {
  const { pod } = props;
  const names = podContainers(pod).map((c) => c.spec.name);
  const preferred = pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
  const [container, setContainer] = useState(preferred !== undefined && names.includes(preferred) ? preferred : (pod.spec.containers[0]?.name ?? names[0] ?? ""));
  const [previous, setPrevious] = useState(false);
  const [follow, setFollow] = useState(true);
  const [lines, setLines] = useState<string[]>([]);
  const [problem, setProblem] = useState("");
  const base = podApiPath(pod.metadata.namespace ?? "default", pod.metadata.name ?? "");
  const tail = props.tailLines ?? 500;
  useEffect(() => {
    const stop = new AbortController();
    let buffer: string[] = [];
    let scheduled = false;
    setLines([]);
    setProblem("");
    const query = `container=${encodeURIComponent(container)}&tailLines=${tail}${previous ? "&previous=true" : ""}${follow && !previous ? "&follow=true" : ""}`;
    streamLines(`${base}/log?${query}`, stop.signal, (line) => {
      buffer.push(line);
      if (buffer.length > MAX_LOG_LINES) buffer = buffer.slice(-MAX_LOG_LINES);
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(() => {
          scheduled = false;
          setLines([...buffer]);
        });
      }
    }).then(
      async (res) => {
        if (!res.ok) setProblem(requestError(res.status, await res.text()).message);
      },
      (err: unknown) => {
        const text = errorText(err);
        if (text !== undefined && !stop.signal.aborted) setProblem(text);
      },
    );
    return () => stop.abort();
  }, [base, container, previous, follow, tail]);
  return (
    <section class="logs-panel" aria-label={`logs of ${pod.metadata.name}`}>
      <div class="toolbar">
        <label>Container <select value={container} onChange={(e) => setContainer((e.target as HTMLSelectElement).value)}>{names.map((c) => <option key={c} value={c}>{c}</option>)}</select></label>
        <label><input type="checkbox" checked={previous} onChange={(e) => setPrevious((e.target as HTMLInputElement).checked)} /> previous</label>
        <label><input type="checkbox" checked={follow} disabled={previous} onChange={(e) => setFollow((e.target as HTMLInputElement).checked)} /> follow</label>
      </div>
      {problem !== "" ? <p class="error" data-testid="log-error" role="status">{problem}</p> : null}
      <pre class="logs" tabIndex={0} aria-label="container log" data-testid="logs">{lines.join("\n")}</pre>
    </section>
  );
}
