// Mirror pods: how a static pod (a pod the node runs from a manifest file) shows in the API, as
// the kubelet marks it (pkg/kubelet/types/pod_update.go ConfigMirrorAnnotationKey,
// ConfigSourceAnnotationKey; pkg/kubelet/pod/mirror_client.go). The mirror is a copy with its
// own UID whose kubernetes.io/config.mirror annotation holds the static pod's UID (the kubelet's
// config hash). probelet also names the manifest the static pod comes from, so clients can say
// where to change it: a mirror deleted through the API is made again at once.
import type { Pod } from "./types.js";

/** ANNOTATION_CONFIG_MIRROR marks a mirror pod; its value is the static pod's UID (kubetypes.ConfigMirrorAnnotationKey). */
export const ANNOTATION_CONFIG_MIRROR = "kubernetes.io/config.mirror";

/** ANNOTATION_CONFIG_SOURCE names a pod's config source (kubetypes.ConfigSourceAnnotationKey): "file" for a static pod. */
export const ANNOTATION_CONFIG_SOURCE = "kubernetes.io/config.source";

/** ANNOTATION_MANIFEST is the absolute path of a static pod's manifest file ("-": standard input). */
export const ANNOTATION_MANIFEST = "probelet.dev/manifest";

/** ANNOTATION_MANIFEST_WATCHED is "true" when that file is in a watched manifest directory (`run --manifests`). */
export const ANNOTATION_MANIFEST_WATCHED = "probelet.dev/manifest-watched";

/** isMirrorPod reports whether a pod is the mirror of a static pod (kubelet IsMirrorPod). */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR] !== undefined;
}

/** staticPodUid is the UID of the static pod a mirror pod reflects, or undefined for any other pod. */
export function staticPodUid(pod: Pod): string | undefined {
  return pod.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR];
}

/** MIRROR_ANNOTATIONS are the annotations probelet adds to a static pod's mirror (and nothing a manifest sets). */
export const MIRROR_ANNOTATIONS: readonly string[] = [ANNOTATION_CONFIG_MIRROR, ANNOTATION_CONFIG_SOURCE, ANNOTATION_MANIFEST, ANNOTATION_MANIFEST_WATCHED];

/**
 * staticPodOrigin says in one line where a mirror pod's static pod comes from and how to remove
 * it, e.g. `pod "web" runs from /srv/web.yaml as a static pod and keeps running; to remove it,
 * run the agent without that file`; undefined for any other pod.
 */
export function staticPodOrigin(pod: Pod): string | undefined {
  if (!isMirrorPod(pod)) return undefined;
  const annotations = pod.metadata.annotations ?? {};
  const file = annotations[ANNOTATION_MANIFEST];
  const name = JSON.stringify(pod.metadata.name ?? "");
  if (file === undefined) return `pod ${name} is a static pod of its node and keeps running; it is removed from the node's manifests`;
  if (file === "-") return `pod ${name} runs from standard input as a static pod and keeps running; to remove it, run the agent without it`;
  const removal = annotations[ANNOTATION_MANIFEST_WATCHED] === "true" ? "delete that file or the pod in it" : "run the agent without that file";
  return `pod ${name} runs from ${file} as a static pod and keeps running; to remove it, ${removal}`;
}
