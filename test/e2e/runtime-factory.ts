// The seam between the e2e cases and the runtime they run on. A case is written once; the
// suite runs it as `[case N][<runtime>] …` for every RuntimeFactory that is available. The
// process runtime is defined here and registered by probing-container.test.ts and
// probing-restartable-init-container.test.ts; the CRI (containerd) factory lives in
// cri-runtime-factory.ts and is registered by the *-cri.test.ts files, with its PodKit in
// cri-pod-kit.ts.
import { accessSync, constants as fsConstants } from "node:fs";
import { test, type TestContext } from "node:test";
import { ProcessRuntime } from "../../src/runtime/process/process-runtime.js";
import type { Runtime } from "../../src/runtime/runtime.js";

/** RuntimeKind names a runtime in test titles and picks the pod kit (images, paths, ports). */
export type RuntimeKind = "process" | "cri";

/** RuntimeFactory creates a fresh runtime for one e2e case. */
export interface RuntimeFactory {
  /** RuntimeFactory.name appears in test titles: `[case 161][process] …`. */
  readonly name: RuntimeKind;
  /** available returns why the runtime cannot be used here (the cases are skipped), or undefined. */
  available(): string | undefined;
  /** create starts a runtime; the harness closes it after the case. */
  create(): Promise<Runtime>;
}

/** HOST_TOOLS are the host programs the process runtime's "busybox" commands use. */
export const HOST_TOOLS = ["/bin/sh", "/bin/bash", "/bin/cat", "/bin/true", "/bin/false"];

/**
 * processRuntimeFactory runs every container as a local process group; all pods share the host
 * loopback (pod IP 127.0.0.1), so each pod listens on its own free port.
 */
export const processRuntimeFactory: RuntimeFactory = {
  name: "process",
  available() {
    if (process.platform !== "linux") return `the process runtime cases need Linux, not ${process.platform}`;
    for (const tool of HOST_TOOLS) {
      try {
        accessSync(tool, fsConstants.X_OK);
      } catch {
        return `${tool} is missing on this host`;
      }
    }
    return undefined;
  },
  create: () => Promise.resolve(new ProcessRuntime()),
};

/** RUNTIME_FACTORIES are the runtimes the process test files run every case on (CRI has its own files). */
export const RUNTIME_FACTORIES: readonly RuntimeFactory[] = [processRuntimeFactory];

/**
 * runtimeTest declares a test that needs factory's runtime: where the runtime is unavailable the
 * test reports itself skipped with the reason instead of failing (a fresh machine without
 * containerd runs every CRI file green). Every e2e case file declares its tests through it.
 */
export function runtimeTest(factory: RuntimeFactory, title: string, options: { timeout: number }, fn: (t: TestContext) => Promise<void>): void {
  const skip = factory.available();
  test(title, { ...options, ...(skip !== undefined ? { skip } : {}) }, fn);
}
