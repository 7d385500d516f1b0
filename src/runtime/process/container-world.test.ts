// Which securityContext fields the process runtime can honour (all as root; without root only
// what needs no privilege), the world it records for a container, and the argv that enters it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { containerWorld, enterArgv, isPlainWorld, securityProblem } from "./container-world.js";

const user = { uid: 1000, gid: 1000, supervised: true };
const root = { uid: 0, gid: 0, supervised: true };

test("without root: another runAsUser, runAsGroup, supplementalGroups, privileged or capabilities.add are refused, naming the field and the agent's uid", () => {
  assert.equal(securityProblem({ runAsUser: 65534 }, user), "securityContext.runAsUser on the process runtime needs the agent to run as root (to run the container as uid 65534); it runs as uid 1000");
  assert.match(securityProblem({ runAsGroup: 3000 }, user) ?? "", /^securityContext\.runAsGroup .* as gid 3000\)/);
  assert.match(securityProblem({ supplementalGroups: [4000] }, user) ?? "", /^securityContext\.supplementalGroups /);
  assert.match(securityProblem({ privileged: true }, user) ?? "", /^securityContext\.privileged /);
  assert.match(securityProblem({ capabilities: { add: ["NET_ADMIN"], drop: [] } }, user) ?? "", /^securityContext\.capabilities\.add /);
});

test("without root: the agent's own uid and gid, no_new_privs, and a drop with allowPrivilegeEscalation false are honoured; a drop without it is refused", () => {
  assert.equal(securityProblem({ runAsUser: 1000, runAsGroup: 1000, noNewPrivs: true }, user), undefined);
  assert.equal(securityProblem({ capabilities: { add: [], drop: ["ALL"] }, noNewPrivs: true }, user), undefined);
  assert.match(securityProblem({ capabilities: { add: [], drop: ["ALL"] } }, user) ?? "", /^securityContext\.capabilities\.drop .*allowPrivilegeEscalation: false/);
});

test("as root every field is honoured, but an unknown capability is refused; without the supervisor nothing can be applied", () => {
  assert.equal(securityProblem({ runAsUser: 65534, runAsGroup: 3, supplementalGroups: [4], capabilities: { add: ["net_admin", "CAP_SYS_TIME"], drop: ["ALL"] }, privileged: false, noNewPrivs: true }, root), undefined);
  assert.equal(securityProblem({ capabilities: { add: ["BOGUS"], drop: [] } }, root), 'unknown capability "BOGUS"');
  assert.match(securityProblem({ runAsUser: 65534 }, { ...root, supervised: false }) ?? "", /needs the supervisor helper/);
  assert.match(securityProblem({ noNewPrivs: true }, { ...user, supervised: false }) ?? "", /needs the supervisor helper/);
  assert.equal(securityProblem({ privileged: true }, { ...root, supervised: false }), undefined, "root without the helper already has every capability");
});

test("containerWorld: as root the user with its groups and the capability bits; without root only no_new_privs; a mount namespace when the container has mounts", async () => {
  const world = await containerWorld({ runAsUser: 65534, runAsGroup: 65534, supplementalGroups: [4000], capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] }, noNewPrivs: true }, true, root);
  assert.equal(world.mountNamespace, true);
  assert.deepEqual({ uid: world.user?.uid, gid: world.user?.gid }, { uid: 65534, gid: 65534 });
  assert.ok(world.user?.groups.includes(4000));
  assert.equal(world.capabilities, "400");
  assert.equal(world.noNewPrivs, true);
  assert.deepEqual(await containerWorld({ runAsUser: 1000, noNewPrivs: true }, false, user), { noNewPrivs: true });
  assert.equal((await containerWorld({ capabilities: { add: [], drop: [] }, privileged: true }, false, root)).capabilities, undefined, "privileged keeps every capability");
  assert.ok(isPlainWorld(await containerWorld(undefined, false, root), undefined));
  assert.ok(!isPlainWorld({}, "/run/probelet/x/netns/y"), "a pod network namespace is entered too");
});

test("enterArgv: the supervisor's enter mode with the leader, the namespaces to join, the world and the command with its argv[0]", () => {
  const leader = { pid: 4242, startTicks: 99 };
  assert.deepEqual(enterArgv("/sup", leader, { mountNamespace: true, user: { uid: 7, gid: 8, groups: [9, 10] }, capabilities: "400", noNewPrivs: true }, "/run/ns", "/work", "/bin/sh", ["sh", "-c", "id"]), [
    "/sup", "enter", "4242", "99", "mnt,net", "7", "8", "9,10", "400", "1", "/work", "/bin/sh", "sh", "-c", "id",
  ]);
  assert.deepEqual(enterArgv("/sup", leader, { noNewPrivs: true }, undefined, "/", "/bin/true", ["true"]).slice(4, 10), ["-", "-", "-", "-", "-", "1"]);
});
