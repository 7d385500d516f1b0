// A network namespace per process-runtime pod, attached through the CNI bridge plugin with
// host-local IPAM, as containerd's CRI plugin does for its pod sandboxes (RunPodSandbox: a new
// named netns, then CNI ADD of the loopback plugin and of the configured network; StopPodSandbox:
// CNI DEL, then the netns is removed). The namespace is made persistent by a bind mount of
// /proc/<pid>/ns/net on a file under /run/probelet/<state directory tag>/netns (what `ip netns
// add` does under /run/netns), so it outlives the agent and the next agent adopts it with the pod.
// It lives in /run, not in the state directory: it cannot outlive a reboot, and a mount point
// inside the state directory would make deleting that directory fail with EBUSY.
import { lstat, mkdir, open, rm, rmdir } from "node:fs/promises";
import { isIPv4 } from "node:net";
import { networkInterfaces } from "node:os";
import { dirname, join } from "node:path";
import type { CommandResult, CommandRunOptions } from "../../probe/command-runner.js";
import type { Clock } from "../../util/clock.js";
import type { Logger } from "../../util/logger.js";
import { runCniPlugin, type CniResult } from "./cni-plugin.js";
import { lookPath } from "./container-launch.js";
import { cidrContains, parsePodCidr, stateDirTag, type PodCidr } from "./pod-cidr.js";

/** DEFAULT_CNI_PLUGIN_DIR is where Debian's containernetworking-plugins installs the plugins. */
export const DEFAULT_CNI_PLUGIN_DIR = "/usr/lib/cni";

/** POD_INTERFACE is the pod's interface (CNI_IFNAME), as the kubelet names it. */
export const POD_INTERFACE = "eth0";

/** TOOL_TIMEOUT_MS bounds one run of unshare or umount. */
const TOOL_TIMEOUT_MS = 10_000;

/**
 * RUN_ROOT is where root agents keep their runtime files (a tmpfs on Debian), one directory per
 * state directory. Only root agents make pod networks, so no other user's agent ever uses it.
 */
export const RUN_ROOT = "/run/probelet";

/** REQUIRED_PLUGINS are the plugin binaries a pod network needs. */
const REQUIRED_PLUGINS = ["loopback", "bridge", "host-local"];
/**
 * REQUIRED_TOOLS are the host tools, with their Debian package: netns creation and removal, and
 * the bridge's removal (exec enters a pod's namespace through the supervisor).
 */
const REQUIRED_TOOLS = { unshare: "util-linux", umount: "mount", ip: "iproute2" } as const;

/** PodNetworkOptions configure the process runtime's pod network. */
export interface PodNetworkOptions {
  /** The pod subnet, an IPv4 CIDR (the agent's --pod-cidr). */
  podCidr: string;
  /** The Linux bridge the pods attach to; unique per agent. */
  bridge: string;
  /** Where the CNI plugins are (default /usr/lib/cni). */
  pluginDir?: string;
}

/** SandboxNetwork is a pod's network: its namespace file and its IP. */
export interface SandboxNetwork {
  /** The bind-mounted namespace file (CNI_NETNS). */
  netns: string;
  /** The pod IP on the bridge. */
  ip: string;
}

/** ToolRunner runs a host command to completion (the runtime's HostCommandRunner.run). */
export type ToolRunner = (argv: readonly string[], options: CommandRunOptions & { env: Record<string, string> }) => Promise<CommandResult>;

/** PodNetwork creates and removes pod network namespaces and their CNI attachments. */
export class PodNetwork {
  private readonly pluginDir: string;
  private readonly netnsDir: string;
  private readonly ipamDir: string;
  private readonly cidr: PodCidr | string;
  /** Resolved paths of REQUIRED_TOOLS, filled by unavailableReason(). */
  private readonly tools = new Map<string, string>();

  constructor(
    private readonly options: PodNetworkOptions,
    stateDir: string,
    private readonly run: ToolRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.pluginDir = options.pluginDir ?? DEFAULT_CNI_PLUGIN_DIR;
    this.netnsDir = podNetnsDir(stateDir);
    this.ipamDir = join(stateDir, "cni-ipam");
    this.cidr = parsePodCidr(options.podCidr);
  }

