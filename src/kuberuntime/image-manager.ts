// ImageManager: the kubelet's EnsureImageExists (pkg/kubelet/images/image_manager.go) with its
// serial puller (puller.go; serializeImagePulls is on by default): the pull policy, the events
// with the kubelet's texts, the image pull back-off (flowcontrol, 10 s doubling to 300 s, keyed by
// pod and image) and the errors that become a container's waiting reason (types.go).
import { defaultPullPolicy, imageTag } from "../api/defaults.js";
import { goQuote } from "../api/field-errors.js";
import { formatGoDuration } from "../probe/go-duration.js";
import type { EventRecorder, EventTarget } from "../prober/event-recorder.js";
import type { ImageService, ImageSpec, PodSandboxConfig } from "../runtime/runtime.js";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { imageNameError } from "./image-reference.js";

/** The kubelet's image errors (images/types.go), each a container's waiting reason. */
const ERR_IMAGE_PULL = "ErrImagePull";
/** ImagePullBackOff: a pull is held back by the image back-off. */
const IMAGE_PULL_BACK_OFF = "ImagePullBackOff";
/** ErrImageNeverPull: an absent image with imagePullPolicy Never. */
const ERR_IMAGE_NEVER_PULL = "ErrImageNeverPull";
/** ImageInspectError: the runtime could not say whether it holds the image. */
const IMAGE_INSPECT_ERROR = "ImageInspectError";
/** InvalidImageName: the name is no image reference. */
const INVALID_IMAGE_NAME = "InvalidImageName";
/** The CRI errors a pull failure may start with (cri-api pkg/errors), kept as the reason (evalCRIPullErr). */
const REGISTRY_UNAVAILABLE = "RegistryUnavailable";
const SIGNATURE_VALIDATION_FAILED = "SignatureValidationFailed";

/** IMAGE_BACKOFF_INITIAL_MS and IMAGE_BACKOFF_MAX_MS are kubelet.go's imageBackOffPeriod and MaxImageBackOff. */
export const IMAGE_BACKOFF_INITIAL_MS = 10_000;
export const IMAGE_BACKOFF_MAX_MS = 300_000;

/**
 * PullBackOff is the flowcontrol back-off the image manager keeps per pod and image (client-go
 * Backoff: IsInBackOffSinceUpdate, Next, GC, Get).
 */
export interface PullBackOff {
  /** inBackOffSinceUpdate: less than the current delay has passed since the key was last raised. */
  inBackOffSinceUpdate(key: string): boolean;
  /** next raises the key's delay (the first time, or once stale: the initial delay). */
  next(key: string, at: number): void;
  /** delayMs is the key's current delay, 0 when it has none. */
  delayMs(key: string): number;
  /** gc forgets the keys not raised within twice the cap. */
  gc(): void;
}

/** ImageManagerDeps are the image manager's collaborators. */
export interface ImageManagerDeps {
  images: ImageService;
  backOff: PullBackOff;
  events: EventRecorder;
  clock: Clock;
  logger: Logger;
}

/** EnsureImageResult is an image ready for the container, or the waiting reason and message of one that is not. */
export type EnsureImageResult = { ok: true; imageRef: string } | { ok: false; reason: string; message: string };

