// The kubelet's token manager (pkg/kubelet/token/token_manager.go): service-account tokens a
// node requests for its pods' serviceAccountToken projections (TokenRequest, bound to the pod),
// cached by what was asked (service account, namespace, audiences, lifetime, bound pod), and
// requested again once 80% of the lifetime or 24 hours passed, less up to 10 s of jitter
// (requiresRefresh). A failed refresh keeps the cached token while it is valid; an expired one
// is an error. Tokens of a pod are forgotten when its volumes go (DeleteServiceAccountToken).
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";

/** TOKEN_MAX_TTL_MS is the token manager's maxTTL: a token older than this is always renewed. */
export const TOKEN_MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** TOKEN_MAX_JITTER_S is the token manager's maxJitter (whole seconds). */
export const TOKEN_MAX_JITTER_S = 10;
/** MAX_CACHED_TOKENS bounds the cache (a node runs at most a few hundred pods, a few tokens each). */
export const MAX_CACHED_TOKENS = 4096;

/** BoundPod is the pod a token is bound to (authentication/v1 BoundObjectReference of kind Pod). */
export interface BoundPod {
  name: string;
  uid: string;
}

/** TokenRequestSpec is authentication.k8s.io/v1 TokenRequestSpec as the kubelet fills it for a projection. */
export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds: number;
  boundObjectRef: { apiVersion: "v1"; kind: "Pod"; name: string; uid: string };
}

/** TokenRequest is authentication.k8s.io/v1 TokenRequest. */
export interface TokenRequest {
  apiVersion: "authentication.k8s.io/v1";
  kind: "TokenRequest";
  spec: TokenRequestSpec;
  status?: { token: string; expirationTimestamp: string };
}

/** RequestToken asks the API server for a token of `serviceAccount` (POST serviceaccounts/<name>/token). */
export type RequestToken = (namespace: string, serviceAccount: string, request: TokenRequest) => Promise<TokenRequest>;

/** ServiceAccountTokenSource is what a projected volume reads its token from. */
export interface ServiceAccountTokenSource {
  /** token returns a valid token for the projection of `pod`'s service account; rejects with the kubelet's error text. */
  token(namespace: string, serviceAccount: string, pod: BoundPod, audience: string | undefined, expirationSeconds: number): Promise<string>;
  /** forgetPod drops the tokens bound to a pod whose volumes are gone. */
  forgetPod(uid: string): void;
}

interface Cached {
  token: string;
  /** Expiry (ms since epoch) from status.expirationTimestamp. */
  expiresAt: number;
  expirationSeconds: number;
  podUid: string;
}

/** ServiceAccountTokensOptions configure a ServiceAccountTokens. */
export interface ServiceAccountTokensOptions {
  request: RequestToken;
  clock: Clock;
  logger: Logger;
  /** Source of the refresh jitter, in [0, 1) (default Math.random). */
  random?: () => number;
}

/** ServiceAccountTokens is the node's token manager. */
export class ServiceAccountTokens implements ServiceAccountTokenSource {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly options: ServiceAccountTokensOptions) {}

  async token(namespace: string, serviceAccount: string, pod: BoundPod, audience: string | undefined, expirationSeconds: number): Promise<string> {
    const audiences = audience !== undefined && audience !== "" ? [audience] : undefined;
    const key = JSON.stringify([serviceAccount, namespace, audiences ?? [], expirationSeconds, pod.name, pod.uid]);
    const cached = this.cache.get(key);
    if (cached !== undefined && !this.requiresRefresh(cached)) return cached.token;
    const request: TokenRequest = {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { ...(audiences ? { audiences } : {}), expirationSeconds, boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.name, uid: pod.uid } },
    };
    let answer: TokenRequest;
    try {
      answer = await this.options.request(namespace, serviceAccount, request);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (cached === undefined) throw new Error(`failed to fetch token: ${message}`);
      if (this.options.clock.now() > cached.expiresAt) throw new Error(`token ${key} expired and refresh failed: ${message}`);
      this.options.logger.error("Couldn't update token", { pod: `${namespace}/${pod.name}`, serviceAccount, err: message });
      return cached.token;
    }
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? "");
    const token = answer.status?.token ?? "";
    if (token === "" || Number.isNaN(expiresAt)) throw new Error("failed to fetch token: the API server answered a TokenRequest without a token or expirationTimestamp");
    this.forgetExpired();
    if (this.cache.size >= MAX_CACHED_TOKENS && !this.cache.has(key)) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { token, expiresAt, expirationSeconds: answer.spec?.expirationSeconds ?? expirationSeconds, podUid: pod.uid });
    return token;
  }

  forgetPod(uid: string): void {
    for (const [key, cached] of this.cache) if (cached.podUid === uid) this.cache.delete(key);
  }

  /** size is the number of cached tokens. */
  get size(): number {
    return this.cache.size;
  }

  /**
   * requiresRefresh: past 24 h since issue, or past 80% of the lifetime, each less a jitter of
   * 0 to 9 whole seconds (token_manager.go requiresRefresh).
   */
  private requiresRefresh(cached: Cached): boolean {
    const now = this.options.clock.now();
    const jitterMs = Math.floor((this.options.random ?? Math.random)() * TOKEN_MAX_JITTER_S) * 1000;
    const issuedAt = cached.expiresAt - cached.expirationSeconds * 1000;
    if (now > issuedAt + TOKEN_MAX_TTL_MS - jitterMs) return true;
    return now > cached.expiresAt - Math.floor((cached.expirationSeconds * 20) / 100) * 1000 - jitterMs;
  }

  /** forgetExpired drops expired tokens (the manager's cleanup, run here on each new token instead of every minute). */
  private forgetExpired(): void {
    const now = this.options.clock.now();
    for (const [key, cached] of this.cache) if (now > cached.expiresAt) this.cache.delete(key);
  }
}
