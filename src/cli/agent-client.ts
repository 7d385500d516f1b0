// The CLI's client for the agent's status API (docs/http-api.md): pods, events, watches and
// logs over HTTP(S) or the agent's Unix socket through the one REST client (client/rest-client.ts),
// with the agent's metav1.Status failures turned into kubectl's error texts. Also how a client command gets its client from the command line
// (--server, --state-dir, --token-file, -n; client-credentials.ts says where requests go).
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { KubeEvent, WatchEvent } from "../apiserver/endpoints/host-interface.js";
import { goQuote } from "../api/field-errors.js";
import { ApiStatusError, REQUEST_TIMEOUT_MS, RestClient, type ApiStatus } from "../client/rest-client.js";
import type { Pod } from "../api/types.js";
import type { ProbeHistoryEntry, ProbeHistorySegment } from "../prober/probe-history.js";
import { systemClock } from "../util/clock.js";
import { UsageError } from "./args.js";
import { agentTarget, type AgentTarget, type CredentialFlags, type Credentials } from "./client-credentials.js";

/** EXAMPLE_SERVER is the status API's usual address, for messages. */
export const EXAMPLE_SERVER = "http://127.0.0.1:10255";

/** StatusCause is one cause of a metav1.Status (a field error for reason Invalid). */
export type StatusCause = { reason?: string; message?: string; field?: string };

/** ServerStatus is a metav1.Status as the agent answers failures. */
export type ServerStatus = {
  kind?: string; status?: string; message?: string; reason?: string; code?: number;
  details?: { name?: string; kind?: string; causes?: StatusCause[] };
};

/** ServerStatusError is a failure the agent answered with; its message is kubectl's text for it (and a hint, when there is one). */
export class ServerStatusError extends Error {
  override readonly name = "ServerStatusError";
  constructor(
    readonly status: ServerStatus,
    hint?: string,
  ) {
    super(hint === undefined ? formatStatusError(status) : `${formatStatusError(status)}\n${hint}`);
  }
}

/** AgentUnreachableError means nothing answered at the server URL or the state directory's socket (e.g. connection refused). */
export class AgentUnreachableError extends Error {
  override readonly name = "AgentUnreachableError";
  constructor(readonly server: string) {
    super(`cannot reach the probelet agent at ${server}: is "probelet run" running${server.startsWith("unix:") ? " with this state directory? (or pass --server URL)" : "?"}`);
  }
}

/**
 * formatStatusError renders a Status as kubectl's StandardErrorMessage does: Invalid lists the
 * causes (`The Pod "web" is invalid: <field>: <message>`, one `* ` line each when several),
 * Unauthorized asks to log in, any other reason is `Error from server (<Reason>): <message>`
 * (kubectl pkg/cmd/util/helpers.go).
 */
export function formatStatusError(status: ServerStatus): string {
  const message = status.message ?? "";
  const reason = status.reason ?? "";
  if (reason === "Invalid") return formatInvalid(status);
  if (reason === "Unauthorized") return `error: You must be logged in to the server (${message})`;
  return reason !== "" ? `Error from server (${reason}): ${message}` : `Error from server: ${message}`;
}

function formatInvalid(status: ServerStatus): string {
  const details = status.details;
  let head = "The request is invalid";
  if (details === undefined) return status.message ? `${head}: ${status.message}` : head;
  if (details.kind || details.name) head = `The ${details.kind ?? ""} ${goQuote(details.name ?? "")} is invalid`;
  else if (status.message) head += `: ${status.message}`;
  // kubectl statusCausesToAggrError: "<field>: <message>", repeats dropped.
  const causes = [...new Set((details.causes ?? []).map(causeText))];
  if (causes.length === 0) return head;
  if (causes.length === 1) return `${head}: ${causes[0] ?? ""}`;
  return `${head}: \n${causes.map((c) => `* ${c}`).join("\n")}`;
}

function causeText(cause: StatusCause): string {
  const field = cause.field ?? "";
  const message = cause.message ?? "";
  // A message that already starts with its field path is not prefixed twice.
  return field !== "" && message.startsWith(`${field}: `) ? message : `${field}: ${message}`;
}

