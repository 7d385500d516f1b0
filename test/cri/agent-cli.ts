// Helpers for tests that run `probelet run --runtime cri` as a user does and watch it through
// its status API, with the token the agent keeps in its state directory (as the owner's CLI does).
import { readTokenFileIfPresent, tokenPath } from "../../src/server/agent-token.js";

/**
 * getJson fetches a status API path of the agent of stateDir; undefined when the agent does not
 * answer (yet: its token may not be written) or answers an error.
 */
export async function getJson<T>(url: string, stateDir: string): Promise<T | undefined> {
  const res = await agentGet(url, stateDir);
  return res === undefined ? undefined : ((await res.json()) as T);
}

/** getText is getJson for text answers (logs). */
export async function getText(url: string, stateDir: string): Promise<string | undefined> {
  const res = await agentGet(url, stateDir);
  return res === undefined ? undefined : res.text();
}

async function agentGet(url: string, stateDir: string): Promise<Response | undefined> {
  try {
    const token = await readTokenFileIfPresent(tokenPath(stateDir));
    const res = await fetch(url, { signal: AbortSignal.timeout(2000), headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });
    if (res.ok) return res;
    await res.arrayBuffer();
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * webServerPodYaml is a hostNetwork busybox pod serving HTTP on `port`, Ready by an httpGet
 * readiness probe every second, with an exec liveness probe that reads a file only the image has.
 */
export function webServerPodYaml(name: string, port: number, liveness: { periodSeconds: number; failureThreshold?: number }): string {
  return `apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  hostNetwork: true
  terminationGracePeriodSeconds: 2
  containers:
    - name: web
      image: localhost/probelet/busybox:1
      command: ["test-webserver", "${port}"]
      readinessProbe: { httpGet: { path: /, port: ${port} }, periodSeconds: 1 }
      livenessProbe: { exec: { command: ["cat", "/etc/probelet-image"] }, periodSeconds: ${liveness.periodSeconds}, failureThreshold: ${liveness.failureThreshold ?? 3} }
`;
}
