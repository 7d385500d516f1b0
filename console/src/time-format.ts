// One way to show a point in time everywhere (tables, the chart's axis, its details): the local
// 24-hour clock, "14:03:22", with the day in front when it is not today; the other forms (how
// long ago, and the exact UTC time) go in its tooltip. Durations read as kubectl prints ages.
import { humanDuration } from "../../src/apiserver/table/human-duration";

const pad = (n: number): string => String(n).padStart(2, "0");

/** sameDay reports whether two times fall on the same local day. */
function sameDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

/** dayText is a short local date: "Jan 5". */
export function dayText(ms: number): string {
  return new Date(ms).toLocaleDateString([], { month: "short", day: "numeric" });
}

/** clockText is "14:03" or, with seconds, "14:03:22" (local, 24-hour). */
export function clockText(ms: number, seconds = true): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ""}`;
}

/** timeText is how the console shows a time: the clock, with the day when it is not today. */
export function timeText(ms: number, now: number, seconds = true): string {
  return sameDay(ms, now) ? clockText(ms, seconds) : `${dayText(ms)} ${clockText(ms, seconds)}`;
}

/** timeTitle is a time's tooltip: how long ago, and the exact time in UTC. */
export function timeTitle(ms: number, now: number): string {
  const ago = now >= ms ? `${humanDuration(now - ms)} ago` : `in ${humanDuration(ms - now)}`;
  return `${ago} · ${new Date(ms).toISOString()}`;
}

/** ageText is how long ago a time was, as kubectl prints ages ("3m12s"); "" without a time. */
export function ageText(ms: number, now: number): string {
  return Number.isNaN(ms) ? "" : humanDuration(now - ms);
}
