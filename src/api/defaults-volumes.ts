// Defaulting of pod volumes and env sources (pkg/apis/core/v1/defaults.go SetDefaults_Volume,
// SetDefaults_ConfigMapVolumeSource, SetDefaults_SecretVolumeSource,
// SetDefaults_DownwardAPIVolumeSource, SetDefaults_ProjectedVolumeSource,
// SetDefaults_ServiceAccountTokenProjection, SetDefaults_HostPathVolumeSource,
// SetDefaults_ObjectFieldSelector). Callers pass clones.
import type { Container, Volume } from "./types.js";

/** DEFAULT_VOLUME_MODE is the file mode of projected files when none is given (0644). */
export const DEFAULT_VOLUME_MODE = 0o644;

/** DEFAULT_TOKEN_EXPIRATION_SECONDS is a serviceAccountToken projection's lifetime when none is given (an hour). */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

/**
 * defaultVolumes fills in place: a volume without any source becomes an emptyDir (SetDefaults_Volume),
 * defaultMode 0644 on configMap, secret, downwardAPI and projected volumes, hostPath type "",
 * fieldRef apiVersion "v1" in downward-API items and expirationSeconds 3600 on service-account
 * token projections.
 */
export function defaultVolumes(volumes: Volume[]): void {
  for (const v of volumes) {
    const sources = Object.keys(v).filter((k) => k !== "name");
    if (sources.length === 0) v.emptyDir = {};
    if (v.configMap) v.configMap.defaultMode ??= DEFAULT_VOLUME_MODE;
    if (v.secret) v.secret.defaultMode ??= DEFAULT_VOLUME_MODE;
    if (v.hostPath) v.hostPath.type ??= "";
    if (v.downwardAPI) {
      v.downwardAPI.defaultMode ??= DEFAULT_VOLUME_MODE;
      for (const item of v.downwardAPI.items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ||= "v1";
    }
    if (v.projected) {
      v.projected.defaultMode ??= DEFAULT_VOLUME_MODE;
      for (const s of v.projected.sources ?? []) {
        for (const item of s.downwardAPI?.items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ||= "v1";
        if (s.serviceAccountToken) s.serviceAccountToken.expirationSeconds ??= DEFAULT_TOKEN_EXPIRATION_SECONDS;
      }
    }
  }
}

/** defaultEnvSources sets fieldRef apiVersion "v1" on a container's env in place (SetDefaults_ObjectFieldSelector). */
export function defaultEnvSources(container: Container): void {
  for (const e of container.env ?? []) if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ||= "v1";
}
