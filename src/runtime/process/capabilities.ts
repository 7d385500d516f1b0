// Linux capabilities as a container runtime computes them from CRI's add and drop lists
// (containerd internal/cri/opts/spec_linux_opts.go WithCapabilities, over the default set of
// pkg/oci/spec.go): start from the default set, "ALL" in add gives every capability and "ALL" in
// drop none, then the named ones are added, then the named ones dropped. Names are matched
// without case and with or without the "CAP_" prefix, as containerd does.

/** CAPABILITY_NAMES are the kernel's capabilities by number (linux/capability.h, up to 40). */
export const CAPABILITY_NAMES = [
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
  "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
  "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
  "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
  "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
  "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
  "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
  "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
] as const;

/** DEFAULT_CAPABILITIES is containerd's default set for a container that is not privileged. */
export const DEFAULT_CAPABILITIES = [
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
  "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
  "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
] as const;

/** CapabilitySet is the capabilities a container keeps, or why the lists cannot be applied. */
export type CapabilitySet = { ok: true; bits: bigint } | { ok: false; message: string };

function bitOf(name: string): bigint | undefined {
  const upper = name.toUpperCase();
  const index = (CAPABILITY_NAMES as readonly string[]).indexOf(upper.startsWith("CAP_") ? upper : `CAP_${upper}`);
  return index < 0 ? undefined : 1n << BigInt(index);
}

const ALL_BITS = (1n << BigInt(CAPABILITY_NAMES.length)) - 1n;

/** capabilitySet applies CRI add and drop lists to containerd's default set. */
export function capabilitySet(add: readonly string[], drop: readonly string[]): CapabilitySet {
  const isAll = (name: string): boolean => name.toUpperCase() === "ALL";
  let bits = DEFAULT_CAPABILITIES.reduce((acc, name) => acc | bitOf(name)!, 0n);
  if (add.some(isAll)) bits = ALL_BITS;
  if (drop.some(isAll)) bits = 0n;
  for (const [list, adding] of [[add, true], [drop, false]] as const) {
    for (const name of list) {
      if (isAll(name)) continue;
      const bit = bitOf(name);
      if (bit === undefined) return { ok: false, message: `unknown capability "${name}"` };
      bits = adding ? bits | bit : bits & ~bit;
    }
  }
  return { ok: true, bits };
}
