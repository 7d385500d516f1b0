// Who may use the daemon endpoint, decided as the kubelet decides it with webhook authentication
// and authorization and anonymous access off (kubeadm's kubelet configuration):
//   - authentication (pkg/kubelet/server/auth.go, apiserver's DelegatingAuthenticatorConfig): a
//     client certificate the client CA signed is the user of its CN in the groups of its O; a
//     bearer token is sent to the API server in a TokenReview, its answer cached 2 minutes
//     (authentication.webhook.cacheTTL); anything else is 401 "Unauthorized";
//   - authorization (auth.go GetRequestAttributes, server.go InstallAuthFilter): verb from the
//     method, resource nodes, name the node, subresource from the path (stats, metrics, log,
//     pods, healthz, else proxy; KubeletFineGrainedAuthz, GA in 1.36, tries pods and healthz
//     before proxy), each asked in a SubjectAccessReview through the node's credentials until one
//     is allowed; answers cached 5 minutes when allowed, 30 seconds when not
//     (authorization.webhook.cacheAuthorizedTTL / cacheUnauthorizedTTL).
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import type { RestClient } from "../client/rest-client.js";

/** TOKEN_REVIEW_TTL_MS is the kubelet's authentication.webhook.cacheTTL. */
export const TOKEN_REVIEW_TTL_MS = 2 * 60_000;
/** AUTHORIZED_TTL_MS is the kubelet's authorization.webhook.cacheAuthorizedTTL. */
export const AUTHORIZED_TTL_MS = 5 * 60_000;
/** UNAUTHORIZED_TTL_MS is the kubelet's authorization.webhook.cacheUnauthorizedTTL. */
export const UNAUTHORIZED_TTL_MS = 30_000;
/** MAX_CACHED_DECISIONS bounds each cache; the oldest entry goes first. */
export const MAX_CACHED_DECISIONS = 4096;
/** MAX_BEARER_TOKEN_BYTES bounds a bearer token sent for review. */
const MAX_BEARER_TOKEN_BYTES = 16 * 1024;

/** KubeletUser is an authenticated client (user.Info). */
export interface KubeletUser {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** KubeletRequestAttributes are what one request asks to do to the Node. */
export interface KubeletRequestAttributes {
  verb: string;
  /** The subresources to try, in order; the first allowed one lets the request in. */
  subresources: string[];
}

/** Decision is the outcome of authorizing one request. */
export type Decision = { allowed: true } | { allowed: false; code: 403 | 500; message: string };

/** isSubpath: `path` is `prefix` (without its trailing slash) or below it (auth.go isSubpath). */
function isSubpath(path: string, prefix: string): boolean {
  const p = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  return path === p || (path.startsWith(p) && path[p.length] === "/");
}

/** requestAttributes maps a request to its verb and subresources (auth.go GetRequestAttributes, with KubeletFineGrainedAuthz). */
export function requestAttributes(method: string, path: string): KubeletRequestAttributes {
  const verbs: Record<string, string> = { POST: "create", GET: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };
  const subresources: string[] = [];
  if (isSubpath(path, "/allocatedPods") || isSubpath(path, "/pods")) subresources.push("pods");
  else if (isSubpath(path, "/healthz")) subresources.push("healthz");
  else if (isSubpath(path, "/configz")) subresources.push("configz");
  else if (isSubpath(path, "/runningpods/")) subresources.push("pods");
  if (isSubpath(path, "/stats/")) subresources.push("stats");
  else if (isSubpath(path, "/metrics")) subresources.push("metrics");
  else if (isSubpath(path, "/logs/")) subresources.push("log");
  else if (isSubpath(path, "/checkpoint/")) subresources.push("checkpoint");
  else if (isSubpath(path, "/statusz")) subresources.push("statusz");
  else if (isSubpath(path, "/flagz")) subresources.push("configz");
  else subresources.push("proxy");
  return { verb: verbs[method] ?? "", subresources };
}

/** withAuthenticated adds system:authenticated to a user's groups, as the authenticator's group adder does. */
function withAuthenticated(groups: readonly string[]): string[] {
  return groups.includes("system:authenticated") ? [...groups] : [...groups, "system:authenticated"];
}

/** TtlCache is a bounded map whose entries expire. */
class TtlCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(private readonly clock: Clock) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.clock.now() >= entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_CACHED_DECISIONS) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: this.clock.now() + ttlMs });
  }
}

