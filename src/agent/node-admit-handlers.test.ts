import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "../api/types.js";
import { admitOnNode } from "./node-admit-handlers.js";

function pod(spec: Partial<Pod["spec"]> & Record<string, unknown> = {}, labels?: Record<string, string>): Pod {
  return { metadata: { name: "p", ...(labels ? { labels } : {}) }, spec: { containers: [{ name: "c" }], ...spec } as Pod["spec"] };
}
const sysctls = (...names: string[]) => ({ securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) } });

test("only the safe sysctls are admitted, and not in the host's namespace; newer ones need their kernel", () => {
  assert.equal(admitOnNode(pod(sysctls("kernel.shm_rmid_forced", "net.ipv4.ping_group_range")), "6.1.0"), undefined);
  assert.deepEqual(admitOnNode(pod(sysctls("kernel.msgmax")), "6.1.0"), { reason: "SysctlForbidden", message: 'forbidden sysctl: "kernel.msgmax" not allowlisted' });
  assert.deepEqual(admitOnNode(pod({ ...sysctls("net.ipv4.tcp_syncookies"), hostNetwork: true }), "6.1.0"), {
    reason: "SysctlForbidden",
    message: 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled',
  });
  assert.deepEqual(admitOnNode(pod({ ...sysctls("kernel.shm_rmid_forced"), hostIPC: true }), "6.1.0")?.message, 'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host ipc enabled');
  assert.equal(admitOnNode(pod(sysctls("net.ipv4.tcp_rmem")), "4.14.0")?.reason, "SysctlForbidden");
  assert.equal(admitOnNode(pod(sysctls("net.ipv4.tcp_rmem")), "4.15.0"), undefined);
});

test("a pod for another OS is refused, by its os field or its kubernetes.io/os label", () => {
  assert.equal(admitOnNode(pod({ os: { name: "linux" } })), undefined);
  assert.deepEqual(admitOnNode(pod({ os: { name: "windows" } })), { reason: "PodOSNotSupported", message: "Failed to admit pod as the OS field doesn't match node OS" });
  assert.equal(admitOnNode(pod({}, { "kubernetes.io/os": "windows" }))?.reason, "PodOSSelectorNodeLabelDoesNotMatch");
});
