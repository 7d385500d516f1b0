// Unit tests of flags → core/v1 Probe (applyProbeFlags, resolveProbe) and the flag value parsers.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Probe } from "../api/types.js";
import { UsageError } from "./args.js";
import { applyProbeFlags, InvalidInputError, resolveProbe, type ProbeSpecFlags, type ProbeTarget } from "./probe-spec.js";

function flags(overrides: Partial<ProbeSpecFlags> = {}): ProbeSpecFlags {
  return { headers: [], ...overrides };
}

describe("applyProbeFlags", () => {
  const cases: { name: string; base?: Probe; flags: ProbeSpecFlags; want: ProbeTarget }[] = [
    {
      name: "--http-get: host is the pod IP, port/path/query fill httpGet, scheme upper-cased",
      flags: flags({ httpGet: "http://127.0.0.1:8080/healthz?verbose=1#frag" }),
      want: { probe: { httpGet: { path: "/healthz?verbose=1", port: 8080, scheme: "HTTP" } }, podIP: "127.0.0.1" },
    },
    {
      name: "--http-get https without port defaults to 443 and path /",
      flags: flags({ httpGet: "https://localhost" }),
      want: { probe: { httpGet: { path: "/", port: 443, scheme: "HTTPS" } }, podIP: "localhost" },
    },
    {
      name: "--http-get http without port defaults to 80",
      flags: flags({ httpGet: "HTTP://10.0.0.5/x" }),
      want: { probe: { httpGet: { path: "/x", port: 80, scheme: "HTTP" } }, podIP: "10.0.0.5" },
    },
    {
      name: "--http-get with a bracketed IPv6 host",
      flags: flags({ httpGet: "http://[::1]:9000/h" }),
      want: { probe: { httpGet: { path: "/h", port: 9000, scheme: "HTTP" } }, podIP: "::1" },
    },
    {
      name: "--host overrides the URL's host as the pod IP (brackets removed)",
      flags: flags({ httpGet: "http://example.invalid:81/", host: "[fd00::1]" }),
      want: { probe: { httpGet: { path: "/", port: 81, scheme: "HTTP" } }, podIP: "fd00::1" },
    },
    {
      name: "--tcp HOST:PORT",
      flags: flags({ tcp: "127.0.0.2:5432" }),
      want: { probe: { tcpSocket: { port: 5432 } }, podIP: "127.0.0.2" },
    },
    {
      name: "--tcp with IPv6 in brackets",
      flags: flags({ tcp: "[::1]:80" }),
      want: { probe: { tcpSocket: { port: 80 } }, podIP: "::1" },
    },
    {
      name: "--tcp with an empty host keeps an empty pod IP (Go dials the local host)",
      flags: flags({ tcp: ":8080" }),
      want: { probe: { tcpSocket: { port: 8080 } }, podIP: "" },
    },
    {
      name: "--tcp port out of range is passed on for validation",
      flags: flags({ tcp: "127.0.0.1:0" }),
      want: { probe: { tcpSocket: { port: 0 } }, podIP: "127.0.0.1" },
    },
    {
      name: "--grpc with --service",
      flags: flags({ grpc: "127.0.0.1:50051", service: "db" }),
      want: { probe: { grpc: { port: 50051, service: "db" } }, podIP: "127.0.0.1" },
    },
    {
      name: "--exec command; pod IP defaults to 127.0.0.1",
      flags: flags({ exec: ["sh", "-c", "exit 3"] }),
      want: { probe: { exec: { command: ["sh", "-c", "exit 3"] } }, podIP: "127.0.0.1" },
    },
    {
      name: "--header is repeatable; names and values are trimmed; an empty value is kept",
      flags: flags({ httpGet: "http://127.0.0.1:1/", headers: ["X-A: 1", "X-A:two ", "User-Agent:", "Host: a:b"] }),
      want: {
        probe: {
          httpGet: {
            path: "/",
            port: 1,
            scheme: "HTTP",
            httpHeaders: [
              { name: "X-A", value: "1" },
              { name: "X-A", value: "two" },
              { name: "User-Agent", value: "" },
              { name: "Host", value: "a:b" },
            ],
          },
        },
        podIP: "127.0.0.1",
      },
    },
    {
      name: "numeric flags fill their fields",
      flags: flags({ tcp: "h:1", timeoutSeconds: 5, periodSeconds: 7, initialDelaySeconds: 3, successThreshold: 2, failureThreshold: 4 }),
      want: {
        probe: { tcpSocket: { port: 1 }, timeoutSeconds: 5, periodSeconds: 7, initialDelaySeconds: 3, successThreshold: 2, failureThreshold: 4 },
        podIP: "h",
      },
    },
    {
      name: "a file's fields stay unless a flag overrides them; --header appends to the file's headers",
      base: { httpGet: { port: 8080, path: "/ready", httpHeaders: [{ name: "X-File", value: "f" }] }, periodSeconds: 3, failureThreshold: 9 },
      flags: flags({ headers: ["X-Flag: g"], failureThreshold: 1 }),
      want: {
        probe: {
          httpGet: { port: 8080, path: "/ready", httpHeaders: [{ name: "X-File", value: "f" }, { name: "X-Flag", value: "g" }] },
          periodSeconds: 3,
          failureThreshold: 1,
        },
        podIP: "127.0.0.1",
      },
    },
    {
      name: "a handler flag replaces the file's handler",
      base: { tcpSocket: { port: 1 }, exec: { command: ["x"] }, timeoutSeconds: 2 },
      flags: flags({ grpc: "[::1]:9090" }),
      want: { probe: { grpc: { port: 9090 }, timeoutSeconds: 2 }, podIP: "::1" },
    },
    {
      name: "--service overrides the file's grpc service; --host sets the pod IP",
      base: { grpc: { port: 9090, service: "a" } },
      flags: flags({ service: "b", host: "10.1.2.3" }),
      want: { probe: { grpc: { port: 9090, service: "b" } }, podIP: "10.1.2.3" },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const before = structuredClone(c.base);
      assert.deepEqual(applyProbeFlags(c.base, c.flags), c.want);
      assert.deepEqual(c.base, before, "the base probe must not be mutated");
    });
  }

  const usageErrors: { name: string; base?: Probe; flags: ProbeSpecFlags; message: RegExp }[] = [
    { name: "--tcp without a port", flags: flags({ tcp: "8080" }), message: /invalid --tcp value "8080": expected HOST:PORT/ },
    { name: "--tcp with unbracketed IPv6", flags: flags({ tcp: "::1:80" }), message: /put IPv6 addresses in brackets/ },
    { name: "--grpc with a named port", flags: flags({ grpc: "h:grpc" }), message: /invalid --grpc value "h:grpc": the port must be a number/ },
    { name: "--http-get with another scheme", flags: flags({ httpGet: "ftp://h/" }), message: /the scheme must be http or https/ },
    { name: "--http-get that is no URL", flags: flags({ httpGet: "127.0.0.1:80/x" }), message: /the scheme must be http or https|expected http/ },
    { name: "--http-get with credentials", flags: flags({ httpGet: "http://u:p@h/" }), message: /credentials/ },
    { name: "--header without a colon", flags: flags({ httpGet: "http://h/", headers: ["X-A 1"] }), message: /invalid --header "X-A 1"/ },
    { name: "--header without httpGet", flags: flags({ tcp: "h:1", headers: ["X-A: 1"] }), message: /--header needs an httpGet probe/ },
    { name: "--service without grpc", base: { tcpSocket: { port: 1 } }, flags: flags({ service: "s" }), message: /--service needs a grpc probe/ },
  ];
  for (const c of usageErrors) {
    test(`usage error: ${c.name}`, () => {
      assert.throws(() => applyProbeFlags(c.base, c.flags), (err: unknown) => err instanceof UsageError && c.message.test(err.message));
    });
  }
});

