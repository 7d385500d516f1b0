import { test } from "node:test";
import assert from "node:assert/strict";
import { cpus, totalmem } from "node:os";
import type { Container } from "../api/types.js";
import { containerResourceValue } from "./downward-api.js";
import { nodeAllocatable } from "./node-allocatable.js";

const NODE = { cpu: 2, memory: 8 * 1024 ** 3, ephemeralStorage: 100 * 1024 ** 3 };

test("resourceFieldRef: the divisor the API server defaults (\"0\") counts as 1, as ExtractContainerResourceValue has it", () => {
  const c: Container = { name: "c", image: "i", resources: { limits: { cpu: "250m", memory: "64Mi" }, requests: { memory: "32Mi" } } };
  assert.equal(containerResourceValue({ resource: "limits.cpu", divisor: "0" }, c, NODE), "1", "250m rounded up to whole cores");
  assert.equal(containerResourceValue({ resource: "limits.memory", divisor: "0" }, c, NODE), String(64 * 1024 * 1024));
  assert.equal(containerResourceValue({ resource: "requests.memory", divisor: "1Mi" }, c, NODE), "32");
  assert.equal(containerResourceValue({ resource: "limits.cpu", divisor: "1m" }, c, NODE), "250");
});

test("resourceFieldRef: an unset limit is the node's allocatable, an unset request is 0", () => {
  const c: Container = { name: "c", image: "i" };
  assert.equal(containerResourceValue({ resource: "limits.cpu", divisor: "0" }, c, NODE), "2");
  assert.equal(containerResourceValue({ resource: "limits.memory", divisor: "0" }, c, NODE), String(8 * 1024 ** 3));
  assert.equal(containerResourceValue({ resource: "requests.cpu", divisor: "0" }, c, NODE), "0");
});

test("the node's allocatable counts what the Node object reports: whole CPUs and whole Ki of memory", () => {
  const a = nodeAllocatable(".");
  assert.equal(a.cpu, cpus().length);
  assert.equal(a.memory, Math.floor(totalmem() / 1024) * 1024);
  assert.equal(a.ephemeralStorage % 1024, 0);
  assert.ok(a.ephemeralStorage > 0);
});
