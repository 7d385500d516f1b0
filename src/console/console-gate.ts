// The console's own routes on the status server, and its half of authentication:
//   GET  /, /assets/…                 the built console: public files, no data (anyone)
//   POST /console/login-codes         a one-time login code (bearer token only: `probelet console`)
//   POST /console/sessions            the page trades {"code"} for a session: a cookie and a key
//   POST /console/logout              ends the request's session (session)
//   GET  /console/sessions            the live sessions (bearer token only)
//   DELETE /console/sessions[/{id}]   revokes one session, or all (bearer token only)
//   GET  /console/explain/{ns}/{name} `probelet explain`'s text for the pod (session or bearer)
// A session (its cookie and its key together, console-sessions.ts) also opens the API, for GET
// and HEAD only and never Secrets (server.ts): the console never changes anything, so a session
// can never be used to create or delete pods.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, type AgentApi, type KubeEvent } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { EVENTS } from "../apiserver/resources/events.js";
import { PODS } from "../apiserver/resources/pods.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import { explainPod } from "../cli/explain-pod.js";
import { readBody } from "../server/request-body.js";
import { sendStatus } from "../server/respond.js";
import { failureStatus, methodNotAllowedStatus, unauthorizedStatus, type MetaStatus } from "../server/status-object.js";
import type { Clock } from "../util/clock.js";
import { ConsoleAssets, SECURITY_HEADERS } from "./console-assets.js";
import { ConsoleSessions, readCookie, SESSION_KEY_HEADER, SESSION_TTL_MS, sessionCookie, sessionCookieName } from "./console-sessions.js";

/** LOGIN_CODES_PATH is where `probelet console` asks for a login code. */
export const LOGIN_CODES_PATH = "/console/login-codes";
/** SESSIONS_PATH is where the page trades a code for a session, and the owner lists and revokes sessions. */
export const SESSIONS_PATH = "/console/sessions";
/** LOGOUT_PATH ends the session of the request. */
export const LOGOUT_PATH = "/console/logout";
/** LOGIN_FRAGMENT starts the URL fragment that hands the page its code (never sent to a server). */
export const LOGIN_FRAGMENT = "#/login/";
const EXPLAIN_PREFIX = "/console/explain/";

/** A login code is 43 base64url characters; a body longer than this is refused unread. */
const MAX_LOGIN_BODY_BYTES = 1024;
const MAX_CODE_CHARS = 128;
/** A session's public ID: 16 hex digits. */
const SESSION_ID = /^[0-9a-f]{16}$/;

/** ConsoleRequest is what the gate needs of one request. */
export interface ConsoleRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  /** The request carries the API's bearer token (or the server has none). */
  bearer: boolean;
  /** The request carries a live session's cookie and key (authenticates() said so). */
  session: boolean;
  api: AgentApi;
}

/** ConsoleGate serves the console's routes and says whether a request's session opens the API. */
export class ConsoleGate {
  private cookieName = sessionCookieName(0);
  private consoleUrl = "";

  private constructor(
    private readonly assets: ConsoleAssets,
    private readonly sessions: ConsoleSessions,
    private readonly clock: Clock,
    private readonly secure: boolean,
  ) {}

  /** create loads the built console; secure marks cookies Secure (HTTPS). */
  static async create(sessions: ConsoleSessions, clock: Clock, secure: boolean, assets?: ConsoleAssets): Promise<ConsoleGate> {
    return new ConsoleGate(assets ?? (await ConsoleAssets.load()), sessions, clock, secure);
  }

  /**
   * listening tells the gate where browsers reach the console (login codes answer with it) and
   * the port its cookie is named after.
   */
  listening(consoleUrl: string, port: number): void {
    this.consoleUrl = consoleUrl.replace(/\/+$/, "");
    this.cookieName = sessionCookieName(port);
  }

  /** authenticates reports whether a request carries the cookie and the key of one live session. */
  authenticates(req: IncomingMessage): boolean {
    const key = req.headers[SESSION_KEY_HEADER];
    return this.sessions.authenticate(readCookie(req.headers.cookie, this.cookieName), typeof key === "string" ? key : undefined);
  }

  /** handle answers the request when it is one of the console's routes and reports whether it did. */
  handle(r: ConsoleRequest): boolean {
    const method = r.req.method ?? "";
    if (r.path === LOGIN_CODES_PATH) {
      if (method !== "POST") return refuse(r.res, 405, "use POST");
      if (!r.bearer) return refuseStatus(r.res, unauthorizedStatus());
      const code = this.sessions.issueCode();
      return sendJsonNoStore(r.res, 201, { code, url: `${this.consoleUrl}/${LOGIN_FRAGMENT}${code}` });
    }
    if (r.path === SESSIONS_PATH || r.path.startsWith(`${SESSIONS_PATH}/`)) return this.sessionsRoute(r, method);
    if (r.path === LOGOUT_PATH) {
      if (method !== "POST") return refuse(r.res, 405, "use POST");
      if (!r.session) return refuse(r.res, 401, "Unauthorized: no console session");
      this.sessions.end(readCookie(r.req.headers.cookie, this.cookieName));
      return sendJsonNoStore(r.res, 200, {}, { "Set-Cookie": sessionCookie(this.cookieName, "", 0, this.secure) });
    }
    const isExplain = r.path.startsWith(EXPLAIN_PREFIX);
    if (!isExplain && !this.assets.has(r.path)) return false;
    if (method !== "GET" && method !== "HEAD") return refuse(r.res, 405, "use GET");
    if (!isExplain) {
      this.assets.serve(r.res, r.path, method === "HEAD");
      return true;
    }
    if (!r.bearer && !r.session) return refuse(r.res, 401, "Unauthorized: open the console with `probelet console`");
    return this.explain(r);
  }

