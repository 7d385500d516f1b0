// The kubelet's user agents (kubelet pkg/probe/http/request.go userAgent, pkg/probe/grpc):
// kube-<purpose>/<major>.<minor>, "probe" for probes and "lifecycle" for httpGet hooks.

/** KUBE_VERSION is the kubelet release whose behaviour probelet reproduces. */
export const KUBE_VERSION = { major: 1, minor: 35 } as const;

/** PROBE_USER_AGENT is the User-Agent every probe sends unless the user overrides it. */
export const PROBE_USER_AGENT = `kube-probe/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`;

/** LIFECYCLE_USER_AGENT is what httpGet lifecycle hooks send (handlers.go: NewRequestForHTTPGetAction(…, "lifecycle")). */
export const LIFECYCLE_USER_AGENT = `kube-lifecycle/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`;
