// Query-parameter decoding with the API server's rules, so `?watch=1`, `?follow` and
// `?previous=false` mean what they mean to kubectl and curl users.
import { badRequestStatus, StatusError } from "./status-object.js";

/**
 * queryBool reads a boolean parameter as apimachinery's Convert_Slice_string_To_bool does:
 * absent is false, "false" (any case) and "0" are false, anything else, even "", is true.
 */
export function queryBool(query: URLSearchParams, key: string): boolean {
  const value = query.get(key);
  if (value === null) return false;
  return !(value === "0" || value.toLowerCase() === "false");
}

/**
 * queryNonNegativeInt reads an optional whole number (e.g. tailLines, gracePeriodSeconds).
 * Absent gives undefined; anything but a decimal integer >= 0 is a 400 BadRequest.
 */
export function queryNonNegativeInt(query: URLSearchParams, key: string): number | undefined {
  const value = query.get(key);
  if (value === null) return undefined;
  return nonNegativeInt(key, value);
}

/** nonNegativeInt checks one whole-number value, throwing a 400 StatusError naming the parameter. */
export function nonNegativeInt(key: string, value: unknown): number {
  const n = typeof value === "string" && /^\+?\d{1,15}$/.test(value.trim()) ? Number(value) : value;
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return n;
  const shown = typeof value === "string" ? `"${value}"` : JSON.stringify(value) ?? String(value);
  throw new StatusError(badRequestStatus(`invalid ${key} ${shown}: must be a non-negative integer`));
}
