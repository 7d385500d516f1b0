// The API server's 409 for apply conflicts (k8s.io/apimachinery/pkg/util/managedfields/internal/conflict.go):
// one message for one conflict, grouped by manager for several, and a FieldManagerConflict cause each.

import { PatchError } from "./patch-error.js";
import { pathString } from "./field-set.js";
import type { ManagedFieldsEntry, OwnedFields } from "./managed-fields.js";

/** ConflictCause is one metav1.StatusCause of an apply conflict. */
export interface ConflictCause {
  type: "FieldManagerConflict";
  message: string;
  field: string;
}

/** ApplyConflictError is the API server's 409 for an apply that would change fields other managers own. */
export class ApplyConflictError extends PatchError {
  /** The Status details' causes, one per conflicting field. */
  readonly causes: readonly ConflictCause[];

  constructor(message: string, causes: readonly ConflictCause[]) {
    super(409, message);
    this.name = "ApplyConflictError";
    this.causes = causes;
  }
}

/** Conflict is one field another manager owns with a different value. */
export interface Conflict {
  owner: OwnedFields;
  path: string[];
}

/** printManager renders a manager as conflict messages do (Apply: the name; Update: name using apiVersion). */
function printManager(entry: Omit<ManagedFieldsEntry, "fieldsV1">): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource !== undefined) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  return entry.operation === "Update" ? `${text} using ${entry.apiVersion}` : text;
}

/**
 * MAX_LISTED_CONFLICTS bounds the conflicts an answer lists (message lines and causes); the count
 * in the message stays exact. The API server lists them all: 60,000 conflicting keys then make an
 * answer of tens of MB.
 */
export const MAX_LISTED_CONFLICTS = 1000;

/** conflictError builds the 409 with internal/conflict.go's message and causes (at most MAX_LISTED_CONFLICTS listed). */
export function conflictError(all: Conflict[]): ApplyConflictError {
  const conflicts = all.slice(0, MAX_LISTED_CONFLICTS);
  const more = all.length - conflicts.length;
  const causes = conflicts.map(({ owner, path }): ConflictCause => ({
    type: "FieldManagerConflict",
    message: `conflict with ${printManager(owner.entry)}`,
    field: pathString(path),
  }));
  if (all.length === 1) {
    const [only] = conflicts;
    return new ApplyConflictError(`Apply failed with 1 conflict: conflict with ${printManager(only!.owner.entry)}: ${pathString(only!.path)}`, causes);
  }
  const byManager = new Map<string, Conflict[]>();
  for (const conflict of conflicts) {
    const id = JSON.stringify([conflict.owner.entry.manager, conflict.owner.entry.operation, conflict.owner.entry.apiVersion]);
    const group = byManager.get(id);
    if (group === undefined) byManager.set(id, [conflict]);
    else group.push(conflict);
  }
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    const group = byManager.get(id)!;
    lines.push(`conflicts with ${printManager(group[0]!.owner.entry)}:`);
    for (const { path } of group) lines.push(`- ${pathString(path)}`);
  }
  if (more > 0) lines.push(`- … and ${more} more`);
  return new ApplyConflictError(`Apply failed with ${all.length} conflicts: ${lines.join("\n")}`, causes);
}
