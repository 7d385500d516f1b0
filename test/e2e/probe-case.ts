// ProbeCase: one upstream container_probe.go case written once and registered for both
// variants ("Probing container" cases 159–181, "Probing restartable init container" cases
// 182–204) and for every runtime factory, titled `[case N][<runtime>] <upstream name>`.
import type { TestContext } from "node:test";
import { E2eEnv, type E2eOptions } from "./harness.js";
import type { Variant } from "./pod-specs.js";
import { runtimeTest, type RuntimeFactory } from "./runtime-factory.js";

/** MINUTE is 60 000 ms. */
export const MINUTE = 60_000;
/** DEFAULT_OBSERVATION_MS is upstream's defaultObservationTimeout (4 min): a bound for cases expecting restarts. */
export const DEFAULT_OBSERVATION_MS = 4 * MINUTE;
/**
 * ZERO_RESTART_OBSERVATION_MS replaces the 4-min window of the cases expecting 0 restarts:
 * 40 s after the container left Waiting covers the initial delay (15 s) and 2–3 probe periods,
 * so a probe that would restart the container fires several times inside it.
 */
export const ZERO_RESTART_OBSERVATION_MS = 40_000;
/**
 * CRI_CASE_CONCURRENCY is how many CRI cases of one file run at once: the cases mostly wait, but
 * containerd manages about 40 ExecSync/s on 2 cores, and both files may run side by side.
 */
export const CRI_CASE_CONCURRENCY = 6;

/** CaseContext is what a case body gets. */
export interface CaseContext {
  env: E2eEnv;
  variant: Variant;
  t: TestContext;
}

/** ProbeCase describes one case for both variants. */
export interface ProbeCase {
  /** Case numbers in conformance-cases.md: [regular container, restartable init container]. */
  numbers: readonly [number, number];
  /** The upstream test name, exactly. */
  name: string;
  /** Upper bound on the case's wall time (the node:test timeout), ms. */
  budgetMs: number;
  /** Agent options (only the scaled back-off of 165/188). */
  options?: E2eOptions;
  run(ctx: CaseContext): Promise<void>;
}

/** caseNumber picks the case number for a variant. */
export function caseNumber(c: ProbeCase, variant: Variant): number {
  return variant === "container" ? c.numbers[0] : c.numbers[1];
}

/** caseTitle renders `[case N][<runtime>] <name>`. */
export function caseTitle(c: ProbeCase, variant: Variant, factory: RuntimeFactory): string {
  return `[case ${caseNumber(c, variant)}][${factory.name}] ${c.name}`;
}

/** registerCases declares one test per case (call inside a describe); unavailable runtimes are skipped with their reason. */
export function registerCases(factory: RuntimeFactory, variant: Variant, cases: readonly ProbeCase[]): void {
  for (const c of [...cases].sort((a, b) => caseNumber(a, variant) - caseNumber(b, variant))) {
    runtimeTest(factory, caseTitle(c, variant, factory), { timeout: c.budgetMs }, async (t) => {
      const env = await E2eEnv.start(t, factory, c.options);
      await c.run({ env, variant, t });
    });
  }
}