/** ClientOptions configure a StatusClient. */
export interface ClientOptions {
  /** Base URL of the status API, e.g. "http://127.0.0.1:10255", or "unix:PATH" with credentials that give the socket. */
  server: string;
  /** Sent as "Authorization: Bearer <token>". */
  token?: string;
  /** Read once before the first request: the token (when `token` is not set), the CA for HTTPS, or the socket. */
  credentials?: () => Promise<Credentials>;
  /** Said after a 401 when no token was sent (how to give one). */
  unauthorizedHint?: string;
  /** Aborts every request and stream (Ctrl-C). */
  signal: AbortSignal;
}

/** LogOptions select a container log (kubectl logs flags; sinceTime is RFC 3339). */
export type LogOptions = {
  container?: string; previous?: boolean; follow?: boolean; tailLines?: number; timestamps?: boolean;
  sinceSeconds?: number; sinceTime?: string; limitBytes?: number;
};

/** ListSelectors narrow a list or watch on the server (the labelSelector and fieldSelector parameters). */
export type ListSelectors = { labelSelector?: string; fieldSelector?: string };

/** TABLE_ACCEPT asks for a meta.k8s.io Table and takes plain JSON from a server that has no Tables (as kubectl get does). */
export const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

/** selectorQuery renders selectors (and extra parameters) as a query string: "" or "?…". */
export function selectorQuery(selectors: ListSelectors, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (selectors.labelSelector !== undefined) query.set("labelSelector", selectors.labelSelector);
  if (selectors.fieldSelector !== undefined) query.set("fieldSelector", selectors.fieldSelector);
  return query.size > 0 ? `?${query.toString()}` : "";
}

/** Connection failures that mean no agent listens (ENOENT: no socket in the state directory). */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EADDRNOTAVAIL", "EAI_AGAIN", "ENOENT"]);

/** StatusClient talks to one agent's status API; every call rejects with ServerStatusError or AgentUnreachableError. */
export class StatusClient {
  /** server is the base URL this client talks to. */
  readonly server: string;
  private rest: Promise<RestClient> | undefined;
  /** Whether the requests carry a token (known once the credentials are read). */
  private tokenSent = false;

  constructor(private readonly options: ClientOptions) {
    this.server = options.server;
  }

  /** listPods lists the pods of a namespace, or of all namespaces when it is undefined, narrowed by selectors. */
  async listPods(namespace: string | undefined, selectors: ListSelectors = {}): Promise<Pod[]> {
    const list = (await this.json("GET", podsPath(namespace) + selectorQuery(selectors))) as { items?: Pod[] };
    return list.items ?? [];
  }

  /** getPod fetches one pod (NotFound as a ServerStatusError). */
  async getPod(namespace: string, name: string): Promise<Pod> {
    return (await this.json("GET", podPath(namespace, name))) as Pod;
  }

  /** findPod is getPod that resolves undefined instead of failing with NotFound. */
  async findPod(namespace: string, name: string): Promise<Pod | undefined> {
    try {
      return await this.getPod(namespace, name);
    } catch (err) {
      if (err instanceof ServerStatusError && err.status.reason === "NotFound") return undefined;
      throw err;
    }
  }

  /** createPod POSTs a pod as JSON into a namespace. */
  async createPod(namespace: string, pod: unknown): Promise<Pod> {
    return (await this.json("POST", podsPath(namespace), pod)) as Pod;
  }

  /** deletePod starts a graceful deletion and resolves with the pod as it is now. */
  async deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Promise<Pod> {
    const query = gracePeriodSeconds === undefined ? "" : `?gracePeriodSeconds=${gracePeriodSeconds}`;
    return (await this.json("DELETE", podPath(namespace, name) + query)) as Pod;
  }

  /** listEvents lists events of a namespace (or all), narrowed by selectors. */
  async listEvents(namespace: string | undefined, selectors: ListSelectors = {}): Promise<KubeEvent[]> {
    const list = (await this.json("GET", eventsPath(namespace) + selectorQuery(selectors))) as { items?: KubeEvent[] };
    return list.items ?? [];
  }

  /**
   * listPodEvents lists a pod's events as kubectl describe selects them: by the pod's name,
   * namespace and UID, so the events of an older pod of the same name are left out.
   */
  async listPodEvents(namespace: string, pod: Pod): Promise<KubeEvent[]> {
    const name = pod.metadata.name ?? "";
    const selector = [`involvedObject.name=${name}`, `involvedObject.namespace=${namespace}`, ...(pod.metadata.uid ? [`involvedObject.uid=${pod.metadata.uid}`] : [])];
    return this.listEvents(namespace, { fieldSelector: selector.join(",") });
  }

