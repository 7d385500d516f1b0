// The process runtime's pod network addresses: an IPv4 CIDR for the CNI bridge, and the names
// derived from the agent's state directory so that two agents on one machine get their own
// bridge and, by default, their own subnet.
import { createHash } from "node:crypto";
import { isIPv4 } from "node:net";

/** PodCidr is a parsed IPv4 CIDR, normalised to its network address. */
export interface PodCidr {
  /** The network address as a 32-bit unsigned number. */
  network: number;
  prefix: number;
  /** "a.b.c.d/n" with the host bits cleared. */
  text: string;
}

/** MIN_POD_PREFIX and MAX_POD_PREFIX bound --pod-cidr: at least a /28 (13 pods), at most a /8. */
export const MIN_POD_PREFIX = 8;
/** MAX_POD_PREFIX: see MIN_POD_PREFIX. */
export const MAX_POD_PREFIX = 28;

/**
 * parsePodCidr reads an IPv4 CIDR; it returns what is wrong as a string, in the words the API
 * server uses for Node spec.podCIDR ("must be a valid CIDR").
 */
export function parsePodCidr(text: string): PodCidr | string {
  const [address = "", prefixText, extra] = text.split("/");
  if (extra !== undefined || prefixText === undefined || !/^\d{1,2}$/.test(prefixText) || !isIPv4(address)) {
    return "must be a valid IPv4 CIDR, such as 10.88.0.0/24";
  }
  const prefix = Number(prefixText);
  if (prefix < MIN_POD_PREFIX || prefix > MAX_POD_PREFIX) return `the prefix length must be between /${MIN_POD_PREFIX} and /${MAX_POD_PREFIX}`;
  const network = (ipToNumber(address) & prefixMask(prefix)) >>> 0;
  return { network, prefix, text: `${numberToIp(network)}/${prefix}` };
}

/** cidrContains tells whether an IPv4 address lies in the CIDR. */
export function cidrContains(cidr: PodCidr, ip: string): boolean {
  return isIPv4(ip) && ((ipToNumber(ip) & prefixMask(cidr.prefix)) >>> 0) === cidr.network;
}

/**
 * stateDirTag is 8 hex digits of the state directory's SHA-256: it names the agent's bridge and
 * picks its default subnet (as scripts/containerd.sh tags its bridge by its run directory).
 */
export function stateDirTag(stateDir: string): string {
  return createHash("sha256").update(stateDir).digest("hex").slice(0, 8);
}

/** podBridgeName is the agent's CNI bridge: "plp" and the state directory's tag (11 of 15 allowed bytes). */
export function podBridgeName(stateDir: string): string {
  return `plp${stateDirTag(stateDir)}`;
}

/**
 * defaultPodCidr is 10.88.N.0/24 with N (0 to 199) from the state directory's tag: outside
 * scripts/containerd.sh's 10.244.77.0/24 and, for most pairs of state directories, apart from
 * each other's; 10.88.200.0 to 10.88.255.255 stay free for chosen ones (the tests use them).
 * --pod-cidr sets it.
 */
export function defaultPodCidr(stateDir: string): string {
  return `10.88.${Number.parseInt(stateDirTag(stateDir), 16) % 200}.0/24`;
}

function prefixMask(prefix: number): number {
  return prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
}

function ipToNumber(ip: string): number {
  return ip.split(".").reduce((n, part) => (n * 256 + Number(part)) >>> 0, 0);
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join(".");
}
