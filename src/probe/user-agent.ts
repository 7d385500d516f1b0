// The probe user agent (kubelet pkg/probe/http/request.go and pkg/probe/grpc: kube-probe/<major>.<minor>).

/** KUBE_VERSION is the kubelet release whose behaviour probelet reproduces. */
export const KUBE_VERSION = { major: 1, minor: 35 } as const;

/** PROBE_USER_AGENT is the User-Agent every probe sends unless the user overrides it. */
export const PROBE_USER_AGENT = `kube-probe/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`;
