// The metav1.Status objects `kubectl exec` receives: before the upgrade as the HTTP answer (the
// API server's pod exec REST and the kubelet's exec handler), after it on the error channel
// (the kubelet's remotecommand ServeExec: Success, NonZeroExitCode, or InternalError).

/** ExecStatusCause is a metav1.StatusCause; its Go field Type is serialised as "reason". */
export interface ExecStatusCause {
  reason?: string;
  message: string;
}

/** ExecStatusDetails is metav1.StatusDetails: which object failed and why. */
export interface ExecStatusDetails {
  name?: string;
  kind?: string;
  causes?: ExecStatusCause[];
}

/** ExecStatus is a metav1.Status with the API server's key order. */
export interface ExecStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: ExecStatusDetails;
  code?: number;
}

/** failure builds a failed Status as apimachinery's errors package does. */
export function failure(code: number, reason: string, message: string, details?: ExecStatusDetails): ExecStatus {
  const head = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason } as const;
  return details ? { ...head, details, code } : { ...head, code };
}

/** badRequest is errors.NewBadRequest. */
export function badRequest(message: string): ExecStatus {
  return failure(400, "BadRequest", message);
}

/** internalError is errors.NewInternalError: the message is prefixed, the cause repeated. */
export function internalError(message: string): ExecStatus {
  return failure(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** success is the Status the error channel carries when the command exited 0. */
export function success(): ExecStatus {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" };
}

/**
 * exitStatus is what the error channel carries once the command exited (kubelet
 * pkg/kubelet/cri/streaming/remotecommand/exec.go ServeExec): Success for 0, else
 * NonZeroExitCode with the code as the single ExitCode cause, which kubectl turns into
 * "command terminated with exit code <n>".
 */
export function exitStatus(argv: readonly string[], exitCode: number): ExecStatus {
  if (exitCode === 0) return success();
  const { kind, apiVersion, metadata } = success();
  return {
    kind,
    apiVersion,
    metadata,
    status: "Failure",
    message: `command terminated with non-zero exit code: error executing command [${argv.join(" ")}], exit code ${exitCode}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(exitCode) }] },
  };
}

/** podNotFound is the API server's answer for an exec into a pod it does not have. */
export function podNotFound(name: string): ExecStatus {
  return failure(404, "NotFound", `pods "${name}" not found`, { name, kind: "pods" });
}

/** containerNotValid is the API server's answer for -c naming no container of the pod (pod strategy validateContainer). */
export function containerNotValid(container: string, pod: string): ExecStatus {
  return badRequest(`container ${container} is not valid for pod ${pod}`);
}

/** containerNameRequired is the API server's answer when -c is missing and the pod has several containers. */
export function containerNameRequired(pod: string, containers: readonly string[]): ExecStatus {
  return badRequest(`a container name must be specified for pod ${pod}, choose one of: [${containers.join(" ")}]`);
}

/** completedPod is the API server's answer for an exec into a Succeeded or Failed pod. */
export function completedPod(phase: string): ExecStatus {
  return badRequest(`cannot exec into a container in a completed pod; current phase is ${phase}`);
}

/** containerNotRunning is the kubelet's answer when the container has no running instance (kubelet GetExec findContainer). */
export function containerNotRunning(container: string): ExecStatus {
  return internalError(`container not found ("${container}")`);
}
