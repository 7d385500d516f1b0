// PodKit: what differs between runtimes when a case builds its pods: how an "image" runs (the
// process runtime runs host programs: test/e2e/bin/agnhost.mjs for agnhost, /bin/sh for
// busybox; the CRI runtime runs the localhost/probelet/* images, see cri-pod-kit.ts), where the
// files upstream keeps in /tmp go, and which ports the servers use (process pods and hostNetwork
// CRI pods all share the host's ports, so every upstream port is mapped to a free one per case).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Container } from "../../src/api/types.js";
import { createCriPodKit } from "./cri-pod-kit.js";
import type { RuntimeKind } from "./runtime-factory.js";

/** Upstream images (test/utils/image), named on process pods too (the runtime ignores them with an ImageIgnored event). */
export const AGNHOST_IMAGE = "registry.k8s.io/e2e-test-images/agnhost:2.53";
/** BUSYBOX_IMAGE is upstream's busybox e2e image. */
export const BUSYBOX_IMAGE = "registry.k8s.io/e2e-test-images/busybox:1.36.1-1";

/** AgnhostProgram is an agnhost subcommand the cases run. */
export type AgnhostProgram = "liveness" | "test-webserver" | "grpc-health-checking" | "pause";

/** ContainerRun is the part of a Container that says what runs. */
export type ContainerRun = Pick<Container, "image" | "command" | "args" | "workingDir">;

/** PodKit maps the upstream pod recipes onto one runtime. */
export interface PodKit {
  readonly kind: RuntimeKind;
  /** hostNetwork: the recipes set `spec.hostNetwork: true` (CRI pods, so probes reach 127.0.0.1:port). */
  readonly hostNetwork: boolean;
  /** port maps an upstream port (80, 81, 2333, 5000, 8080) to the one this case uses. */
  port(upstream: number): number;
  /** agnhost runs an agnhost program; `ports` are upstream numbers by flag name (port, http-port). */
  agnhost(program: AgnhostProgram, ports?: Record<string, number>): ContainerRun;
  /** bash runs `/bin/bash -c <script>` from the agnhost image (upstream's termination cases). */
  bash(script: string): ContainerRun;
  /** busybox runs a command of the busybox image (sh, cat, sleep, rm, true, false). */
  busybox(command: string[]): ContainerRun;
  /** httpGet is a command that GETs `url` and exits 0 on a 2xx answer (upstream's `curl` in hooks). */
  httpGet(url: string): string[];
  /** tmp is the path of a scratch file upstream keeps in /tmp (private to the case). */
  tmp(name: string): string;
  /**
   * asPid1 wraps a shell script so SIGTERM is ignored as by a container's PID 1 without a
   * handler (the kill then waits for the grace period and SIGKILLs).
   */
  asPid1(script: string): string;
}

/** agnhostPath locates test/e2e/bin/agnhost.mjs from source or from dist/. */
export function agnhostPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    const candidate = join(dir, "test", "e2e", "bin", "agnhost.mjs");
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error("test/e2e/bin/agnhost.mjs not found");
}

/** createPodKit returns the kit for a runtime kind; `workDir` is the case's scratch dir. */
export function createPodKit(kind: RuntimeKind, workDir: string, ports: ReadonlyMap<number, number>): PodKit {
  const port = (upstream: number): number => {
    const mapped = ports.get(upstream);
    if (mapped === undefined) throw new Error(`upstream port ${upstream} has no mapping`);
    return mapped;
  };
  if (kind === "cri") return createCriPodKit(port);
  const agnhost = agnhostPath();
  return {
    kind,
    hostNetwork: false,
    port,
    agnhost(program, flags = {}) {
      const args = Object.entries(flags).flatMap(([flag, upstream]) => [`--${flag}`, String(port(upstream))]);
      return { image: AGNHOST_IMAGE, command: [process.execPath, agnhost, program, ...args], workingDir: workDir };
    },
    bash(script) {
      return { image: AGNHOST_IMAGE, command: ["/bin/bash"], args: ["-c", script], workingDir: workDir };
    },
    busybox(command) {
      return { image: BUSYBOX_IMAGE, command, workingDir: workDir };
    },
    // The host has no curl or wget for sure; the Node running the tests has fetch.
    httpGet: (url) => [process.execPath, "-e", "fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(2))", url],
    tmp: (name) => join(workDir, name),
    // Process containers get SIGTERM on their whole group, so the ignoring is inherited instead.
    asPid1: (script) => `trap '' TERM; ${script}`,
  };
}
