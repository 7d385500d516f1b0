import assert from "node:assert/strict";
import { test } from "node:test";
import { UsageError } from "./args.js";
import { containerLogPolicy } from "./container-log-flags.js";

test("container log flags: the kubelet's defaults, quantities and durations, -1 turns rotation off", () => {
  assert.deepEqual(containerLogPolicy({}), { maxSize: 10 * 1024 * 1024, maxFiles: 5, maxWorkers: 1, monitorIntervalMs: 10_000 });
  assert.deepEqual(
    containerLogPolicy({ "container-log-max-size": "200Ki", "container-log-max-files": "3", "container-log-max-workers": "2", "container-log-monitor-interval": "1m30s" }),
    { maxSize: 204800, maxFiles: 3, maxWorkers: 2, monitorIntervalMs: 90_000 },
  );
  assert.equal(containerLogPolicy({ "container-log-max-size": "-1" }).maxSize, -1);
});

test("container log flags: the kubelet's configuration errors, and unreadable values named", () => {
  assert.throws(() => containerLogPolicy({ "container-log-max-files": "1" }), new UsageError("invalid configuration: containerLogMaxFiles must be greater than 1"));
  assert.throws(() => containerLogPolicy({ "container-log-monitor-interval": "1s" }), new UsageError("invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s"));
  assert.throws(() => containerLogPolicy({ "container-log-max-workers": "0" }), /containerLogMaxWorkers must be greater than or equal to 1/);
  assert.throws(() => containerLogPolicy({ "container-log-max-size": "ten megs" }), /failed to parse container log max size "ten megs"/);
  assert.throws(() => containerLogPolicy({ "container-log-max-files": "five" }), /invalid argument "five" for "--container-log-max-files" flag/);
});