  /** probeHistory fetches a pod's last probes, oldest first. */
  async probeHistory(namespace: string, name: string): Promise<ProbeHistoryEntry[]> {
    const list = (await this.json("GET", `${podPath(namespace, name)}/probes`)) as { items?: ProbeHistoryEntry[] };
    return list.items ?? [];
  }

  /** probeHistoryRuns fetches a pod's probe history as runs of identical results, oldest first. */
  async probeHistoryRuns(namespace: string, name: string): Promise<ProbeHistorySegment[]> {
    const list = (await this.json("GET", `${podPath(namespace, name)}/probes`)) as { runs?: ProbeHistorySegment[] };
    return list.runs ?? [];
  }

  /**
   * getResource GETs any object or list of the API by its path (e.g. /api/v1/nodes); with
   * asTable it asks for a meta.k8s.io Table, which a server without Tables answers as plain JSON.
   */
  async getResource(path: string, asTable = false): Promise<unknown> {
    return this.call((rest) => rest.request<unknown>("GET", path, { signal: this.options.signal, ...(asTable ? { accept: TABLE_ACCEPT } : {}) }));
  }

  /** watchResource streams the changes of any collection of the API by its path (query included). */
  async *watchResource<T>(pathWithQuery: string): AsyncIterable<WatchEvent<T>> {
    for await (const event of this.iterate((rest) => rest.watchEvents<T>(pathWithQuery, this.options.signal))) {
      if (event.type === "ERROR") throw new ServerStatusError(event.object as ServerStatus);
      yield event as WatchEvent<T>;
    }
  }

  /** deleteResource DELETEs any object of the API by its path and resolves with the server's answer. */
  async deleteResource(path: string): Promise<unknown> {
    return this.json("DELETE", path);
  }

  /** streamLogs yields a container log as text chunks; with follow it lasts until the stream ends or the signal aborts. */
  async *streamLogs(namespace: string, name: string, options: LogOptions): AsyncIterable<string> {
    const query = new URLSearchParams();
    if (options.container !== undefined) query.set("container", options.container);
    for (const flag of ["previous", "follow", "timestamps"] as const) if (options[flag] === true) query.set(flag, "true");
    for (const number of ["tailLines", "sinceSeconds", "limitBytes"] as const) {
      if (options[number] !== undefined) query.set(number, String(options[number]));
    }
    if (options.sinceTime !== undefined) query.set("sinceTime", options.sinceTime);
    const suffix = query.size > 0 ? `?${query.toString()}` : "";
    const path = `${podPath(namespace, name)}/log${suffix}`;
    // A log is streamed, never buffered (its rotated files may hold more than a response's bound);
    // only a followed one lasts beyond the request deadline.
    const deadline = options.follow === true ? undefined : REQUEST_TIMEOUT_MS;
    yield* this.iterate((rest) => rest.stream(path, this.options.signal, deadline));
  }

  /** text GETs any path of the agent and resolves with the answer as text (e.g. /healthz). */
  async text(path: string): Promise<string> {
    return this.call((rest) => rest.requestText("GET", path, { signal: this.options.signal, accept: "text/plain" }));
  }

  /** json makes a request to any path of the agent (the API, the console's) and resolves with the JSON answer; a body is sent as JSON. */
  async json(method: string, path: string, body?: unknown): Promise<unknown> {
    return this.call((rest) => rest.request<unknown>(method, path, { signal: this.options.signal, ...(body !== undefined ? { body } : {}) }));
  }

  /**
   * call runs one request on the REST client (made on the first call, from the credentials) and
   * turns its failures into the CLI's: a refusal into a ServerStatusError, a dead address into an
   * AgentUnreachableError, a deadline into "did not answer".
   */
  private async call<T>(run: (rest: RestClient) => Promise<T>): Promise<T> {
    const rest = await (this.rest ??= this.restClient());
    try {
      return await run(rest);
    } catch (err) {
      throw this.failure(err);
    }
  }

  /** iterate is call for a stream: every step's failure is turned into the CLI's, the opening's included. */
  private async *iterate<T>(open: (rest: RestClient) => AsyncIterable<T>): AsyncIterable<T> {
    const rest = await (this.rest ??= this.restClient());
    try {
      yield* open(rest);
    } catch (err) {
      throw this.failure(err);
    }
  }

  private failure(err: unknown): unknown {
    if (this.options.signal.aborted) return this.options.signal.reason;
    if (err instanceof ApiStatusError) {
      const hint = err.code === 401 && !this.tokenSent ? this.options.unauthorizedHint : undefined;
      return new ServerStatusError(statusOf(err), hint);
    }
    return this.transportError(err);
  }