describe("resolveProbe", () => {
  test("defaults are applied before validation (timeout 1, period 10, success 1, failure 3, path /, scheme HTTP)", () => {
    const { probe } = resolveProbe({ httpGet: { port: 80 } }, flags(), "liveness");
    assert.deepEqual(probe, {
      httpGet: { port: 80, path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
      initialDelaySeconds: 0,
    });
  });

  const invalid: { name: string; base?: Probe; flags: ProbeSpecFlags; type: "liveness" | "readiness" | "startup"; details: string[] }[] = [
    { name: "liveness successThreshold 2", flags: flags({ tcp: "h:1", successThreshold: 2 }), type: "liveness", details: ["successThreshold: Invalid value: 2: must be 1"] },
    { name: "startup successThreshold 3", flags: flags({ tcp: "h:1", successThreshold: 3 }), type: "startup", details: ["successThreshold: Invalid value: 3: must be 1"] },
    { name: "port 0", flags: flags({ tcp: "h:0" }), type: "readiness", details: ["tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive"] },
    { name: "negative timeout", flags: flags({ tcp: "h:1", timeoutSeconds: -1 }), type: "readiness", details: ["timeoutSeconds: Invalid value: -1: must be greater than or equal to 0"] },
    { name: "a file without a handler", base: { periodSeconds: 1 }, flags: flags(), type: "readiness", details: ["Required value: must specify a handler type"] },
    {
      name: "readiness with terminationGracePeriodSeconds",
      base: { exec: { command: ["true"] }, terminationGracePeriodSeconds: 10 },
      flags: flags(),
      type: "readiness",
      details: ["terminationGracePeriodSeconds: Invalid value: 10: must not be set for readinessProbes"],
    },
  ];
  for (const c of invalid) {
    test(`invalid: ${c.name}`, () => {
      assert.throws(
        () => resolveProbe(c.base, c.flags, c.type),
        (err: unknown) => {
          assert.ok(err instanceof InvalidInputError);
          assert.equal(err.message, "probe is invalid:");
          assert.deepEqual(err.details, c.details);
          return true;
        },
      );
    });
  }

  test("readiness accepts successThreshold 2", () => {
    assert.equal(resolveProbe(undefined, flags({ tcp: "h:1", successThreshold: 2 }), "readiness").probe.successThreshold, 2);
  });
});
