// A point in time and an age as the console shows them (time-format.ts), each with the other
// forms in its tooltip.
import { ageText, timeText, timeTitle } from "./time-format";

/** Time shows a time as the local clock; its tooltip says how long ago and the UTC time. */
export function Time(props: { at: string | undefined; now: number }) {
  const ms = Date.parse(props.at ?? "");
  if (Number.isNaN(ms)) return <span class="muted">—</span>;
  return <time dateTime={props.at} title={timeTitle(ms, props.now)}>{timeText(ms, props.now)}</time>;
}

/** Age shows how long ago a time was ("3m12s"); its tooltip has the clock and the UTC time. */
export function Age(props: { since: string | undefined; now: number }) {
  const ms = Date.parse(props.since ?? "");
  if (Number.isNaN(ms)) return <span class="muted">—</span>;
  return <time dateTime={props.since} title={`${timeText(ms, props.now)} · ${new Date(ms).toISOString()}`}>{ageText(ms, props.now)}</time>;
}
