// The pod list's health at a glance: every pod's probe results and exits over the last minutes,
// from the agent's GET /probes/summary (src/server/pod-health-summary.ts), fetched again every
// few seconds.
import { useEffect, useState } from "preact/hooks";
import type { PodHealth, PodHealthSummary } from "../../src/server/pod-health-summary";
import { getJson } from "./api";
import { errorText } from "./api-error";
import { podKey } from "./model";

/** HEALTH_WINDOW_MS is how far back the strips look; HEALTH_BUCKETS how finely (30 s each). */
export const HEALTH_WINDOW_MS = 10 * 60_000;
export const HEALTH_BUCKETS = 20;
const REFRESH_MS = 5000;

/** PodHealthView is the latest summary by "namespace/name", with its range, or the error that kept it from coming. */
export interface PodHealthView {
  byPod: ReadonlyMap<string, PodHealth>;
  since: number;
  until: number;
  error: string;
}

/**
 * usePodHealth keeps the summary fresh while the list is shown. It starts once `ready` (the
 * first pods are listed) and after the next paint, so the rows come first and their strips a
 * moment later.
 */
export function usePodHealth(ready: boolean): PodHealthView {
  const [view, setView] = useState<PodHealthView>({ byPod: new Map(), since: 0, until: 0, error: "" });
  useEffect(() => {
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      try {
        const until = Date.now();
        const since = until - HEALTH_WINDOW_MS;
        const summary = await getJson<PodHealthSummary>(`/probes/summary?since=${encodeURIComponent(new Date(since).toISOString())}&until=${encodeURIComponent(new Date(until).toISOString())}&buckets=${HEALTH_BUCKETS}`, stop.signal);
        setView({ byPod: new Map(summary.items.map((h) => [podKey(h.namespace, h.name), h])), since, until, error: "" });
      } catch (err) {
        const text = errorText(err);
        if (text !== undefined) setView((v) => ({ ...v, error: text }));
      }
      if (!stop.signal.aborted) timer = setTimeout(() => void load(), REFRESH_MS);
    };
    if (!ready) return;
    const first = requestAnimationFrame(() => (timer = setTimeout(() => void load(), 0)));
    return () => {
      stop.abort();
      cancelAnimationFrame(first);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [ready]);
  return view;
}
