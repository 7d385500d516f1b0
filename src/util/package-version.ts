// probelet's own release: the version in the nearest package.json named "probelet" above this
// file (src/util/ in the checkout, dist/src/util/ when built, also under node_modules), read once.
import { readFileSync } from "node:fs";

let cached: string | undefined;

/** probeletVersion is probelet's package version, or "unknown" when no package.json says it. */
export function probeletVersion(): string {
  if (cached !== undefined) return cached;
  cached = "unknown";
  for (const rel of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === "probelet" && typeof pkg.version === "string") return (cached = pkg.version);
    } catch {
      // no (readable) package.json there: try the next layout
    }
  }
  return cached;
}
