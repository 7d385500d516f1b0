import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { resolveProcessUser } from "./host-accounts.js";

const dir = await mkdtemp(join(tmpdir(), "probelet-accounts-"));
after(() => rm(dir, { recursive: true, force: true }));
const files = { passwd: join(dir, "passwd"), group: join(dir, "group") };
await writeFile(files.passwd, "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1500:App:/home/app:/bin/sh\n");
await writeFile(files.group, "root:x:0:\nstaff:x:50:app,other\napp:x:1500:\naudio:x:29:other\n");

test("resolveProcessUser: the uid's primary group and memberships from the account files, then the pod's supplementalGroups", async () => {
  assert.deepEqual(await resolveProcessUser(1000, undefined, [4000, 50], files), { uid: 1000, gid: 1500, groups: [50, 4000] });
  assert.deepEqual(await resolveProcessUser(1000, 3000, [], files), { uid: 1000, gid: 3000, groups: [50] }, "runAsGroup wins over the primary group");
});

test("resolveProcessUser: a uid without an entry gets gid 0 and only the supplementalGroups (containerd's rule); missing files are no entries", async () => {
  assert.deepEqual(await resolveProcessUser(65000, undefined, [7], files), { uid: 65000, gid: 0, groups: [7] });
  assert.deepEqual(await resolveProcessUser(1000, undefined, [], { passwd: join(dir, "none"), group: join(dir, "none") }), { uid: 1000, gid: 0, groups: [] });
});