  /** sessionsRoute: POST logs in with a code; GET lists and DELETE revokes, for the token's holder only. */
  private sessionsRoute(r: ConsoleRequest, method: string): boolean {
    const id = r.path === SESSIONS_PATH ? undefined : r.path.slice(SESSIONS_PATH.length + 1);
    if (method === "POST" && id === undefined) return this.login(r);
    if (!r.bearer) return refuseStatus(r.res, unauthorizedStatus());
    if (method === "GET" && id === undefined) return sendJsonNoStore(r.res, 200, { items: this.sessions.list() });
    if (method !== "DELETE") return refuseStatus(r.res, methodNotAllowedStatus());
    const revoked = id === undefined || SESSION_ID.test(id) ? this.sessions.revoke(id) : 0;
    if (id !== undefined && revoked === 0) return refuseStatus(r.res, failureStatus(404, "NotFound", `console session "${id}" not found`));
    return sendJsonNoStore(r.res, 200, { revoked });
  }

  /** login trades the code in a small JSON body for a session; the answer sets the cookie and carries the key. */
  private login(r: ConsoleRequest): boolean {
    void readBody(r.req, MAX_LOGIN_BODY_BYTES)
      .then((body) => {
        const code = parseCode(body);
        const session = code === undefined ? undefined : this.sessions.exchange(code, { source: r.req.socket.remoteAddress ?? "local", userAgent: String(r.req.headers["user-agent"] ?? "") });
        if (session === undefined) return refuse(r.res, 401, "this login code is unknown, used or expired: run `probelet console` again");
        return sendJsonNoStore(r.res, 201, { key: session.key, expires: new Date(session.expires).toISOString() }, { "Set-Cookie": sessionCookie(this.cookieName, session.cookie, SESSION_TTL_MS / 1000, this.secure) });
      })
      .catch(() => refuse(r.res, 400, `the body must be {"code": "…"}, at most ${MAX_LOGIN_BODY_BYTES} bytes`));
    return true;
  }

  private explain(r: ConsoleRequest): boolean {
    const parts = r.path.slice(EXPLAIN_PREFIX.length).split("/").map(decode);
    const [ns, name] = parts;
    if (parts.length !== 2 || ns === undefined || name === undefined || ns === "" || name === "") return refuse(r.res, 404, "not found");
    try {
      const pod = r.api.store.mustGet<Pod>(PODS.name, ns, name);
      const events = r.api.store
        .list<KubeEvent>(EVENTS.name, { namespace: ns, filter: (e) => e.involvedObject.name === name && (pod.metadata.uid === undefined || e.involvedObject.uid === undefined || e.involvedObject.uid === pod.metadata.uid) })
        .items;
      const text = explainPod({ pod, events, history: r.api.probeHistory(ns, name), now: this.clock.now() });
      return send(r.res, 200, "text/plain; charset=utf-8", text, { "Cache-Control": "no-store" });
    } catch (err) {
      if (err instanceof ApiError || err instanceof StoreError) return refuse(r.res, err.code, err.message);
      throw err;
    }
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

/** parseCode reads {"code": "…"} from a login body. */
function parseCode(body: Buffer): string | undefined {
  try {
    const value = JSON.parse(body.toString("utf8")) as { code?: unknown } | null;
    const code = value?.code;
    return typeof code === "string" && code.length > 0 && code.length <= MAX_CODE_CHARS ? code : undefined;
  } catch {
    return undefined;
  }
}

function sendJsonNoStore(res: ServerResponse, code: number, value: unknown, headers: Record<string, string> = {}): true {
  return send(res, code, "application/json", `${JSON.stringify(value)}\n`, { ...headers, "Cache-Control": "no-store" });
}

/** refuseStatus answers the CLI's routes with a Status, as the API does (the CLI prints kubectl's text for it). */
function refuseStatus(res: ServerResponse, status: MetaStatus): true {
  sendStatus(res, status, { "Cache-Control": "no-store" });
  return true;
}

function refuse(res: ServerResponse, code: number, message: string): true {
  return send(res, code, "text/plain; charset=utf-8", `${message}\n`, { "Cache-Control": "no-store" });
}

function send(res: ServerResponse, code: number, contentType: string, body: string, headers: Record<string, string>): true {
  const payload = Buffer.from(body, "utf8");
  res.writeHead(code, { ...SECURITY_HEADERS, ...headers, "Content-Type": contentType, "Content-Length": payload.length });
  res.end(payload);
  return true;
}
