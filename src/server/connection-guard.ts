// Bounded connections for every listener of the agent (the status API over HTTP and HTTPS, its
// Unix socket, and the daemon endpoint of cluster mode), so that silent connections from
// someone without credentials never lock the owner out (no free file descriptor, no free slot):
//   - a connection is "unproven" until a request on it has been authenticated (a bearer token,
//     a session, a client certificate); unproven connections are bounded in number per source
//     address and in total, and past a bound the oldest unproven one is closed, so a new
//     connection (perhaps the owner's) always gets its chance to prove itself;
//   - proven connections do not count against those bounds: room is kept for them;
//   - every connection, proven or not, counts against a total bound that leaves room in the
//     process's file descriptor limit for the agent's own work (its runtime, its log files).
// Listeners share one budget per process (LISTENER_TIMEOUTS bound how long each connection may be
// silent), so two listeners cannot together take more than one bound allows.
import { readFileSync } from "node:fs";
import type { Server as NetServer, Socket } from "node:net";
import { silentLogger, type Logger } from "../util/logger.js";

/** ConnectionLimits bound the connections of one budget. */
export interface ConnectionLimits {
  /** Connections that have not made an authenticated request yet, from all sources together. */
  maxUnproven: number;
  /** Unproven connections from one source address. */
  maxUnprovenPerSource: number;
  /** Every connection of the budget, proven or not. */
  maxTotal: number;
}

/**
 * LISTENER_TIMEOUTS bound a connection's silence on every listener: the TLS handshake, the
 * request headers, the whole request, and an idle keep-alive connection between requests.
 */
export const LISTENER_TIMEOUTS = Object.freeze({
  handshakeTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
});

/** The fd limit assumed when /proc/self/limits cannot be read (Linux's usual soft limit). */
const DEFAULT_FD_LIMIT = 1024;

/**
 * connectionLimitsFor derives the bounds from the process's soft limit on open files: at most a
 * quarter of the descriptors (never more than 512) for unproven connections, an eighth of those
 * for one source (at least 4), and half the descriptors (never more than 1024) for all.
 */
export function connectionLimitsFor(fdLimit: number): ConnectionLimits {
  const maxTotal = Math.max(16, Math.min(1024, Math.floor(fdLimit / 2)));
  const maxUnproven = Math.max(8, Math.min(512, Math.floor(fdLimit / 4)));
  return { maxUnproven, maxUnprovenPerSource: Math.max(4, Math.floor(maxUnproven / 8)), maxTotal };
}

/** openFileLimit reads the soft RLIMIT_NOFILE from /proc/self/limits (DEFAULT_FD_LIMIT when it cannot). */
export function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    if (line === "unlimited") return 1 << 20;
    return line === undefined ? DEFAULT_FD_LIMIT : Number(line);
  } catch {
    return DEFAULT_FD_LIMIT;
  }
}

/** One watched connection. */
interface Entry {
  socket: Socket;
  source: string;
  /** "address|port" of the peer (undefined on a Unix socket), read once: a closed socket forgets it. */
  peer: string | undefined;
  proven: boolean;
}

/** ConnectionBudget admits, bounds and evicts the connections of the listeners it watches. */
export class ConnectionBudget {
  /** Every open connection by its socket (the raw TCP or Unix socket). */
  private readonly entries = new Map<Socket, Entry>();
  /** The same connections by "address|port", to find the raw socket under a TLS socket. */
  private readonly byPeer = new Map<string, Entry>();
  /** Unproven connections, oldest first, overall and per source. */
  private readonly unproven = new Set<Entry>();
  private readonly unprovenBySource = new Map<string, Set<Entry>>();

  constructor(
    /** The bounds this budget keeps. */
    readonly limits: ConnectionLimits,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** watch makes every new connection of server go through this budget. */
  watch(server: NetServer): void {
    server.on("connection", (socket: Socket) => this.admit(socket));
  }

  /** prove marks the connection a request was authenticated on (a TLS socket finds its TCP socket). */
  prove(socket: Socket): void {
    const entry = this.entries.get(socket) ?? this.byPeer.get(peerKey(socket) ?? "");
    if (entry === undefined || entry.proven) return;
    entry.proven = true;
    this.dropUnproven(entry);
  }


  /** counts reports the open connections, for tests and logs. */
  counts(): { total: number; unproven: number } {
    return { total: this.entries.size, unproven: this.unproven.size };
  }

  private admit(socket: Socket): void {
    const source = socket.remoteAddress ?? "local";
    // Make room: the oldest unproven connection of this source, then of all, then of the total.
    const ofSource = this.unprovenBySource.get(source);
    if (ofSource !== undefined && ofSource.size >= this.limits.maxUnprovenPerSource) this.evictOldest(ofSource, "source");
    if (this.unproven.size >= this.limits.maxUnproven) this.evictOldest(this.unproven, "unproven");
    if (this.entries.size >= this.limits.maxTotal && !this.evictOldest(this.unproven, "total")) {
      this.logger.warn("Refused a connection: every slot holds an authenticated connection", { source, limit: this.limits.maxTotal });
      socket.destroy();
      return;
    }
    const entry: Entry = { socket, source, peer: peerKey(socket), proven: false };
    this.entries.set(socket, entry);
    if (entry.peer !== undefined) this.byPeer.set(entry.peer, entry);
    this.unproven.add(entry);
    let set = this.unprovenBySource.get(source);
    if (set === undefined) this.unprovenBySource.set(source, (set = new Set()));
    set.add(entry);
    socket.once("close", () => this.forget(entry));
  }

  /** forget drops a connection from every count (it has closed, or is being closed). */
  private forget(entry: Entry): void {
    if (this.entries.get(entry.socket) === entry) this.entries.delete(entry.socket);
    if (entry.peer !== undefined && this.byPeer.get(entry.peer) === entry) this.byPeer.delete(entry.peer);
    this.dropUnproven(entry);
  }

  /** evictOldest closes the oldest unproven connection of a set; false when there is none. */
  private evictOldest(set: ReadonlySet<Entry>, bound: string): boolean {
    const oldest = set.values().next().value;
    if (oldest === undefined) return false;
    this.logger.debug("Closed the oldest unauthenticated connection to make room", { source: oldest.source, bound });
    this.forget(oldest);
    oldest.socket.destroy();
    return true;
  }

  private dropUnproven(entry: Entry): void {
    if (!this.unproven.delete(entry)) return;
    const set = this.unprovenBySource.get(entry.source);
    set?.delete(entry);
    if (set?.size === 0) this.unprovenBySource.delete(entry.source);
  }
}

let shared: ConnectionBudget | undefined;

/**
 * processConnectionBudget is the budget every TCP listener of this process shares, sized from
 * the open-file limit when first asked for.
 */
export function processConnectionBudget(logger?: Logger): ConnectionBudget {
  shared ??= new ConnectionBudget(connectionLimitsFor(openFileLimit()), logger);
  return shared;
}

function peerKey(socket: Socket): string | undefined {
  return socket.remotePort === undefined ? undefined : `${socket.remoteAddress ?? ""}|${socket.remotePort}`;
}