  /** podCidr is the normalised pod subnet. */
  get podCidr(): string {
    return typeof this.cidr === "string" ? this.options.podCidr : this.cidr.text;
  }

  /** bridge is the bridge's name. */
  get bridge(): string {
    return this.options.bridge;
  }

  /**
   * unavailableReason says why pods cannot get their own network here (and then share the
   * host's), or undefined when they can: root (namespaces, veths and the bridge need
   * CAP_SYS_ADMIN and CAP_NET_ADMIN), the plugins, the util-linux tools, and a pod CIDR that no
   * other interface of the host already uses.
   */
  async unavailableReason(): Promise<string | undefined> {
    const uid = process.getuid?.() ?? -1;
    if (uid !== 0) return `pod network namespaces need root; the agent runs as uid ${uid}`;
    if (typeof this.cidr === "string") return `invalid pod CIDR "${this.options.podCidr}": ${this.cidr}`;
    for (const plugin of REQUIRED_PLUGINS) {
      const found = await lookPath(join(this.pluginDir, plugin), "", "/").catch(() => undefined);
      if (found === undefined) return `the CNI plugin ${join(this.pluginDir, plugin)} is missing (Debian package containernetworking-plugins)`;
    }
    for (const [tool, pkg] of Object.entries(REQUIRED_TOOLS)) {
      const found = await lookPath(tool, process.env["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin", "/").catch(() => undefined);
      if (found === undefined) return `${tool} (Debian package ${pkg}) is not installed`;
      this.tools.set(tool, found);
    }
    const cidr = this.cidr;
    for (const [name, addresses] of Object.entries(networkInterfaces())) {
      if (name === this.options.bridge) continue;
      const clash = addresses?.find((a) => a.family === "IPv4" && cidrContains(cidr, a.address));
      if (clash) return `the pod CIDR ${cidr.text} overlaps address ${clash.address} of interface ${name}; choose another with --pod-cidr`;
    }
    return undefined;
  }

  /**
   * setUp makes the sandbox's namespace and attaches it (loopback, then the bridge network),
   * returning its IP. On failure it removes what it made and rejects with the plugin's error.
   */
  async setUp(sandboxId: string): Promise<SandboxNetwork> {
    const netns = this.netnsPath(sandboxId);
    await ensureRunRoot();
    await mkdir(this.netnsDir, { recursive: true, mode: 0o700 });
    try {
      await this.createNetns(netns);
      await this.plugin("ADD", sandboxId, netns, "lo", this.loopbackConfig());
      const result = await this.plugin("ADD", sandboxId, netns, POD_INTERFACE, this.bridgeConfig());
      const ip = podAddress(result);
      if (ip === undefined) throw new Error(`the bridge plugin assigned no IPv4 address to ${POD_INTERFACE}`);
      this.logger.debug("pod network set up", { sandboxId, netns, ip });
      return { netns, ip };
    } catch (err) {
      await this.tearDown(sandboxId, netns).catch((cleanup: unknown) => this.logger.warn("Cannot clean up a failed pod network", { sandboxId, err: cleanup }));
      throw err;
    }
  }

  /**
   * tearDown detaches the sandbox (CNI DEL releases its IP and its veth) and removes its
   * namespace. Idempotent: DEL of a detached sandbox and removal of a missing namespace succeed.
   */
  async tearDown(sandboxId: string, netns: string): Promise<void> {
    await this.plugin("DEL", sandboxId, netns, POD_INTERFACE, this.bridgeConfig());
    await this.plugin("DEL", sandboxId, netns, "lo", this.loopbackConfig());
    await this.removeNetns(netns);
    this.logger.debug("pod network torn down", { sandboxId, netns });
  }

  /**
   * removeBridge deletes the agent's bridge and its empty runtime directories once no pod is
   * attached (the agent's last pod network is gone); what is missing already is fine.
   */
  async removeBridge(): Promise<void> {
    await this.tool(["ip", "link", "del", this.options.bridge], "delete the bridge").catch(() => undefined);
    await rmdir(this.netnsDir).catch(() => undefined);
    await rmdir(dirname(this.netnsDir)).catch(() => undefined);
    this.logger.debug("pod bridge removed", { bridge: this.options.bridge });
  }

  /** netnsPath is where the sandbox's namespace is bound: podNetnsDir(stateDir)/<sandbox ID>. */
  netnsPath(sandboxId: string): string {
    return join(this.netnsDir, sandboxId);
  }

  private plugin(command: "ADD" | "DEL", containerId: string, netns: string, ifName: string, config: Record<string, unknown>): Promise<CniResult> {
    return runCniPlugin({ command, type: String(config["type"]), containerId, netns, ifName, pluginDir: this.pluginDir, config }, this.clock);
  }

  private loopbackConfig(): Record<string, unknown> {
    return { cniVersion: "1.0.0", name: "cni-loopback", type: "loopback" };
  }

  /**
   * bridgeConfig is the pod network: the bridge as the pods' gateway (the agent reaches them
   * from the host through it) without masquerading (no iptables), host-local IPAM in the state
   * directory, and no routes (no default route: pods reach the bridge subnet and the host).
   */
  private bridgeConfig(): Record<string, unknown> {
    return {
      cniVersion: "1.0.0",
      name: `probelet-${this.options.bridge}`,
      type: "bridge",
      bridge: this.options.bridge,
      isGateway: true,
      isDefaultGateway: false,
      ipMasq: false,
      hairpinMode: true,
      ipam: { type: "host-local", ranges: [[{ subnet: this.podCidr }]], routes: [], dataDir: this.ipamDir },
    };
  }

  /** createNetns binds a new network namespace on `path` (`unshare --net=<path>` makes it persistent). */
  private async createNetns(path: string): Promise<void> {
    await (await open(path, "a", 0o600)).close();
    await this.tool(["unshare", `--net=${path}`, "true"], "create the network namespace");
  }

  /** removeNetns unmounts and deletes a namespace file; a missing or unmounted one is fine. */
  private async removeNetns(path: string): Promise<void> {
    await this.tool(["umount", path], "unmount the network namespace").catch(() => undefined);
    await rm(path, { force: true });
  }

  private async tool(argv: ["unshare" | "umount" | "ip", ...string[]], what: string): Promise<void> {
    const file = this.tools.get(argv[0]) ?? argv[0];
    const result = await this.run([file, ...argv.slice(1)], { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, timeoutMs: TOOL_TIMEOUT_MS });
    if (result.exitCode !== 0) throw new Error(`cannot ${what}: ${(result.stderr.toString("utf8").trim() || `exit status ${result.exitCode}`).slice(0, 512)}`);
  }
}

/** podAddress is the IPv4 address the result gives the pod's interface (eth0 inside the namespace). */
function podAddress(result: CniResult): string | undefined {
  const inPod = result.ips.filter((ip) => ip.interface === undefined || result.interfaces[ip.interface]?.name === POD_INTERFACE);
  return inPod.map((ip) => ip.address.split("/")[0] ?? "").find((a) => isIPv4(a));
}

/**
 * ensureRunRoot makes RUN_ROOT (or `dir`, for tests) with mode 0700 if it is missing and refuses one it cannot trust: a
 * symlink, not a directory, not owned by root, or writable by group or others (someone else
 * made it, and could swap what the agent binds and later unmounts).
 */
export async function ensureRunRoot(dir: string = RUN_ROOT): Promise<void> {
  await mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  const s = await lstat(dir);
  const problem = !s.isDirectory()
    ? "is not a directory"
    : s.uid !== 0
      ? `is owned by uid ${s.uid}, not root`
      : (s.mode & 0o022) !== 0
        ? `is writable by ${(s.mode & 0o020) !== 0 ? "group" : "others"} (mode ${(s.mode & 0o7777).toString(8).padStart(4, "0")})`
        : undefined;
  if (problem !== undefined) throw new Error(`cannot keep pod network namespaces in ${dir}: it ${problem}; remove it or make it root's, mode 0700`);
}

/** podNetnsDir is where an agent binds its pods' namespaces: /run/probelet/<state directory tag>/netns. */
export function podNetnsDir(stateDir: string): string {
  return join(RUN_ROOT, stateDirTag(stateDir), "netns");
}
