// The kubelet release probelet follows, and the one version string derived from it that every
// part of probelet reports; the kubelet's user agents (kubelet pkg/probe/http/request.go
// userAgent, pkg/probe/grpc): kube-<purpose>/<major>.<minor>, "probe" for probes and
// "lifecycle" for httpGet hooks.

/** KUBE_VERSION is the kubelet release whose behaviour probelet reproduces (v1.37.2, default feature gates). */
export const KUBE_VERSION = { major: 1, minor: 37, patch: 2 } as const;

/**
 * KUBELET_VERSION is what probelet reports as its version: /version's gitVersion on the agent's
 * API and the Node's nodeInfo.kubeletVersion (the kubelet's is version.Get().String(), "v1.37.2").
 * The "+probelet" is semver build metadata: apimachinery's version.ParseSemantic and
 * ParseGeneric accept it, and build metadata never counts when versions are compared, so every
 * version check of the control plane and its clients (kubectl's skew warning, kubeadm, the e2e
 * suite's [MinimumKubeletVersion:1.37]) sees the release reproduced, v1.37.2, while the string
 * still says it is not the kubelet binary. A pre-release suffix ("-probelet") would sort before
 * v1.37.2.
 */
export const KUBELET_VERSION = `v${KUBE_VERSION.major}.${KUBE_VERSION.minor}.${KUBE_VERSION.patch}+probelet`;

/** PROBE_USER_AGENT is the User-Agent every probe sends unless the user overrides it. */
export const PROBE_USER_AGENT = `kube-probe/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`;

/** LIFECYCLE_USER_AGENT is what httpGet lifecycle hooks send (handlers.go: NewRequestForHTTPGetAction(…, "lifecycle")). */
export const LIFECYCLE_USER_AGENT = `kube-lifecycle/${KUBE_VERSION.major}.${KUBE_VERSION.minor}`;
