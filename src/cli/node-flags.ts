// The V8 options the probelet agent runs with. They cannot be set from inside a running
// process (V8 sizes its heap at start), so the launchers pass them: the shebang of main.ts,
// ./probelet and `npm start`; node-flags.test.ts keeps those three in step with this list, and
// the bench runs its probelet driver with it (docs/performance.md, "Memory").

/**
 * AGENT_NODE_FLAGS: a young-generation semi-space of at most 2 MB instead of V8's 16 MB. The
 * agent's steady allocation is small and short-lived (a few objects per probe), so the larger
 * space only raised the resident set (10,000 workers: 105 MB against 134 MB) without saving
 * CPU; the worst-case manifest parses run as fast with it.
 */
export const AGENT_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=2"];
