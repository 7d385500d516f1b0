// Who a process-runtime container runs as, worked out as containerd does from the image's account
// files (pkg/oci/spec_opts.go WithUserID, WithAdditionalGIDs; the SupplementalGroupsPolicy Merge
// default) but from the host's, since the host is the process runtime's image: the uid's primary
// group from /etc/passwd (0 when the uid has no entry) unless runAsGroup says otherwise, and the
// user's groups from /etc/group followed by the pod's supplementalGroups.
import { readFileBounded } from "../../util/read-bounded-file.js";

/** MAX_ACCOUNT_FILE_BYTES bounds how much of /etc/passwd or /etc/group is read. */
export const MAX_ACCOUNT_FILE_BYTES = 4 << 20;

/** ProcessUser is the uid, gid and supplementary groups a container's processes get. */
export interface ProcessUser {
  uid: number;
  gid: number;
  groups: number[];
}

/** AccountFiles name the account databases (the host's by default; tests point elsewhere). */
export interface AccountFiles {
  passwd: string;
  group: string;
}

const HOST_ACCOUNTS: AccountFiles = { passwd: "/etc/passwd", group: "/etc/group" };

async function readLines(path: string): Promise<string[][]> {
  const file = await readFileBounded(path, MAX_ACCOUNT_FILE_BYTES).catch(() => undefined);
  if (!file?.ok) return [];
  return file.text.split("\n").map((line) => line.split(":"));
}

function id(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,10}$/.test(text) ? Number(text) : undefined;
}

/**
 * resolveProcessUser gives the identity of a container running as `uid`: `gid` when given, else
 * the uid's primary group (0 when it has none), with the user's groups and then `supplemental`.
 */
export async function resolveProcessUser(uid: number, gid: number | undefined, supplemental: readonly number[], files: AccountFiles = HOST_ACCOUNTS): Promise<ProcessUser> {
  const entry = (await readLines(files.passwd)).find((fields) => fields.length >= 4 && id(fields[2]) === uid);
  const name = entry?.[0];
  const groups: number[] = [];
  if (name !== undefined && name !== "") {
    for (const fields of await readLines(files.group)) {
      const groupId = id(fields[2]);
      if (groupId !== undefined && fields.length >= 4 && (fields[3] ?? "").split(",").includes(name)) groups.push(groupId);
    }
  }
  for (const g of supplemental) if (!groups.includes(g)) groups.push(g);
  return { uid, gid: gid ?? id(entry?.[3]) ?? 0, groups };
}