/** ImageManager makes sure a container's image is there before it is created (kubelet imageManager). */
export class ImageManager {
  /** The last pull error per back-off key, shown while backing off (imageManager.prevPullErrMsg). */
  private readonly prevPullErrMsg = new Map<string, string>();
  /** The serial puller's queue: one PullImage at a time, in the order asked. */
  private pulls: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: ImageManagerDeps) {}

  /**
   * ensureImageExists is EnsureImageExists for one container of a pod: by the pull policy (unset:
   * the API's default from the tag), look the image up and, when it must be pulled, pull it
   * unless the pod's pull of that image is backing off. Events go to `target` with the kubelet's
   * texts; a failure comes back as the container's waiting reason and message.
   */
  async ensureImageExists(target: EventTarget, requestedImage: string, pullPolicy: string | undefined, sandbox: PodSandboxConfig): Promise<EnsureImageResult> {
    const invalid = imageNameError(requestedImage);
    if (invalid !== undefined) {
      // applyDefaultImageTag fails before anything is asked of the runtime.
      const message = `Failed to apply default image tag ${goQuote(requestedImage)}: ${invalid}`;
      this.d.events.event(target, "Warning", "InspectFailed", message);
      return { ok: false, reason: INVALID_IMAGE_NAME, message };
    }
    const policy = pullPolicy || defaultPullPolicy(requestedImage);
    const spec: ImageSpec = { image: withDefaultTag(requestedImage), annotations: { ...(target.pod.metadata.annotations ?? {}) } };
    if (policy !== "Always") {
      let imageRef: string;
      try {
        imageRef = (await this.d.images.imageStatus(spec))?.id ?? "";
      } catch (err) {
        // imagePullPrecheck: the ref is empty when the lookup fails, and the text names it so.
        const message = `Failed to inspect image "": ${errorText(err)}`;
        this.d.events.event(target, "Warning", "InspectFailed", message);
        return { ok: false, reason: IMAGE_INSPECT_ERROR, message };
      }
      if (imageRef !== "") {
        // KubeletEnsureSecretPulledImages (on by default since 1.35): an image pulled without
        // credentials, or preloaded, is accessible to every pod, so it is not pulled again.
        this.d.events.event(target, "Normal", "Pulled", `Container image "${requestedImage}" already present on machine and can be accessed by the pod`);
        return { ok: true, imageRef };
      }
      if (policy === "Never") {
        const message = `Container image "${requestedImage}" is not present with pull policy of Never`;
        this.d.events.event(target, "Warning", ERR_IMAGE_NEVER_PULL, message);
        return { ok: false, reason: ERR_IMAGE_NEVER_PULL, message };
      }
    }
    return this.pullImage(target, requestedImage, spec, sandbox);
  }

  /**
   * gc forgets back-off entries that went stale, as the kubelet's back-off GC does after a
   * successful pull; the agent also calls it on housekeeping, which changes nothing a lookup
   * sees (a stale entry reads as none) but bounds what deleted pods leave behind.
   */
  gc(): void {
    this.d.backOff.gc();
    for (const key of this.prevPullErrMsg.keys()) if (this.d.backOff.delayMs(key) === 0) this.prevPullErrMsg.delete(key);
  }

  /** pullImage is imageManager.pullImage: the back-off check, Pulling, the pull, then Pulled or Failed. */
  private async pullImage(target: EventTarget, image: string, spec: ImageSpec, sandbox: PodSandboxConfig): Promise<EnsureImageResult> {
    const key = `${target.pod.metadata.uid ?? ""}_${image}`;
    if (this.d.backOff.inBackOffSinceUpdate(key)) {
      const text = `Back-off pulling image "${image}"`;
      this.d.events.event(target, "Normal", "BackOff", text);
      const previous = this.prevPullErrMsg.get(key);
      return { ok: false, reason: IMAGE_PULL_BACK_OFF, message: previous === undefined ? text : `${text}: ${previous}` };
    }
    this.prevPullErrMsg.delete(key);
    this.d.events.event(target, "Normal", "Pulling", `Pulling image "${image}"`);
    const asked = this.d.clock.monotonic();
    const result = await this.serially(() => this.pullAndMeasure(spec, sandbox));
    if (!result.ok) {
      const text = errorText(result.error);
      this.d.events.event(target, "Warning", "Failed", `Failed to pull image "${image}": ${text}`);
      this.d.backOff.next(key, this.d.clock.now());
      const failure = evalPullError(image, text);
      this.prevPullErrMsg.set(key, `${failure.reason}: ${failure.message}`);
      this.d.logger.info("Image pull failed", { pod: target.pod.metadata.name, image, reason: failure.reason, err: text });
      return { ok: false, ...failure };
    }
    const waited = truncateToMs(this.d.clock.monotonic() - asked);
    const took = formatGoDuration(truncateToMs(result.pullMs));
    this.d.events.event(target, "Normal", "Pulled", `Successfully pulled image "${image}" in ${took} (${formatGoDuration(waited)} including waiting). Image size: ${result.size} bytes.`);
    this.gc();
    return { ok: true, imageRef: result.imageRef };
  }

  /**
   * pullAndMeasure is one request of the serial puller: PullImage, then the image's size at best
   * effort (GetImageSize, errors ignored); its duration includes the size lookup, as there.
   */
  private async pullAndMeasure(spec: ImageSpec, sandbox: PodSandboxConfig): Promise<{ ok: true; imageRef: string; size: number; pullMs: number } | { ok: false; error: unknown }> {
    const started = this.d.clock.monotonic();
    try {
      const imageRef = await this.d.images.pullImage(spec, sandbox);
      const size = await this.d.images.imageStatus(spec).then((s) => s?.size ?? 0, () => 0);
      return { ok: true, imageRef, size, pullMs: this.d.clock.monotonic() - started };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** serially runs `work` after every pull asked before it has finished (serialImagePuller). */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.pulls.then(work);
    this.pulls = run.catch(() => undefined);
    return run;
  }
}

/**
 * withDefaultTag is applyDefaultImageTag: an image with neither tag nor digest is asked for with
 * ":latest" (the name is otherwise kept as written: no registry or "library/" is added).
 */
export function withDefaultTag(image: string): string {
  if (image.includes("@") || imageTag(image) !== "latest" || image.endsWith(":latest")) return image;
  return `${image}:latest`;
}

/**
 * evalPullError is evalCRIPullErr: a runtime error starting with a CRI error name keeps that
 * name as the reason with a sentence for the rest; any other is ErrImagePull with its text.
 */
function evalPullError(image: string, text: string): { reason: string; message: string } {
  if (text.startsWith(REGISTRY_UNAVAILABLE)) {
    return { reason: REGISTRY_UNAVAILABLE, message: `image pull failed for ${image} because the registry is unavailable${text.slice(REGISTRY_UNAVAILABLE.length)}` };
  }
  if (text.startsWith(SIGNATURE_VALIDATION_FAILED)) {
    return { reason: SIGNATURE_VALIDATION_FAILED, message: `image pull failed for ${image} because the signature validation failed${text.slice(SIGNATURE_VALIDATION_FAILED.length)}` };
  }
  return { reason: ERR_IMAGE_PULL, message: text };
}

/** truncateToMs is Go's Duration.Truncate(time.Millisecond). */
function truncateToMs(ms: number): number {
  return Math.max(0, Math.floor(ms));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
