// Port and host resolution tests (conformance cases 51–53, 56, 57, 221; kubelet
// pkg/probe/util_test.go and the prober_test TestGetURLParts / TestGetTCPAddrParts tables of 1.37).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container, IntOrString } from "../api/types.js";
import { findPortByName, resolveContainerPort, resolveProbeHost } from "./port.js";

const container: Container = { name: "c", ports: [{ name: "found", containerPort: 93 }] };

/** portTable is the TestGetURLParts / TestGetTCPAddrParts port table: port → number or error text. */
const portTable: [IntOrString, number | string][] = [
  [-1, "invalid port number: -1"],
  ["", 'port "" not found'],
  ["-1", 'port "-1" not found'],
  ["not-found", 'port "not-found" not found'],
  ["found", 93],
  [76, 76],
];

function check(port: IntOrString, target: Container, expected: number | string): void {
  if (typeof expected === "number") assert.equal(resolveContainerPort(port, target), expected, String(port));
  else assert.throws(() => resolveContainerPort(port, target), { message: expected }, String(port));
}

test("[case 51] TestGetURLParts — port resolution table with pod IP 127.0.0.1", () => {
  for (const [port, expected] of portTable) check(port, container, expected);
  assert.equal(resolveProbeHost(undefined, "127.0.0.1"), "127.0.0.1");
  assert.equal(resolveProbeHost("", "127.0.0.1"), "127.0.0.1");
  assert.equal(resolveProbeHost("hostname", "127.0.0.1"), "hostname");
});

test("[case 52] TestGetTCPAddrParts — same port table for tcpSocket with host 1.2.3.4", () => {
  for (const [port, expected] of portTable) check(port, container, expected);
  assert.equal(resolveProbeHost("1.2.3.4", "127.0.0.1"), "1.2.3.4");
});

test("[case 53] TestFindPortByName — ports foo:8080, bar:9000; name \"foo\" → 8080", () => {
  const target: Container = { name: "c", ports: [{ name: "foo", containerPort: 8080 }, { name: "bar", containerPort: 9000 }] };
  assert.equal(findPortByName(target, "foo"), 8080);
  assert.equal(findPortByName(target, "http"), undefined);
  assert.equal(resolveContainerPort("foo", target), 8080);
  assert.equal(resolveContainerPort("bar", target), 9000);
  assert.throws(() => resolveContainerPort("http", target), { message: 'port "http" not found' });
});

test("[case 56] named ports resolve to containerPort, never hostPort, and only on the probed container", () => {
  const probed: Container = { name: "a", ports: [{ name: "web", containerPort: 8080, hostPort: 30080 }] };
  const other: Container = { name: "b", ports: [{ name: "admin", containerPort: 9090 }] };
  assert.equal(resolveContainerPort("web", probed), 8080);
  assert.throws(() => resolveContainerPort("admin", probed), { message: 'port "admin" not found' });
  assert.equal(resolveContainerPort("admin", other), 9090);
  assert.throws(() => resolveContainerPort("web", { name: "no-ports" }), { message: 'port "web" not found' });
});

test("[case 57] resolved port 0 or 65536 is an error", () => {
  const rows: [IntOrString, Container, string][] = [
    [0, container, "invalid port number: 0"],
    [65536, container, "invalid port number: 65536"],
    ["zero", { name: "c", ports: [{ name: "zero", containerPort: 0 }] }, "invalid port number: 0"],
    ["big", { name: "c", ports: [{ name: "big", containerPort: 65536 }] }, "invalid port number: 65536"],
  ];
  for (const [port, target, message] of rows) assert.throws(() => resolveContainerPort(port, target), { message }, String(port));
  assert.equal(resolveContainerPort(1, container), 1);
  assert.equal(resolveContainerPort(65535, container), 65535);
});

test("[case 221] TestResolveContainerPort / TestGetURLParts (1.37): a string port is a name only; one no port has is `port \"<name>\" not found`, even when it reads as a number", () => {
  assert.throws(() => resolveContainerPort("118", container), { message: 'port "118" not found' });
  assert.throws(() => resolveContainerPort("0080", container), { message: 'port "0080" not found' });
  assert.equal(resolveContainerPort("8080", { name: "c", ports: [{ name: "8080", containerPort: 9090 }] }), 9090);
  // An unnamed port matches the name "" (kubelet compares the names as stored).
  assert.equal(resolveContainerPort("", { name: "c", ports: [{ containerPort: 7070 }] }), 7070);
});
