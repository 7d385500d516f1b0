// Where a probelet agent spends its CPU at node level, from a V8 CPU profile (`node --cpu-prof`):
// each sample goes to the part of probelet nearest its leaf on the stack (the first frame from
// the leaf that is probelet's own code, skipping src/util), so time in Node's TLS, HTTP, streams
// or gRPC counts for the probelet code that called it. Samples without probelet code are timers,
// the garbage collector, V8/native ("program") or Node internals; idle samples are left out.

/** CpuProfile is the part of a .cpuprofile file read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  timeDeltas: number[];
}

/** CATEGORIES in the order they are reported, with the source paths (under src/) they take. */
export const CATEGORIES: readonly { name: string; paths: readonly string[] }[] = [
  { name: "probes (prober, workers, handlers)", paths: ["prober/", "probe/"] },
  { name: "status manager and status sync", paths: ["status/", "cluster/api-status-sync", "cluster/store-bridge", "agent/pod-status", "agent/pod-conditions"] },
  { name: "API watches, lease, node status, events", paths: ["cluster/"] },
  { name: "runtime client (CRI over gRPC)", paths: ["runtime/"] },
  { name: "pod workers, sync loop, PLEG", paths: ["agent/", "kuberuntime/", "volumes/", "api/"] },
  { name: "agent API server and metrics", paths: ["server/", "apiserver/"] },
  { name: "other probelet code", paths: [""] },
];

/** Breakdown is milliseconds of CPU per category over the chosen span. */
export interface Breakdown {
  /** Milliseconds sampled busy (idle left out) in the span. */
  busyMs: number;
  byCategory: Record<string, number>;
}

/** categoryOfUrl is the category of a frame of probelet's own code, or undefined for other code. */
function categoryOfUrl(url: string): string | undefined {
  const at = url.lastIndexOf("/dist/src/");
  if (at < 0) return undefined;
  const path = url.slice(at + "/dist/src/".length);
  if (path.startsWith("util/")) return undefined;
  return CATEGORIES.find((c) => c.paths.some((p) => path.startsWith(p)))!.name;
}

/**
 * breakdown attributes the profile's samples between `fromUs` and `toUs` (microseconds on the
 * profile's clock, defaults: the whole profile).
 */
export function breakdown(profile: CpuProfile, fromUs = profile.startTime, toUs = profile.endTime): Breakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // The category of each leaf node, computed once per node.
  const memo = new Map<number, string>();
  const categoryOf = (leaf: number): string => {
    const known = memo.get(leaf);
    if (known !== undefined) return known;
    const name = byId.get(leaf)?.callFrame.functionName ?? "";
    let category: string | undefined;
    if (name === "(idle)") category = "idle";
    else if (name === "(garbage collector)") category = "garbage collector";
    else if (name === "(program)") category = "V8 and native (program)";
    let timers = false;
    let grpc = false;
    for (let id: number | undefined = leaf, depth = 0; category === undefined && id !== undefined && depth < 10_000; id = parent.get(id), depth++) {
      const frame = byId.get(id)!.callFrame;
      category = categoryOfUrl(frame.url);
      if (frame.functionName === "listOnTimeout" || frame.functionName === "processTimers") timers = true;
      if (frame.url.includes("/@grpc/")) grpc = true;
    }
    category ??= grpc ? "runtime client (CRI over gRPC)" : timers ? "timers (Node)" : "Node internals (no probelet frame)";
    memo.set(leaf, category);
    return category;
  };
  const byCategory: Record<string, number> = {};
  let busyMs = 0;
  let t = profile.startTime;
  profile.samples.forEach((leaf, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < fromUs || t > toUs) return;
    const category = categoryOf(leaf);
    const ms = delta / 1000;
    if (category === "idle") return;
    busyMs += ms;
    byCategory[category] = (byCategory[category] ?? 0) + ms;
  });
  return { busyMs, byCategory };
}
