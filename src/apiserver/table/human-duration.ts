// Ages as kubectl and the API server's table printers show them
// (apimachinery pkg/util/duration.HumanDuration, printers.translateTimestampSince).

/** humanDuration renders an elapsed time in milliseconds: "45s", "3m20s", "5h", "2d5h", "3y". */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** timestampSince is translateTimestampSince: the age of an RFC 3339 time, "<unknown>" when there is none. */
export function timestampSince(timestamp: string | undefined | null, now: number): string {
  const at = Date.parse(timestamp ?? "");
  return Number.isNaN(at) ? "<unknown>" : humanDuration(now - at);
}
