// The real kubectl binaries scripts/kube-clients.sh unpacks into the cache, and the reason to
// skip a test when they are not there.
import { accessSync, constants, existsSync } from "node:fs";
import { join } from "node:path";

/** KUBECTL_VERSIONS are the kubectl minors the cache holds: Debian 12's 1.20 and Debian 13's 1.32. */
export const KUBECTL_VERSIONS = ["1.20", "1.32"] as const;

/** KubectlVersion is one of KUBECTL_VERSIONS. */
export type KubectlVersion = (typeof KUBECTL_VERSIONS)[number];

/** cacheDir is the directory both scripts keep their downloads in (PROBELET_CACHE_DIR). */
export function cacheDir(): string {
  return process.env["PROBELET_CACHE_DIR"] || "/var/cache/probelet";
}

/** kubectlPath is where scripts/kube-clients.sh puts kubectl `version` (whether or not it is there). */
export function kubectlPath(version: KubectlVersion): string {
  return join(cacheDir(), "kube-clients", `kubectl-${version}`);
}

/**
 * kubectlEnv returns the paths of both cached kubectl binaries, or `skip`: the reason a test
 * that needs them cannot run (with the command that fixes it).
 */
export function kubectlEnv(): { paths: Record<KubectlVersion, string>; skip: false } | { paths: undefined; skip: string } {
  const stamp = join(cacheDir(), "kube-clients", "stamp");
  if (!existsSync(stamp)) return { paths: undefined, skip: `kubectl is not installed in ${cacheDir()} (scripts/kube-clients.sh install)` };
  const paths = {} as Record<KubectlVersion, string>;
  for (const version of KUBECTL_VERSIONS) {
    const path = kubectlPath(version);
    try {
      accessSync(path, constants.X_OK);
    } catch {
      return { paths: undefined, skip: `${path} is missing or not executable (scripts/kube-clients.sh install)` };
    }
    paths[version] = path;
  }
  return { paths, skip: false };
}
