// What the owner can do to a pod from the list or its page: run its probes now (the agent's POST
// …/probes/trigger, the kubelet's manual trigger) with each result shown in place, and delete it
// after a confirmation. Errors come back as one readable line.
import { useEffect, useState } from "preact/hooks";
import { isMirrorPod } from "../../src/api/mirror-pod";
import { describeRun, type ProbeHistoryEntry } from "../../src/prober/probe-history";
import { act } from "./api";
import { errorText } from "./api-error";
import { probeOf, type ProbeType } from "../../src/api/pod-rules";
import { podApiPath, podContainers, PROBE_ORDER, type Pod } from "./model";

/** ProbeRef names one probe of a pod. */
export interface ProbeRef {
  container: string;
  probeType: ProbeType;
}

/** podProbes lists the probes the agent runs for a pod: those of sidecars and regular containers. */
export function podProbes(pod: Pod): ProbeRef[] {
  return podContainers(pod)
    .filter((c) => c.kind !== "init")
    .flatMap((c) => PROBE_ORDER.filter((t) => probeOf(c.spec, t) !== undefined).map((probeType) => ({ container: c.spec.name, probeType })));
}

/** ProbeOutcome is one triggered probe's result, or why it did not run. */
export interface ProbeOutcome {
  ok: boolean;
  text: string;
  result?: string;
}

/** probeNow triggers one probe and words its result. */
export async function probeNow(pod: Pod, probe: ProbeRef): Promise<ProbeOutcome> {
  const path = `${podApiPath(pod.metadata.namespace ?? "default", pod.metadata.name ?? "")}/probes/trigger?container=${encodeURIComponent(probe.container)}&probeType=${probe.probeType}`;
  try {
    const { body: e } = await act<ProbeHistoryEntry>("POST", path);
    const output = e.output.trim();
    return { ok: true, result: e.result, text: `${describeRun(e)} in ${e.latencyMs.toFixed(1)} ms${output !== "" ? ` · ${output}` : ""}` };
  } catch (err) {
    return { ok: false, text: errorText(err) ?? "cancelled" };
  }
}

/** ProbeNowButton runs one probe, or every probe of the pod, and shows each result beside it. */
export function ProbeNowButton(props: { pod: Pod; probes: readonly ProbeRef[]; label?: string; runAtOnce?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<(ProbeOutcome & ProbeRef)[]>([]);
  const run = async (): Promise<void> => {
    setBusy(true);
    setResults([]);
    const done: (ProbeOutcome & ProbeRef)[] = [];
    for (const probe of props.probes) {
      done.push({ ...probe, ...(await probeNow(props.pod, probe)) });
      setResults([...done]);
    }
    setBusy(false);
  };
  useEffect(() => {
    if (props.runAtOnce === true) void run();
  }, []);
  const many = props.probes.length > 1;
  return (
    <span class="probe-now">
      <button type="button" disabled={busy || props.probes.length === 0} onClick={() => void run()} title={props.probes.length === 0 ? "this pod has no probes" : "run the probe now, as the kubelet's manual trigger does: it counts toward the threshold"}>
        {busy ? "Probing…" : (props.label ?? "Probe now")}
      </button>
      {results.length > 0 ? (
        <span class="probe-results" data-testid="probe-result" role="status">
          {results.map((r) => (
            <span key={`${r.container}/${r.probeType}`} class={r.ok ? `probe-result r-${(r.result ?? "").toLowerCase()}` : "probe-result error"}>
              {many ? `${r.container} ${r.probeType}: ` : ""}{r.text}
            </span>
          ))}
        </span>
      ) : null}
    </span>
  );
}

/**
 * DeletePodButton deletes the pod after a confirmation, as `probelet delete pod` does (gracefully).
 * A static pod's confirmation says that only its mirror goes (kubelet tryReconcileMirrorPods).
 */
export function DeletePodButton(props: { pod: Pod; confirming?: boolean; onCancel?: () => void; onDeleted?: () => void }) {
  const [state, setState] = useState<"idle" | "confirm" | "deleting" | "done">(props.confirming === true ? "confirm" : "idle");
  const [message, setMessage] = useState("");
  const name = props.pod.metadata.name ?? "";
  const remove = async (): Promise<void> => {
    setState("deleting");
    try {
      const { warnings } = await act<Pod>("DELETE", podApiPath(props.pod.metadata.namespace ?? "default", name));
      setState("done");
      setMessage(warnings.length > 0 ? warnings.join(" ") : `pod "${name}" deleted`);
      props.onDeleted?.();
    } catch (err) {
      setState("idle");
      setMessage(errorText(err) ?? "");
    }
  };
  return (
    <span class="delete-pod">
      {state === "confirm" ? (
        <span role="group" aria-label="confirm deletion">
          Delete pod/{name}?{isMirrorPod(props.pod) ? " It is a static pod (from a manifest): the agent makes its mirror again at once, and its containers run on; remove it from its manifest to stop it." : ""} <button type="button" class="danger" onClick={() => void remove()}>Delete</button> <button type="button" onClick={() => (props.onCancel !== undefined ? props.onCancel() : setState("idle"))}>Cancel</button>
        </span>
      ) : (
        <button type="button" disabled={state === "deleting"} onClick={() => setState("confirm")}>{state === "deleting" ? "Deleting…" : "Delete"}</button>
      )}
      {message !== "" ? <span class={state === "done" ? "muted" : "error"} role="status"> {message}</span> : null}
    </span>
  );
}