  private async restClient(): Promise<RestClient> {
    const credentials = (await this.options.credentials?.().catch((err: unknown) => {
      // The state directory's own refusals say what is wrong with it and how to fix it.
      if (err instanceof Error && (err.name === "NoAgentError" || err.name === "StateDirectoryError")) throw err;
      throw new Error(`cannot read the credentials for ${this.server}: ${err instanceof Error ? err.message : String(err)}`);
    })) ?? {};
    const token = this.options.token ?? credentials.token;
    this.tokenSent = token !== undefined;
    return new RestClient({
      clock: systemClock,
      credentials: {
        // Over the socket the URL gives only the scheme and the path.
        server: credentials.socketPath !== undefined ? "http://localhost" : this.options.server,
        ...(token !== undefined ? { token } : {}),
        ...(credentials.ca !== undefined ? { ca: credentials.ca } : {}),
        ...(credentials.socketPath !== undefined ? { socketPath: credentials.socketPath } : {}),
      },
    });
  }

  /** transportError words a failed connection (the REST client's error, the system's as its cause) or a passed deadline; other errors stay as they are. */
  private transportError(err: unknown): unknown {
    const cause = (err as { cause?: unknown }).cause;
    const code = ((cause ?? err) as { code?: unknown }).code;
    if (code === "ETIMEDOUT") return new Error(`the probelet agent at ${this.server} did not answer within ${REQUEST_TIMEOUT_MS / 1000}s`);
    if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return new AgentUnreachableError(this.server);
    // Any other failed connection: its cause says what (e.g. a TLS verification failure).
    if (cause instanceof Error) return new Error(`cannot reach the probelet agent at ${this.server}: ${cause.message}`);
    return err;
  }
}

/** statusOf is the Status a refusal carried; a body that is not one becomes kubectl's "an error on the server" text. */
function statusOf(err: ApiStatusError): ServerStatus {
  const body: ApiStatus | undefined = err.status;
  if (body?.kind === "Status") return body as ServerStatus;
  const snippet = (err.text ?? "").trim().slice(0, 200) || "unknown";
  return { reason: err.code >= 500 ? "InternalError" : "BadRequest", code: err.code, message: `an error on the server (${goQuote(snippet)}) has prevented the request from succeeding` };
}

const podsPath = (ns: string | undefined): string => (ns === undefined ? "/api/v1/pods" : `/api/v1/namespaces/${encodeURIComponent(ns)}/pods`);
const podPath = (ns: string, name: string): string => `${podsPath(ns)}/${encodeURIComponent(name)}`;
const eventsPath = (ns: string | undefined): string => (ns === undefined ? "/api/v1/events" : `/api/v1/namespaces/${encodeURIComponent(ns)}/events`);

// ---- How a client command gets its flags and client ----

/** CLIENT_OPTIONS are the flags every client command takes (parseArgs option config). */
export const CLIENT_OPTIONS = {
  server: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  "certificate-authority": { type: "string" },
  "state-dir": { type: "string" },
  namespace: { type: "string", short: "n" },
  help: { type: "boolean", short: "h" },
} as const;

/** CLIENT_FLAGS_HELP documents CLIENT_OPTIONS in each command's --help. */
export const CLIENT_FLAGS_HELP = `      --state-dir DIR       the local agent's state directory (default $PROBELET_STATE_DIR or
                            ~/.local/state/probelet): its agent is reached on the Unix socket
                            DIR/agent.sock with the token DIR/agent-token
      --server URL          another address of the agent (default $PROBELET_SERVER), e.g. ${EXAMPLE_SERVER}
      --token-file FILE     the agent's token (default $PROBELET_TOKEN, $PROBELET_TOKEN_FILE, else the
                            state directory's, which goes only to its socket or to an https:// server
                            holding the state directory's certificate)
      --certificate-authority FILE
                            the CA to trust for an https:// agent (default $PROBELET_CA_FILE, else
                            the state directory's serving certificate)
  -n, --namespace NS        the namespace (default "default")
  -h, --help                show this help`;

