// The real control plane the cluster tests use (started by scripts/control-plane.sh), the
// reason to skip them when it is not there, and kubectl run against it with a kubeconfig.
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../cri/containerd-script.js";
import { kubectlEnv, type KubectlVersion } from "../kube-clients/kubectl-env.js";

/** ControlPlaneEnv is what `eval "$(scripts/control-plane.sh start)"` exported. */
export interface ControlPlaneEnv {
  /** The run directory: logs, PID files, certificates, tokens, kubeconfigs. */
  dir: string;
  /** The API server's https URL on 127.0.0.1. */
  server: string;
  /** The CA that signed the API server's serving certificate. */
  serverCa: string;
  /** A kubeconfig of a user in system:masters. */
  adminKubeconfig: string;
  /** Node name to the kubeconfig of system:node:<name> (group system:nodes). */
  nodeKubeconfigs: ReadonlyMap<string, string>;
  /** The CA a node should trust for the API server's client certificate (logs, exec). */
  kubeletClientCa: string;
}

/** CONTROL_PLANE_BINARIES are what scripts/control-plane.sh runs, plus the kubectl of the same release. */
const CONTROL_PLANE_BINARIES = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"] as const;

/**
 * k8sToolPath is the path of a binary scripts/k8s-tools.sh built (`k8s-tools.sh path NAME`), or
 * undefined when it is not built.
 */
export function k8sToolPath(name: string): string | undefined {
  const run = spawnSync("bash", [join(repoRoot(), "scripts", "k8s-tools.sh"), "path", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10_000 });
  const path = run.status === 0 ? run.stdout.trim() : "";
  return path !== "" && existsSync(path) ? path : undefined;
}

let builtReason: string | false | undefined;

/** notBuilt is the reason a test that starts its own control plane cannot run, or false. */
export function notBuilt(): string | false {
  if (process.platform !== "linux") return "the control plane tests need Linux";
  if (process.getuid?.() !== 0) return "the control plane tests need root (run them as root)";
  builtReason ??= CONTROL_PLANE_BINARIES.some((name) => k8sToolPath(name) === undefined)
    ? "the control plane is not built (scripts/control-plane.sh build; scripts/k8s-tools.sh status lists what is there)"
    : false;
  return builtReason;
}

/** nodeKubeconfigVariable is the variable start exports for a node's kubeconfig ('-' and '.' become '_'). */
export function nodeKubeconfigVariable(node: string): string {
  return `PROBELET_CP_NODE_KUBECONFIG_${node.replace(/[-.]/g, "_")}`;
}

/**
 * readControlPlaneEnv reads `vars` (process.env by default); `skip` is the reason the tests
 * that need a running control plane cannot run, or false.
 */
export function readControlPlaneEnv(vars: NodeJS.ProcessEnv = process.env): { env: ControlPlaneEnv; skip: false } | { env: undefined; skip: string } {
  const unbuilt = notBuilt();
  if (unbuilt) return { env: undefined, skip: unbuilt };
  const dir = vars["PROBELET_CP_DIR"];
  const server = vars["PROBELET_CP_SERVER"];
  const adminKubeconfig = vars["PROBELET_CP_ADMIN_KUBECONFIG"];
  if (!dir || !server || !adminKubeconfig) {
    return { env: undefined, skip: 'the control plane is not started (eval "$(scripts/control-plane.sh start)")' };
  }
  if (!existsSync(adminKubeconfig)) return { env: undefined, skip: `no admin kubeconfig at ${adminKubeconfig} (scripts/control-plane.sh start)` };
  const nodeKubeconfigs = new Map<string, string>();
  for (const node of (vars["PROBELET_CP_NODES"] ?? "").split(" ").filter(Boolean)) {
    const kubeconfig = vars[nodeKubeconfigVariable(node)];
    if (kubeconfig) nodeKubeconfigs.set(node, kubeconfig);
  }
  return {
    skip: false,
    env: {
      dir,
      server,
      serverCa: vars["PROBELET_CP_CA"] ?? join(dir, "pki", "server-ca.crt"),
      adminKubeconfig,
      nodeKubeconfigs,
      kubeletClientCa: vars["PROBELET_CP_KUBELET_CLIENT_CA"] ?? join(dir, "pki", "kubelet-client-ca.crt"),
    },
  };
}

/** KubectlResult is how a kubectl run ended. */
export interface KubectlResult {
  /** The exit code (null when a signal ended it). */
  code: number | null;
  stdout: string;
  stderr: string;
}

const KUBECTL_TIMEOUT_MS = 30_000;
const KUBECTL_MAX_OUTPUT = 4 * 1024 * 1024;

/** ClusterKubectl is a kubectl to run against the control plane: the one built with it (1.37) or a cached Debian one. */
export type ClusterKubectl = "1.37" | KubectlVersion;

/** kubectlBinary is the path of that kubectl; throws when it is not there. */
function kubectlBinary(version: ClusterKubectl): string {
  if (version === "1.37") {
    const path = k8sToolPath("kubectl");
    if (path === undefined) throw new Error("kubectl 1.37 is not built (scripts/control-plane.sh build)");
    return path;
  }
  const found = kubectlEnv();
  if (found.skip !== false) throw new Error(found.skip);
  return found.paths[version];
}

/**
 * kubectl runs kubectl `version` (by default the 1.37 one built with the control plane) with
 * `kubeconfig` and `args` (no shell; the token stays in the kubeconfig's tokenFile, never in
 * argv). Its discovery cache lives in a temporary directory removed afterwards. Resolves with the
 * exit code and output; rejects only when that kubectl is not there.
 */
export async function kubectl(kubeconfig: string, args: readonly string[], version: ClusterKubectl = "1.37"): Promise<KubectlResult> {
  const binary = kubectlBinary(version);
  const cache = await mkdtemp(join(tmpdir(), "probelet-kubectl-cache-"));
  try {
    return await new Promise<KubectlResult>((resolve) => {
      execFile(
        binary,
        [`--kubeconfig=${kubeconfig}`, `--cache-dir=${cache}`, ...args],
        { timeout: KUBECTL_TIMEOUT_MS, maxBuffer: KUBECTL_MAX_OUTPUT, encoding: "utf8" },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  } finally {
    await rm(cache, { recursive: true, force: true });
  }
}
