// GET /version: the version.Info kubectl version and every client's discovery read. The agent
// reports the Kubernetes release it emulates (the kubelet's, see src/probe/user-agent.ts).
import { arch } from "node:os";
import { KUBE_VERSION, KUBELET_VERSION } from "../../probe/user-agent.js";
import { probeletVersion } from "../../util/package-version.js";

/** VersionInfo is k8s.io/apimachinery/pkg/version.Info, plus the agent's own release (clients ignore it). */
export interface VersionInfo {
  /** probelet's package version (beyond version.Info; `probelet version` shows it). */
  probeletVersion: string;
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/** GIT_VERSION is the gitVersion the agent answers: the emulated release, marked as probelet's (KUBELET_VERSION). */
export const GIT_VERSION = KUBELET_VERSION;

/** versionInfo is what GET /version answers. */
export function versionInfo(): VersionInfo {
  const goArch = arch() === "x64" ? "amd64" : arch();
  return {
    probeletVersion: probeletVersion(),
    major: String(KUBE_VERSION.major),
    minor: String(KUBE_VERSION.minor),
    gitVersion: GIT_VERSION,
    gitCommit: "",
    gitTreeState: "clean",
    buildDate: "",
    goVersion: `node${process.versions.node}`,
    compiler: "tsc",
    platform: `${process.platform}/${goArch}`,
  };
}
