// What a process-runtime container sees and what it may do, beyond its env and working dir: its
// own mount namespace (bind mounts), its user and groups, its capabilities and no_new_privs, as
// the kubelet's securityContext asks of a runtime. The supervisor applies it to the container
// (native/supervisor.c apply_world) and to every exec into it ("enter" mode), as runc applies a
// container's process spec to `runc exec`; fields that cannot be honoured here are refused.
import type { ContainerSecurity } from "../runtime.js";
import { capabilitySet } from "./capabilities.js";
import { resolveProcessUser, type ProcessUser } from "./host-accounts.js";
import type { ProcessIdentity } from "./supervised-process.js";

/** ContainerWorld is how a container's processes differ from the agent's (recorded with the container). */
export interface ContainerWorld {
  /** The container has a mount namespace of its own (its bind mounts); execs join it. */
  mountNamespace?: boolean;
  /** The identity its processes run as; absent: the agent's. */
  user?: ProcessUser;
  /** The capabilities kept (hexadecimal bits, see capabilities.ts); absent: unchanged. */
  capabilities?: string;
  noNewPrivs?: boolean;
}

/** WorldHost is what decides which worlds this runtime can give: the agent's identity and the supervisor. */
export interface WorldHost {
  uid: number;
  gid: number;
  /** Containers run under the supervisor helper (without it nothing can be applied). */
  supervised: boolean;
}

/** agentHost is the WorldHost of this process. */
export function agentHost(supervised: boolean): WorldHost {
  return { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1, supervised };
}

/**
 * securityProblem says which field of `security` this runtime cannot honour, or undefined. As
 * root every field is applied; otherwise the container keeps the agent's user and has no
 * capabilities to add (a drop is honoured only with allowPrivilegeEscalation false: no_new_privs
 * keeps a setuid program from regaining what the bounding set would have removed).
 */
export function securityProblem(security: ContainerSecurity, host: WorldHost): string | undefined {
  const { runAsUser, runAsGroup, supplementalGroups = [], capabilities, privileged, noNewPrivs } = security;
  if (capabilities) {
    const set = capabilitySet(capabilities.add, capabilities.drop);
    if (!set.ok) return set.message;
  }
  const needsRoot = (field: string, why: string): string => `securityContext.${field} on the process runtime needs the agent to run as root (${why}); it runs as uid ${host.uid}`;
  if (host.uid !== 0) {
    if (runAsUser !== undefined && runAsUser !== host.uid) return needsRoot("runAsUser", `to run the container as uid ${runAsUser}`);
    if (runAsGroup !== undefined && runAsGroup !== host.gid) return needsRoot("runAsGroup", `to run the container as gid ${runAsGroup}`);
    if (supplementalGroups.length > 0) return needsRoot("supplementalGroups", "to set supplementary groups");
    if (privileged === true) return needsRoot("privileged", "a privileged container runs with every capability");
    if (capabilities && capabilities.add.length > 0) return needsRoot("capabilities.add", "to grant capabilities");
    if (capabilities && capabilities.drop.length > 0 && noNewPrivs !== true) {
      return needsRoot("capabilities.drop", "to drop them from the bounding set; with allowPrivilegeEscalation: false nothing could regain them");
    }
  }
  if (!host.supervised && (noNewPrivs === true || (host.uid === 0 && hasIdentity(security)) || (host.uid === 0 && capabilities !== undefined && privileged !== true))) {
    return "securityContext on the process runtime needs the supervisor helper (build/probelet-supervisor, built by npm run build with a C compiler) and a state directory";
  }
  return undefined;
}

function hasIdentity(security: ContainerSecurity): boolean {
  return security.runAsUser !== undefined || security.runAsGroup !== undefined || (security.supplementalGroups ?? []).length > 0;
}

/** containerWorld builds the world of a container whose security context passed securityProblem. */
export async function containerWorld(security: ContainerSecurity | undefined, mountNamespace: boolean, host: WorldHost): Promise<ContainerWorld> {
  const world: ContainerWorld = mountNamespace ? { mountNamespace: true } : {};
  if (!security) return world;
  if (security.noNewPrivs === true) world.noNewPrivs = true;
  if (host.uid !== 0) return world;
  if (hasIdentity(security)) world.user = await resolveProcessUser(security.runAsUser ?? host.uid, security.runAsGroup, security.supplementalGroups ?? []);
  if (security.capabilities && security.privileged !== true) {
    const set = capabilitySet(security.capabilities.add, security.capabilities.drop);
    if (set.ok) world.capabilities = set.bits.toString(16);
  }
  return world;
}

/** isPlainWorld tells whether a container's processes are the agent's own kind (no entering needed). */
export function isPlainWorld(world: ContainerWorld | undefined, netns: string | undefined): boolean {
  return netns === undefined && (world === undefined || (!world.mountNamespace && !world.user && world.capabilities === undefined && !world.noNewPrivs));
}

/** worldFields are the supervisor spec's world fields (uid, gid, groups, capabilities, no_new_privs). */
export function worldFields(world: ContainerWorld | undefined): { uid: string; gid: string; groups: string[]; capabilities: string; noNewPrivs: string } {
  const user = world?.user;
  return {
    uid: user ? String(user.uid) : "",
    gid: user ? String(user.gid) : "",
    groups: user ? user.groups.map(String) : [],
    capabilities: world?.capabilities ?? "",
    noNewPrivs: world?.noNewPrivs ? "1" : "0",
  };
}

/**
 * enterArgv is the argv that runs `file` (argv[0] kept as given) in a running container's world
 * through the supervisor's enter mode: the leader's mount and network namespaces, the container's
 * user, capabilities and no_new_privs, then `cwd` inside that world.
 */
export function enterArgv(supervisor: string, leader: ProcessIdentity, world: ContainerWorld | undefined, netns: string | undefined, cwd: string, file: string, argv: readonly string[]): string[] {
  const join = [...(world?.mountNamespace ? ["mnt"] : []), ...(netns !== undefined ? ["net"] : [])].join(",") || "-";
  const f = worldFields(world);
  const dash = (text: string): string => (text === "" ? "-" : text);
  return [supervisor, "enter", String(leader.pid), String(leader.startTicks), join, dash(f.uid), dash(f.gid), f.groups.length > 0 ? f.groups.join(",") : "-", dash(f.capabilities), f.noNewPrivs, cwd, file, argv[0] ?? file, ...argv.slice(1)];
}
