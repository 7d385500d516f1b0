// Where the pod page's timeline opens: on the pod's whole life, or on its last failure episode
// (failures, exits and restarts no more than EPISODE_GAP_MS apart), whichever is shorter, so a
// one-minute-old pod fills the chart and a day-old pod that crashed an hour ago shows that crash
// without a drag. A window that reaches the present keeps following it.

/** Incidents further apart than this start a new episode: a crash loop's longest back-off (5 min) and a little. */
export const EPISODE_GAP_MS = 330_000;
/** The narrowest window the timeline opens on. */
const MIN_WINDOW_MS = 20_000;
/** Room left on each side of what happened, as a share of the window. */
const PAD = 0.08;

/** OpenWindow is the range the timeline opens on; `follow` keeps its end at the present. */
export interface OpenWindow {
  from: number;
  to: number;
  follow: boolean;
  reason: "lifetime" | "episode";
}

/** lastEpisode returns the first and last time of the newest run of incidents, or undefined without any. */
export function lastEpisode(incidents: readonly number[]): [number, number] | undefined {
  const sorted = incidents.filter((t) => Number.isFinite(t)).sort((a, b) => a - b);
  const last = sorted.at(-1);
  if (last === undefined) return undefined;
  let first = last;
  for (let i = sorted.length - 2; i >= 0 && first - sorted[i]! <= EPISODE_GAP_MS; i--) first = sorted[i]!;
  return [first, last];
}

/** openWindow chooses the shorter of the pod's lifetime (since created) and its last failure episode. */
export function openWindow(created: number, now: number, incidents: readonly number[]): OpenWindow {
  const born = Number.isFinite(created) ? Math.min(created, now) : now - MIN_WINDOW_MS;
  const pad = (a: number, b: number): [number, number] => {
    const span = Math.max(MIN_WINDOW_MS * (1 - 2 * PAD), b - a);
    const room = span * PAD;
    const from = Math.min(a, b - span) - room;
    return [from, b + room];
  };
  const [lifeFrom] = pad(born, now);
  const lifetime: OpenWindow = { from: lifeFrom, to: now, follow: true, reason: "lifetime" };
  const episode = lastEpisode(incidents.filter((t) => t >= born));
  if (episode === undefined) return lifetime;
  const [first, last] = episode;
  const ongoing = now - last <= EPISODE_GAP_MS;
  const [from, to] = pad(first, ongoing ? now : last);
  const candidate: OpenWindow = { from, to: ongoing ? now : to, follow: ongoing, reason: "episode" };
  return candidate.to - candidate.from < lifetime.to - lifetime.from ? candidate : lifetime;
}
