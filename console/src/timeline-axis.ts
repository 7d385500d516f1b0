// The timeline's time axis and its labels: ticks on round local times (every 10 s, 1 min, 15 min,
// 1 h…, as many as fit), each labelled in the console's one time format, and labels placed so
// that none is cut off at an edge and none overlaps another.
import { clockText, dayText } from "./time-format";

/** TICK_STEPS are the round intervals ticks may fall on, in ms. */
const TICK_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400].map((s) => s * 1000);

/** An axis label is about this wide per character, in the chart's units (10 px system font). */
export const CHAR_WIDTH = 6;

/** Tick is one tick of the axis: its time and its label. */
export interface Tick {
  t: number;
  label: string;
}

/** localOffsetMs is how far local time is ahead of UTC at t, so ticks fall on round local times. */
function localOffsetMs(t: number): number {
  return -new Date(t).getTimezoneOffset() * 60_000;
}

/**
 * axisTicks picks the smallest round step that gives at most maxTicks ticks in [from, to] and
 * labels each tick: "14:05" (with seconds when the step is under a minute), the day in front of
 * the first tick and of each new day when the range is not within today.
 */
export function axisTicks(from: number, to: number, maxTicks: number, now: number): Tick[] {
  const span = Math.max(1, to - from);
  const step = TICK_STEPS.find((s) => span / s <= maxTicks) ?? TICK_STEPS[TICK_STEPS.length - 1]!;
  const offset = localOffsetMs(from);
  const ticks: Tick[] = [];
  const today = dayText(now);
  let day = "";
  for (let t = Math.ceil((from + offset) / step) * step - offset; t <= to && ticks.length <= maxTicks; t += step) {
    const d = dayText(t);
    const showDay = d !== day && (ticks.length > 0 || d !== today);
    day = d;
    ticks.push({ t, label: `${showDay ? `${d} ` : ""}${clockText(t, step < 60_000)}` });
  }
  return ticks;
}

/** PlacedLabel is where a label goes: its anchor x and text-anchor. */
export interface PlacedLabel<T> {
  item: T;
  x: number;
  anchor: "start" | "middle" | "end";
}

/**
 * placeLabels lays labels out left to right between minX and maxX: centred on their x, or pushed
 * to start or end at an edge so none is cut off, and skipped when they would overlap the one
 * before (a gap of `gap` units at least). Items must come sorted by x.
 */
export function placeLabels<T>(items: readonly { item: T; x: number; text: string }[], minX: number, maxX: number, gap = 6): PlacedLabel<T>[] {
  const placed: PlacedLabel<T>[] = [];
  let rightEdge = -Infinity;
  for (const { item, x, text } of items) {
    const width = text.length * CHAR_WIDTH;
    let left = x - width / 2;
    let anchor: PlacedLabel<T>["anchor"] = "middle";
    let at = x;
    if (left < minX) {
      left = minX;
      anchor = "start";
      at = minX;
    } else if (x + width / 2 > maxX) {
      left = maxX - width;
      anchor = "end";
      at = maxX;
    }
    if (left < rightEdge + gap) continue;
    rightEdge = left + width;
    placed.push({ item, x: at, anchor });
  }
  return placed;
}
