// The console's own routes on the status server, and its half of authentication:
//   GET  /, /assets/…                 the built console (session cookie or bearer token)
//   POST /console/login-codes         a one-time login code (bearer token only: `probelet console`)
//   GET  /console/login?code=…        trades the code for a session cookie, then loads the console
//   GET  /console/explain/{ns}/{name} `probelet explain`'s text for the pod
// A session cookie also opens the API for GET and HEAD, and for the console's two actions only
// (console-writes.ts: delete a pod, probe now): a cookie can never create, change or apply anything.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, type AgentApi, type KubeEvent } from "../agent/agent-api.js";
import type { Pod } from "../api/types.js";
import { EVENTS } from "../apiserver/resources/events.js";
import { PODS } from "../apiserver/resources/pods.js";
import { StoreError } from "../apiserver/storage/store-errors.js";
import { explainPod } from "../cli/explain-pod.js";
import type { Clock } from "../util/clock.js";
import { ConsoleAssets, SECURITY_HEADERS } from "./console-assets.js";
import { ConsoleSessions, sessionCookie } from "./console-sessions.js";
import { consoleMayWrite } from "./console-writes.js";

/** LOGIN_CODES_PATH is where `probelet console` asks for a login code. */
export const LOGIN_CODES_PATH = "/console/login-codes";
/** LOGIN_PATH is the URL path the browser opens with ?code=. */
export const LOGIN_PATH = "/console/login";
const EXPLAIN_PREFIX = "/console/explain/";

/** A login code is 43 base64url characters; anything longer is refused unread. */
const MAX_CODE_CHARS = 128;

/** ConsoleRequest is what the gate needs of one request. */
export interface ConsoleRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  /** The request carries the API's bearer token (or the server has none). */
  bearer: boolean;
  api: AgentApi;
}

/** ConsoleGate serves the console's routes and says whether a request's cookie opens the API. */
export class ConsoleGate {
  private constructor(
    private readonly assets: ConsoleAssets,
    private readonly sessions: ConsoleSessions,
    private readonly clock: Clock,
    private readonly secure: boolean,
  ) {}

  /** create loads the built console; secure marks cookies Secure (HTTPS). */
  static async create(clock: Clock, secure: boolean, assets?: ConsoleAssets): Promise<ConsoleGate> {
    return new ConsoleGate(assets ?? (await ConsoleAssets.load()), new ConsoleSessions(clock), clock, secure);
  }

  /**
   * opensApi reports whether a request without the bearer token may use the API with its session
   * cookie: to read, and for the console's own few writes (console-writes.ts).
   */
  opensApi(req: IncomingMessage, path: string): boolean {
    return (req.method === "GET" || req.method === "HEAD" || consoleMayWrite(req, path)) && this.sessions.authenticate(req.headers.cookie);
  }

  /** handle answers the request when it is one of the console's routes and reports whether it did. */
  handle(r: ConsoleRequest): boolean {
    const method = r.req.method ?? "";
    if (r.path === LOGIN_CODES_PATH) {
      if (method !== "POST") return refuse(r.res, 405, "use POST");
      if (!r.bearer) return refuse(r.res, 401, "a login code needs the agent's API token: run `probelet console`");
      const code = this.sessions.issueCode();
      return send(r.res, 201, "application/json", `${JSON.stringify({ code, path: LOGIN_PATH })}\n`, { "Cache-Control": "no-store" });
    }
    if (r.path === LOGIN_PATH) return this.login(r);
    const isExplain = r.path.startsWith(EXPLAIN_PREFIX);
    if (!isExplain && !this.assets.has(r.path)) return false;
    if (method !== "GET" && method !== "HEAD") return refuse(r.res, 405, "use GET");
    if (!r.bearer && !this.opensApi(r.req, r.path)) return refuse(r.res, 401, "Unauthorized: open the console with `probelet console`");
    if (isExplain) return this.explain(r);
    this.assets.serve(r.res, r.path, method === "HEAD");
    return true;
  }

  private login(r: ConsoleRequest): boolean {
    const code = r.query.get("code") ?? "";
    const session = code.length > 0 && code.length <= MAX_CODE_CHARS ? this.sessions.exchange(code) : undefined;
    if (session === undefined) return refuse(r.res, 401, "this login code is unknown, used or expired: run `probelet console` again");
    // A page that moves on by itself rather than a redirect: the next request then comes from
    // the agent's own origin, so the SameSite=Strict cookie goes with it in every browser.
    const page = `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/"><title>probelet console</title><a href="/">Open the console</a>\n`;
    return send(r.res, 200, "text/html; charset=utf-8", page, { "Set-Cookie": sessionCookie(session, this.secure), "Cache-Control": "no-store" });
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

function refuse(res: ServerResponse, code: number, message: string): true {
  return send(res, code, "text/plain; charset=utf-8", `${message}\n`, { "Cache-Control": "no-store" });
}

function send(res: ServerResponse, code: number, contentType: string, body: string, headers: Record<string, string>): true {
  const payload = Buffer.from(body, "utf8");
  res.writeHead(code, { ...SECURITY_HEADERS, ...headers, "Content-Type": contentType, "Content-Length": payload.length });
  res.end(payload);
  return true;
}