/** KubeletAuthOptions configure a KubeletAuth. */
export interface KubeletAuthOptions {
  /** The node's API client (TokenReviews and SubjectAccessReviews go through its credentials). */
  client: Pick<RestClient, "request">;
  nodeName: string;
  clock: Clock;
  logger: Logger;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** KubeletAuth authenticates and authorizes daemon-endpoint requests. */
export class KubeletAuth {
  private readonly tokens: TtlCache<KubeletUser | null>;
  private readonly decisions: TtlCache<boolean>;

  constructor(private readonly options: KubeletAuthOptions) {
    this.tokens = new TtlCache(options.clock);
    this.decisions = new TtlCache(options.clock);
  }

  /**
   * authenticate returns the request's user, or undefined (401): a verified client certificate
   * first, else a bearer token the API server accepts. A failed TokenReview is undefined too,
   * logged (the kubelet answers 401 "Unauthorized" either way).
   */
  async authenticate(req: IncomingMessage): Promise<KubeletUser | undefined> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized === true) {
      const cert = socket.getPeerCertificate();
      const cn = cert.subject?.CN;
      const name = Array.isArray(cn) ? cn[0] : cn;
      if (name !== undefined && name !== "") {
        const o = cert.subject?.O;
        return { name, groups: withAuthenticated(o === undefined ? [] : Array.isArray(o) ? o : [o]) };
      }
    }
    const header = req.headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m === null || m[1]!.length > MAX_BEARER_TOKEN_BYTES) return undefined;
    return this.reviewToken(m[1]!);
  }

  private async reviewToken(token: string): Promise<KubeletUser | undefined> {
    const key = createHash("sha256").update(token).digest("hex");
    const cached = this.tokens.get(key);
    if (cached !== undefined) return cached ?? undefined;
    try {
      const review = await this.options.client.request<{ status?: TokenReviewStatus }>("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
      });
      const status = review.status ?? {};
      const user: KubeletUser | null =
        status.authenticated === true && status.user?.username
          ? { name: status.user.username, groups: withAuthenticated(status.user.groups ?? []), ...(status.user.uid ? { uid: status.user.uid } : {}), ...(status.user.extra ? { extra: status.user.extra } : {}) }
          : null;
      this.tokens.set(key, user, TOKEN_REVIEW_TTL_MS);
      return user ?? undefined;
    } catch (err) {
      this.options.logger.error("Unable to authenticate the request due to an error", { err: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  }

  /**
   * authorize asks whether `user` may make the request; the kubelet's messages: 403
   * `Forbidden (user=…, verb=…, resource=nodes, subresource(s)=[…])`, 500 `Authorization error (…)`
   * when a review could not be made.
   */
  async authorize(user: KubeletUser, method: string, path: string): Promise<Decision> {
    const attrs = requestAttributes(method, path);
    for (const subresource of attrs.subresources) {
      let allowed: boolean;
      try {
        allowed = await this.review(user, attrs.verb, subresource);
      } catch (err) {
        this.options.logger.error("Authorization error", { user: user.name, verb: attrs.verb, resource: "nodes", subresource, err: err instanceof Error ? err.message : String(err) });
        return { allowed: false, code: 500, message: `Authorization error (user=${user.name}, verb=${attrs.verb}, resource=nodes, subresource=${subresource})` };
      }
      if (allowed) return { allowed: true };
    }
    this.options.logger.debug("Forbidden", { user: user.name, verb: attrs.verb, resource: "nodes", subresources: attrs.subresources });
    return { allowed: false, code: 403, message: `Forbidden (user=${user.name}, verb=${attrs.verb}, resource=nodes, subresource(s)=[${attrs.subresources.join(" ")}])\n` };
  }

  /** review sends one SubjectAccessReview (the webhook authorizer's), or answers from the cache. */
  private async review(user: KubeletUser, verb: string, subresource: string): Promise<boolean> {
    const spec = {
      resourceAttributes: { verb, version: "v1", resource: "nodes", subresource, name: this.options.nodeName },
      user: user.name,
      groups: user.groups,
      ...(user.uid !== undefined ? { uid: user.uid } : {}),
      ...(user.extra !== undefined ? { extra: user.extra } : {}),
    };
    const key = JSON.stringify(spec);
    const cached = this.decisions.get(key);
    if (cached !== undefined) return cached;
    const review = await this.options.client.request<{ status?: SubjectAccessReviewStatus }>("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec },
    });
    const allowed = review.status?.allowed === true;
    this.decisions.set(key, allowed, allowed ? AUTHORIZED_TTL_MS : UNAUTHORIZED_TTL_MS);
    return allowed;
  }
}
