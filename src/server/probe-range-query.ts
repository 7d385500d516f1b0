// GET …/pods/{name}/probes?since=&until=&container=&probeType=: the range query of the probe
// history (beyond the API server). Times are RFC 3339; a malformed value, an inverted range or
// one longer than the history window is a 400 BadRequest naming the parameter.
import type { HistoryQuery } from "../prober/probe-history.js";
import { PROBE_TYPES, type ProbeType } from "../prober/probe-type.js";
import { badRequestStatus, StatusError } from "../apiserver/endpoints/status-object.js";

/** RANGE_PARAMETERS are the query parameters that make a probes request a range query. */
export const RANGE_PARAMETERS = ["since", "until", "container", "probeType"] as const;

/** Bound on a parameter's length (a timestamp is ~30 characters, a container name at most 63). */
const MAX_PARAMETER_CHARS = 256;

// RFC 3339 date-time: "2026-11-25T14:00:00Z", fractional seconds and a numeric offset allowed.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** isRangeQuery reports whether the request asks for a range (any of RANGE_PARAMETERS is present). */
export function isRangeQuery(query: URLSearchParams): boolean {
  return RANGE_PARAMETERS.some((p) => query.has(p));
}

/**
 * parseRangeQuery reads a range; an absent end is open (the history holds only the window). When
 * both ends are given the range may not be inverted nor longer than windowMs. A probeType is
 * "liveness", "readiness" or "startup" (any case).
 */
export function parseRangeQuery(query: URLSearchParams, windowMs: number): HistoryQuery {
  const until = time(query, "until");
  const since = time(query, "since");
  const out: HistoryQuery = {};
  if (since !== undefined && until !== undefined) {
    if (since > until) throw new StatusError(badRequestStatus(`invalid range: since (${new Date(since).toISOString()}) is after until (${new Date(until).toISOString()})`));
    if (until - since > windowMs) throw new StatusError(badRequestStatus(`invalid range: ${Math.ceil((until - since) / 1000)}s is longer than the probe history window of ${windowMs / 1000}s`));
  }
  if (since !== undefined) out.since = since;
  if (until !== undefined) out.until = until;
  const container = text(query, "container");
  if (container !== undefined && container !== "") out.container = container;
  const probeType = text(query, "probeType");
  if (probeType !== undefined && probeType !== "") {
    const type = probeType.toLowerCase() as ProbeType;
    if (!PROBE_TYPES.includes(type)) throw new StatusError(badRequestStatus(`invalid probeType "${probeType}": want liveness, readiness or startup`));
    out.probeType = type;
  }
  return out;
}

function text(query: URLSearchParams, key: string): string | undefined {
  const value = query.get(key);
  if (value !== null && value.length > MAX_PARAMETER_CHARS) throw new StatusError(badRequestStatus(`invalid ${key}: longer than ${MAX_PARAMETER_CHARS} characters`));
  return value ?? undefined;
}

function time(query: URLSearchParams, key: string): number | undefined {
  const value = text(query, key);
  if (value === undefined) return undefined;
  const ms = RFC3339.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw new StatusError(badRequestStatus(`invalid ${key} "${value}": want an RFC 3339 time such as 2006-01-02T15:04:05Z`));
  return ms;
}
