import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "./types.js";
import { normalizeSysctlName, podSysctls } from "./pod-sysctls.js";

function pod(names: string[]): Pod {
  return { metadata: { name: "p" }, spec: { containers: [{ name: "c" }], securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) } } as Pod["spec"] };
}

test("sysctl names with slashes are normalized as NormalizeName does", () => {
  assert.equal(normalizeSysctlName("net/ipv4/ip_local_port_range"), "net.ipv4.ip_local_port_range");
  assert.equal(normalizeSysctlName("net/ipv4/conf/eth0.100/forwarding"), "net.ipv4.conf.eth0/100.forwarding");
  assert.equal(normalizeSysctlName("kernel.shm_rmid_forced"), "kernel.shm_rmid_forced");
  assert.deepEqual(podSysctls(pod(["net/ipv4/tcp_syncookies"])), [{ name: "net.ipv4.tcp_syncookies", value: "1" }]);
});
