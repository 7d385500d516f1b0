// The Mounts of a container and the Volumes of a pod as `kubectl describe pod` prints them
// (kubectl pkg/describe describe.go describeContainerVolumes, describeVolumes and the
// print*VolumeSource functions), read from the opaque volumeMounts and volumes of the manifest.
// probelet's runtimes mount no volumes; describe shows what the pod asks for, as kubectl does.
import type { Container, Pod } from "../api/types.js";

const L1 = "  ";
const L2 = "    ";
const L3 = "      ";

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function asObjects(value: unknown): Json[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown): Json[] => {
    const o = asObject(v);
    return o ? [o] : [];
  });
}

function text(value: unknown): string {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : "";
}

/** mountLines is a container's "Mounts:" block: `<path> from <volume> (ro|rw[,path="<subPath>"])`, sorted by path. */
export function mountLines(c: Container): string[] {
  const mounts = asObjects((c as unknown as Json)["volumeMounts"]);
  if (mounts.length === 0) return [`${L2}Mounts:\t<none>`];
  const sorted = [...mounts].sort((a, b) => (text(a["mountPath"]) < text(b["mountPath"]) ? -1 : text(a["mountPath"]) > text(b["mountPath"]) ? 1 : 0));
  return [
    `${L2}Mounts:`,
    ...sorted.map((m) => {
      const flags = [m["readOnly"] === true ? "ro" : "rw", ...(text(m["subPath"]) !== "" ? [`path=${JSON.stringify(text(m["subPath"]))}`] : [])];
      return `${L3}${text(m["mountPath"])} from ${text(m["name"])} (${flags.join(",")})`;
    }),
  ];
}

/** volumeSourceLines prints one volume's source as kubectl does for the kinds it names here; others are `<unknown>`. */
function volumeSourceLines(volume: Json): string[] {
  const emptyDir = asObject(volume["emptyDir"]);
  if (emptyDir) {
    const limit = text(emptyDir["sizeLimit"]);
    return [`${L2}Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)`, `${L2}Medium:\t${text(emptyDir["medium"])}`, `${L2}SizeLimit:\t${limit === "" || limit === "0" ? "<unset>" : limit}`];
  }
  const hostPath = asObject(volume["hostPath"]);
  if (hostPath) {
    const type = text(hostPath["type"]);
    return [`${L2}Type:\tHostPath (bare host directory volume)`, `${L2}Path:\t${text(hostPath["path"])}`, `${L2}HostPathType:\t${type === "" && hostPath["type"] === undefined ? "<none>" : type}`];
  }
  const configMap = asObject(volume["configMap"]);
  if (configMap) return [`${L2}Type:\tConfigMap (a volume populated by a ConfigMap)`, `${L2}Name:\t${text(configMap["name"])}`, `${L2}Optional:\t${configMap["optional"] === true}`];
  const secret = asObject(volume["secret"]);
  if (secret) return [`${L2}Type:\tSecret (a volume populated by a Secret)`, `${L2}SecretName:\t${text(secret["secretName"])}`, `${L2}Optional:\t${secret["optional"] === true}`];
  const claim = asObject(volume["persistentVolumeClaim"]);
  if (claim) {
    return [`${L2}Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)`, `${L2}ClaimName:\t${text(claim["claimName"])}`, `${L2}ReadOnly:\t${claim["readOnly"] === true}`];
  }
  return [`${L1}<unknown>`];
}

/** volumeLines is the pod's "Volumes:" block: each volume's name, then its source. */
export function volumeLines(pod: Pod): string[] {
  const volumes = asObjects((pod.spec as unknown as Json)["volumes"]);
  if (volumes.length === 0) return ["Volumes:\t<none>"];
  return ["Volumes:", ...volumes.flatMap((v) => [`${L1}${text(v["name"])}:`, ...volumeSourceLines(v)])];
}
