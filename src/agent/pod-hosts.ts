// A pod's host name and the /etc/hosts the kubelet manages for its containers
// (pkg/kubelet/kubelet_pods.go GeneratePodHostNameAndDomain, truncatePodHostnameIfNeeded,
// shouldMountHostsFile, makeHostsMount, ensureHostsFile, managedHostsFileContent,
// nodeHostsFileContent, hostsEntriesFromHostAliases).
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import type { Pod } from "../api/types.js";

/** The cluster domain of the pods' FQDNs (the KubeletConfiguration clusterDomain kubeadm sets). */
export const CLUSTER_DOMAIN = "cluster.local";
const HOSTNAME_MAX = 63;
const MANAGED_HEADER = "# Kubernetes-managed hosts file.\n";
const MANAGED_HEADER_HOST_NETWORK = "# Kubernetes-managed hosts file (host network).\n";
/** Bound on the node's /etc/hosts copied into a host-network pod's file. */
const MAX_NODE_HOSTS_BYTES = 1024 * 1024;

/** HostAlias is spec.hostAliases[i]. */
interface HostAlias {
  ip?: string;
  hostnames?: string[];
}

function truncate(hostname: string): string {
  return hostname.length <= HOSTNAME_MAX ? hostname : hostname.slice(0, HOSTNAME_MAX).replace(/[-.]+$/, "");
}

/**
 * podHostnameAndDomain is the pod's host name (hostnameOverride, else spec.hostname, else its
 * name, cut to 63 characters) and domain (`<subdomain>.<namespace>.svc.<cluster domain>` when it
 * has a subdomain). The API server has validated both fields.
 */
export function podHostnameAndDomain(pod: Pod): { hostname: string; domain: string } {
  const spec = pod.spec as { hostname?: string; subdomain?: string; hostnameOverride?: string };
  if (spec.hostnameOverride) return { hostname: truncate(spec.hostnameOverride), domain: "" };
  const hostname = truncate(spec.hostname || (pod.metadata.name ?? ""));
  const domain = spec.subdomain ? `${spec.subdomain}.${pod.metadata.namespace ?? "default"}.svc.${CLUSTER_DOMAIN}` : "";
  return { hostname, domain };
}

function hostAliasLines(pod: Pod): string {
  const aliases = ((pod.spec as { hostAliases?: HostAlias[] }).hostAliases ?? []).filter((a) => typeof a === "object" && a !== null);
  if (aliases.length === 0) return "";
  return `\n# Entries added by HostAliases.\n${aliases.map((a) => `${a.ip ?? ""}\t${(a.hostnames ?? []).join("\t")}\n`).join("")}`;
}

/** managedHostsContent is the file of a pod with its own network: localhost lines, the pod's IPs with its names, host aliases. */
export function managedHostsContent(pod: Pod, podIPs: readonly string[]): string {
  const { hostname, domain } = podHostnameAndDomain(pod);
  let text = MANAGED_HEADER;
  text += "127.0.0.1\tlocalhost\n";
  text += "::1\tlocalhost ip6-localhost ip6-loopback\n";
  text += "fe00::0\tip6-localnet\n";
  text += "fe00::0\tip6-mcastprefix\n";
  text += "fe00::1\tip6-allnodes\n";
  text += "fe00::2\tip6-allrouters\n";
  for (const ip of podIPs) text += domain ? `${ip}\t${hostname}.${domain}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  return text + hostAliasLines(pod);
}

/** nodeHostsContent is the file of a host-network pod: the node's /etc/hosts under its own header, then host aliases. */
export function nodeHostsContent(pod: Pod, nodeHosts: string): string {
  return MANAGED_HEADER_HOST_NETWORK + nodeHosts + hostAliasLines(pod);
}

/** shouldMountHostsFile: a pod gets the managed file once it has an IP, or on the host's network. */
export function shouldMountHostsFile(pod: Pod, podIPs: readonly string[]): boolean {
  return podIPs.length > 0 || pod.spec.hostNetwork === true;
}

/**
 * writeHostsFile writes the pod's file at `path` (0644, as ensureHostsFile leaves it);
 * synchronous, as the kubelet writes it within its sync: a few small system calls per container
 * start.
 */
export function writeHostsFile(path: string, pod: Pod, podIPs: readonly string[], etcHosts = "/etc/hosts"): void {
  let text: string;
  if (pod.spec.hostNetwork === true) {
    const node = readFileSync(etcHosts);
    text = nodeHostsContent(pod, node.subarray(0, MAX_NODE_HOSTS_BYTES).toString("utf8"));
  } else {
    text = managedHostsContent(pod, podIPs);
  }
  writeFileSync(path, text, { mode: 0o644 });
  chmodSync(path, 0o644);
}
