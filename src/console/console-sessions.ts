// Who may use the console in a browser: `probelet console` (which holds the agent's API token)
// asks the agent for a one-time login code; the console page trades the code for a session,
// which is two secrets: a cookie (HttpOnly, SameSite=Strict, so no script and no other site has
// it) and a key the page keeps in its sessionStorage and sends in a header with every request.
// A cookie alone opens nothing: cookies are not scoped by port, so any server on another port of
// 127.0.0.1 that the browser visits receives it, but never the key, which stays with the page's
// origin. Codes are single-use and short-lived, sessions expire, can be ended from the page
// (logout) and listed and revoked by the owner, and both are bounded in number; only SHA-256
// digests of the secrets are kept, so a heap dump holds no usable secret.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../util/clock.js";

/** LOGIN_CODE_TTL_MS is how long a login code may wait for its browser (60 s). */
export const LOGIN_CODE_TTL_MS = 60_000;
/** SESSION_TTL_MS is how long a console session lasts (12 h). */
export const SESSION_TTL_MS = 12 * 3600_000;
/** SESSION_COOKIE_PREFIX starts the session cookie's name; the agent's port ends it, so two agents' cookies never overwrite each other. */
export const SESSION_COOKIE_PREFIX = "probelet_session";
/** SESSION_KEY_HEADER carries the page's session key with every request. */
export const SESSION_KEY_HEADER = "x-probelet-session-key";

/** At most this many codes and sessions live at once; the oldest is dropped first. */
const MAX_CODES = 16;
const MAX_SESSIONS = 64;
/** Bytes of randomness in a code, a cookie and a key (256 bits each), and in a session's public ID. */
const SECRET_BYTES = 32;
const ID_BYTES = 8;
/** The most of a User-Agent kept to tell sessions apart. */
const MAX_USER_AGENT_CHARS = 200;

/** SessionInfo is what the owner sees of a session (`probelet console sessions`): never a secret. */
export interface SessionInfo {
  /** A public ID to revoke it by (not a credential). */
  id: string;
  /** RFC 3339 times. */
  created: string;
  lastUsed: string;
  expires: string;
  /** The address the login came from, and the browser's User-Agent. */
  source: string;
  userAgent: string;
}

/** NewSession is what a login hands the browser: the cookie value and the key. */
export interface NewSession {
  cookie: string;
  key: string;
  expires: number;
}

interface Session {
  id: string;
  keyDigest: Buffer;
  created: number;
  lastUsed: number;
  expires: number;
  source: string;
  userAgent: string;
}

/** ConsoleSessions issues login codes and sessions, and checks a request's cookie and key. */
export class ConsoleSessions {
  /** digest → expiry (ms since the epoch), oldest first. */
  private readonly codes = new Map<string, number>();
  /** digest of the cookie → session, oldest first. */
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly clock: Clock) {}

  /** issueCode returns a new single-use login code, valid for LOGIN_CODE_TTL_MS. */
  issueCode(): string {
    const code = randomBytes(SECRET_BYTES).toString("base64url");
    remember(this.codes, digest(code), this.clock.now() + LOGIN_CODE_TTL_MS, MAX_CODES);
    return code;
  }

  /**
   * exchange spends a login code and returns a new session, or undefined when the code is
   * unknown, used or expired. A code works once, whatever the outcome.
   */
  exchange(code: string, client: { source: string; userAgent: string }): NewSession | undefined {
    const key = digest(code);
    const expires = this.codes.get(key);
    this.codes.delete(key);
    const now = this.clock.now();
    if (expires === undefined || expires <= now) return undefined;
    const session: NewSession = { cookie: secret(), key: secret(), expires: now + SESSION_TTL_MS };
    const record: Session = {
      id: randomBytes(ID_BYTES).toString("hex"),
      keyDigest: Buffer.from(digest(session.key), "hex"),
      created: now,
      lastUsed: now,
      expires: session.expires,
      source: client.source,
      userAgent: client.userAgent.slice(0, MAX_USER_AGENT_CHARS),
    };
    remember(this.sessions, digest(session.cookie), record, MAX_SESSIONS);
    return session;
  }

  /** authenticate reports whether a cookie value and a key belong to one live session (and notes its use). */
  authenticate(cookie: string | undefined, key: string | undefined): boolean {
    const session = this.live(cookie);
    if (session === undefined || key === undefined) return false;
    if (!timingSafeEqual(Buffer.from(digest(key), "hex"), session.keyDigest)) return false;
    session.lastUsed = this.clock.now();
    return true;
  }

  /** end ends the session of a cookie (logout); false when there was none. */
  end(cookie: string | undefined): boolean {
    return cookie !== undefined && this.sessions.delete(digest(cookie));
  }

  /** list returns the live sessions, oldest first. */
  list(): SessionInfo[] {
    const now = this.clock.now();
    const out: SessionInfo[] = [];
    for (const [key, s] of this.sessions) {
      if (s.expires <= now) {
        this.sessions.delete(key);
        continue;
      }
      out.push({ id: s.id, created: iso(s.created), lastUsed: iso(s.lastUsed), expires: iso(s.expires), source: s.source, userAgent: s.userAgent });
    }
    return out;
  }

  /** revoke ends the session with this public ID, or every session when id is undefined; returns how many ended. */
  revoke(id: string | undefined): number {
    let count = 0;
    for (const [key, s] of this.sessions) {
      if (id !== undefined && s.id !== id) continue;
      this.sessions.delete(key);
      count++;
    }
    return count;
  }

  private live(cookie: string | undefined): Session | undefined {
    if (cookie === undefined || cookie === "") return undefined;
    const key = digest(cookie);
    const session = this.sessions.get(key);
    if (session === undefined) return undefined;
    if (session.expires > this.clock.now()) return session;
    this.sessions.delete(key);
    return undefined;
  }
}

/** sessionCookieName is the cookie name of the console served on port (port 0: a Unix socket, which serves no browser). */
export function sessionCookieName(port: number): string {
  return `${SESSION_COOKIE_PREFIX}_${port}`;
}

/** sessionCookie renders the Set-Cookie value for a session (Secure when served over HTTPS); an empty value with maxAgeSeconds 0 clears it. */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
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

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

function secret(): string {
  return randomBytes(SECRET_BYTES).toString("base64url");
}

function digest(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}