/**
 * parseCommandArgs runs parseArgs (strict, positionals allowed) and turns its errors into
 * UsageErrors. Boolean flags also accept kubectl's `--flag=true` and `--flag=false`.
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig["options"]>>(argv: readonly string[], options: O): CommandArgs<O> {
  const forcedFalse: string[] = [];
  const args = argv.flatMap((arg) => {
    const m = /^--([^=]+)=(true|false)$/.exec(arg);
    if (m === null || options[m[1] ?? ""]?.type !== "boolean") return [arg];
    if (m[2] === "true") return [`--${m[1]}`];
    forcedFalse.push(m[1] ?? "");
    return [];
  });
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    for (const name of forcedFalse) (parsed.values as Record<string, unknown>)[name] = false;
    return parsed;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const option = /'(-[^', ]+)/.exec(message)?.[1] ?? "";
    const code = (err as { code?: unknown }).code;
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(`unknown flag: ${option}`);
    if (message.includes("argument missing")) throw new UsageError(`flag needs an argument: ${option}`);
    if (message.includes("ambiguous")) throw new UsageError(`flag ${option}: a value starting with "-" must be written as ${option}=VALUE`);
    throw new UsageError(message);
  }
}

/** CommandArgs is what parseCommandArgs returns for an option config: typed values and positionals. */
export type CommandArgs<O extends NonNullable<ParseArgsConfig["options"]>> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** ClientFlags are the parsed CLIENT_OPTIONS. */
export interface ClientFlags extends CredentialFlags {
  server?: string | undefined;
  /** Refused: a token on the command line is visible to every user through ps. */
  token?: string | undefined;
  namespace?: string | undefined;
}

/**
 * clientFromFlags builds the client: --server, else $PROBELET_SERVER, else the state directory's
 * socket; the credentials as client-credentials.ts finds them.
 */
export function clientFromFlags(flags: ClientFlags, signal: AbortSignal, env: NodeJS.ProcessEnv = process.env): StatusClient {
  const target = targetFromFlags(flags, env);
  return new StatusClient({
    server: target.server,
    signal,
    credentials: target.credentials,
    ...(target.explicit ? { unauthorizedHint: `(no token was sent to ${target.server}: the state directory's token goes only to its agent's socket, or to an https:// server holding the state directory's certificate; give one with --token-file FILE or $PROBELET_TOKEN_FILE)` } : {}),
  });
}

/**
 * targetFromFlags checks --server (else $PROBELET_SERVER) and --token, and says where requests
 * go: that server, or the state directory's agent.
 */
export function targetFromFlags(flags: ClientFlags, env: NodeJS.ProcessEnv = process.env): AgentTarget {
  if (flags.token !== undefined) throw new UsageError("--token would show the token to every user of this machine (ps): use --token-file FILE or $PROBELET_TOKEN");
  const server = flags.server ?? (env["PROBELET_SERVER"] || undefined);
  return agentTarget(flags, server === undefined ? undefined : parseServerUrl(server), env);
}

/** parseServerUrl checks a --server value: an http:// or https:// URL. */
export function parseServerUrl(server: string): URL {
  const bad = new UsageError(`invalid server URL "${server}": want an http:// or https:// URL such as ${EXAMPLE_SERVER}`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw bad;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw bad;
  return url;
}

/**
 * reportClientError prints a client failure as kubectl would and returns the exit code: 1 for
 * Status errors and an unreachable agent, 130 when the user interrupted. Other errors rethrow.
 */
export function reportClientError(err: unknown, stderr: (text: string) => void, signal: AbortSignal): number {
  if (err instanceof ServerStatusError) stderr(`${err.message}\n`);
  else if (err instanceof AgentUnreachableError) stderr(`error: ${err.message}\n`);
  else if (signal.aborted) return 130;
  else throw err;
  return 1;
}

/**
 * forEachPod runs `each` for every pod name in turn. A pod the server refuses (a Status such as
 * NotFound) is reported on stderr as kubectl reports it and makes the exit code 1, as does `each`
 * resolving false (it has reported the failure itself); the other names still run. Any other failure
 * ends the loop with reportClientError's code (130 once the user interrupted).
 */
export async function forEachPod(names: readonly string[], ctx: { stderr: (text: string) => void; signal: AbortSignal }, each: (name: string) => Promise<boolean>): Promise<number> {
  let code = 0;
  try {
    for (const name of names) {
      try {
        if ((await each(name)) === false) code = 1;
      } catch (err) {
        if (!(err instanceof ServerStatusError)) throw err;
        ctx.stderr(`${err.message}\n`);
        code = 1;
      }
    }
    return code;
  } catch (err) {
    return reportClientError(err, ctx.stderr, ctx.signal);
  }
}
