// Unit tests of `probelet probe` argument parsing (parseProbeArgs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseProbeArgs, UsageError, type ProbeFlags } from "./args.js";

describe("parseProbeArgs", () => {
  const ok: { name: string; argv: string[]; want: Partial<ProbeFlags> }[] = [
    {
      name: "defaults: readiness, text, one-shot",
      argv: ["--tcp", "h:1"],
      want: { tcp: "h:1", headers: [], probeType: "readiness", watch: false, output: "text", help: false },
    },
    {
      name: "--exec takes the command after --, flags after -- stay arguments",
      argv: ["--exec", "--timeout", "2", "--", "sh", "-c", "exit 3", "--tcp"],
      want: { exec: ["sh", "-c", "exit 3", "--tcp"], timeoutSeconds: 2 },
    },
    {
      name: "every field flag; -f and -o short forms; repeated --header in order",
      argv: [
        "-f", "p.yaml", "--period", "3", "--initial-delay", "4", "--success-threshold", "1", "--failure-threshold", "5",
        "--header", "A: 1", "--header", "B: 2", "--type", "liveness", "--watch", "--count", "2", "-o", "json", "--host", "::1",
      ],
      want: {
        file: "p.yaml", periodSeconds: 3, initialDelaySeconds: 4, successThreshold: 1, failureThreshold: 5, headers: ["A: 1", "B: 2"],
        probeType: "liveness", watch: true, count: 2, output: "json", host: "::1",
      },
    },
    { name: "negative numbers via --flag=value reach validation", argv: ["--tcp", "h:1", "--timeout=-1"], want: { timeoutSeconds: -1 } },
    { name: "--grpc with --service", argv: ["--grpc", "h:1", "--service", "s"], want: { grpc: "h:1", service: "s" } },
    { name: "--help needs nothing else", argv: ["--help"], want: { help: true } },
  ];
  for (const c of ok) {
    test(c.name, () => {
      const got = parseProbeArgs(c.argv);
      for (const [key, value] of Object.entries(c.want)) assert.deepEqual(got[key as keyof ProbeFlags], value, key);
    });
  }

  const bad: { name: string; argv: string[]; message: string }[] = [
    { name: "unknown flag", argv: ["--tcp", "h:1", "--bogus"], message: "unknown flag: --bogus" },
    { name: "missing value", argv: ["--tcp"], message: "flag needs an argument: --tcp" },
    { name: "missing value of -f", argv: ["-f"], message: "flag needs an argument: -f" },
    { name: "stray argument", argv: ["--tcp", "h:1", "extra"], message: 'unexpected argument "extra"' },
    { name: "-- without --exec", argv: ["--tcp", "h:1", "--", "x"], message: 'arguments after "--" are only used with --exec' },
    { name: "--exec without a command", argv: ["--exec"], message: '--exec needs the command after "--", e.g. --exec -- cat /tmp/healthy' },
    { name: "two handlers", argv: ["--tcp", "h:1", "--grpc", "h:2"], message: "only one handler may be given, got --tcp and --grpc" },
    {
      name: "no handler",
      argv: ["--timeout", "1"],
      message: "a probe is required: -f FILE, --http-get URL, --tcp HOST:PORT, --grpc HOST:PORT or --exec -- CMD",
    },
    { name: "non-integer timeout", argv: ["--tcp", "h:1", "--timeout", "1.5"], message: 'invalid value "1.5" for --timeout: must be an integer' },
    { name: "int32 overflow", argv: ["--tcp", "h:1", "--period", "2147483648"], message: 'invalid value "2147483648" for --period: out of range for a 32-bit integer' },
    { name: "bad --type", argv: ["--tcp", "h:1", "--type", "ready"], message: 'invalid value "ready" for --type: must be one of liveness, readiness, startup' },
    { name: "bad -o", argv: ["--tcp", "h:1", "-o", "yaml"], message: 'invalid value "yaml" for --output: must be text or json' },
    { name: "--count without --watch", argv: ["--tcp", "h:1", "--count", "2"], message: "--count needs --watch" },
    { name: "--count 0", argv: ["--tcp", "h:1", "--watch", "--count", "0"], message: 'invalid value "0" for --count: must be at least 1' },
    { name: "value given to a boolean flag", argv: ["--tcp", "h:1", "--watch=yes"], message: "flag --watch does not take a value" },
  ];
  for (const c of bad) {
    test(`usage error: ${c.name}`, () => {
      assert.throws(() => parseProbeArgs(c.argv), (err: unknown) => err instanceof UsageError && err.message === c.message);
    });
  }
});
