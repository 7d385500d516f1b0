// The cached probe result (kubelet pkg/kubelet/prober/results).

/** Result is a worker's cached verdict for a container (kubelet results.Result). */
export type Result = "Success" | "Failure" | "Unknown";

/** resultString renders a Result like the kubelet's String(): Success, Failure, UNKNOWN. */
export function resultString(result: Result): string {
  return result === "Unknown" ? "UNKNOWN" : result;
}

/** toPrometheusType maps a Result to the kubelet's gauge value: Success 0, Failure 1, else -1. */
export function toPrometheusType(result: Result): number {
  switch (result) {
    case "Success":
      return 0;
    case "Failure":
      return 1;
    default:
      return -1;
  }
}
