// Who may use the console in a browser: `probelet console` (which holds the agent's API token)
// asks the agent for a one-time login code; the browser trades the code for a session cookie
// (HttpOnly, SameSite=Strict). Codes are single-use and short-lived, sessions expire, and both
// are bounded in number; only their SHA-256 digests are kept, so a heap dump holds no usable secret.
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../util/clock.js";

/** LOGIN_CODE_TTL_MS is how long a login code may wait for its browser (60 s). */
export const LOGIN_CODE_TTL_MS = 60_000;
/** SESSION_TTL_MS is how long a console session lasts (12 h). */
export const SESSION_TTL_MS = 12 * 3600_000;
/** SESSION_COOKIE is the console session cookie's name. */
export const SESSION_COOKIE = "probelet_session";

/** At most this many codes and sessions live at once; the oldest is dropped first. */
const MAX_CODES = 16;
const MAX_SESSIONS = 64;
/** Bytes of randomness in a code and in a session id (256 bits each). */
const SECRET_BYTES = 32;

/** ConsoleSessions issues login codes and checks session cookies. */
export class ConsoleSessions {
  /** digest → expiry (ms since the epoch), oldest first. */
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** issueCode returns a new single-use login code, valid for LOGIN_CODE_TTL_MS. */
  issueCode(): string {
    const code = randomBytes(SECRET_BYTES).toString("base64url");
    remember(this.codes, digest(code), this.clock.now() + LOGIN_CODE_TTL_MS, MAX_CODES);
    return code;
  }

  /**
   * exchange spends a login code and returns a new session id, or undefined when the code is
   * unknown, used or expired. A code works once, whatever the outcome.
   */
  exchange(code: string): string | undefined {
    const key = digest(code);
    const expires = this.codes.get(key);
    this.codes.delete(key);
    if (expires === undefined || expires <= this.clock.now()) return undefined;
    const session = randomBytes(SECRET_BYTES).toString("base64url");
    remember(this.sessions, digest(session), this.clock.now() + SESSION_TTL_MS, MAX_SESSIONS);
    return session;
  }

  /** authenticate reports whether a Cookie header carries a live session. */
  authenticate(cookieHeader: string | undefined): boolean {
    const session = readCookie(cookieHeader, SESSION_COOKIE);
    if (session === undefined) return false;
    const key = digest(session);
    const expires = this.sessions.get(key);
    if (expires === undefined) return false;
    if (expires > this.clock.now()) return true;
    this.sessions.delete(key);
    return false;
  }
}

/** sessionCookie renders the Set-Cookie value for a session (Secure when served over HTTPS). */
export function sessionCookie(session: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secure ? "; Secure" : ""}`;
}

/** readCookie finds one cookie's value in a Cookie header (RFC 6265 "name=value; name=value"). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header.length > 8192) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function remember(map: Map<string, number>, key: string, expires: number, max: number): void {
  map.set(key, expires);
  while (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

function digest(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}
