// The PodKit of the CRI runtime: the upstream recipes run on the images scripts/containerd.sh
// builds (docs/cri.md "Test images"). Pods use the host network, so probes reach 127.0.0.1:port
// and every server listens on a free host port given on its command line; the files upstream
// keeps in /tmp live in the container's own /tmp, where only exec probes (which run inside the
// container) can see them.
import { posix } from "node:path";
import type { AgnhostProgram, ContainerRun, PodKit } from "./pod-kit.js";

/** CRI_BUSYBOX_IMAGE is busybox-static with the `liveness [PORT]` and `test-webserver [PORT]` stand-ins. */
export const CRI_BUSYBOX_IMAGE = "localhost/probelet/busybox:1";
/** CRI_PAUSE_IMAGE is the sandbox image (the busybox layer with entrypoint `sleep inf`). */
export const CRI_PAUSE_IMAGE = "localhost/probelet/pause:1";
/** CRI_GRPC_IMAGE serves grpc.health.v1 on `--port` and its switch on `--http-port` (node). */
export const CRI_GRPC_IMAGE = "localhost/probelet/grpc-health:1";
/** CRI_IMAGES are the images the CRI cases need in containerd's k8s.io namespace. */
export const CRI_IMAGES: readonly string[] = [CRI_BUSYBOX_IMAGE, CRI_PAUSE_IMAGE, CRI_GRPC_IMAGE];

/**
 * PAUSE_SCRIPT stands in for agnhost pause: it sleeps until SIGTERM, then exits 0. The pause
 * image's own `sleep inf` would, as PID 1 without a handler, ignore SIGTERM and hold every
 * graceful pod deletion for the full grace period, which agnhost pause does not.
 */
export const PAUSE_SCRIPT = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";

/** flagPort reads an upstream port from the kit's flag map, with the program's own default. */
function flagPort(flags: Readonly<Record<string, number>>, name: string, fallback: number): number {
  return flags[name] ?? fallback;
}

/**
 * createCriPodKit builds the CRI kit; `port` maps an upstream port to this case's free host port.
 * agnhost programs map to the images' stand-ins: `liveness PORT`, `test-webserver PORT` (busybox),
 * the gRPC health server (`--port`, `--http-port`), and PAUSE_SCRIPT on the pause image. upstream's
 * `/bin/bash -c` scripts run under busybox sh (the image has no bash); the scripts only use POSIX
 * sh features. A container's PID 1 ignores SIGTERM unless it traps it, so asPid1 changes nothing.
 */
export function createCriPodKit(port: (upstream: number) => number): PodKit {
  return {
    kind: "cri",
    hostNetwork: true,
    port,
    agnhost(program: AgnhostProgram, flags: Record<string, number> = {}): ContainerRun {
      switch (program) {
        case "liveness":
          return { image: CRI_BUSYBOX_IMAGE, command: ["liveness", String(port(flagPort(flags, "port", 8080)))] };
        case "test-webserver":
          return { image: CRI_BUSYBOX_IMAGE, command: ["test-webserver", String(port(flagPort(flags, "port", 80)))] };
        case "grpc-health-checking":
          // The image's entrypoint is the server; only its arguments are given.
          return { image: CRI_GRPC_IMAGE, args: ["--port", String(port(flagPort(flags, "port", 5000))), "--http-port", String(port(flagPort(flags, "http-port", 8080)))] };
        case "pause":
          return { image: CRI_PAUSE_IMAGE, command: ["/bin/sh", "-c", PAUSE_SCRIPT] };
      }
    },
    bash(script) {
      return { image: CRI_BUSYBOX_IMAGE, command: ["/bin/sh"], args: ["-c", script] };
    },
    busybox(command) {
      return { image: CRI_BUSYBOX_IMAGE, command };
    },
    httpGet: (url) => ["wget", "-q", "-O", "/dev/null", url],
    tmp: (name) => posix.join("/tmp", name),
    asPid1: (script) => script,
  };
}
