// The events resource (core/v1 Event): stored as sent, with the name and involvedObject checks
// of ValidateEvent that matter to a single node.
import { required } from "../../api/field-errors.js";
import type { FieldSchema } from "../../api/schema.js";
import { objectMetaSchema } from "../../api/schema.js";
import { DNS_SUBDOMAIN_NAME, validateObjectMeta } from "./object-meta.js";
import { ALL_VERBS, type ResourceDefinition } from "./resource-definition.js";

const opaque: FieldSchema = { kind: "opaque" };
const EVENT_FIELDS = [
  "involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "type", "eventTime",
  "series", "action", "related", "reportingComponent", "reportingInstance",
];
const EVENT_SCHEMA: FieldSchema = {
  kind: "object",
  fields: { apiVersion: { kind: "string" }, kind: { kind: "string" }, metadata: objectMetaSchema, ...Object.fromEntries(EVENT_FIELDS.map((f) => [f, opaque])) },
  required: ["metadata"],
};

/** EVENTS is the events resource. */
export const EVENTS: ResourceDefinition = {
  name: "events",
  singularName: "event",
  kind: "Event",
  shortNames: ["ev"],
  namespaced: true,
  verbs: ALL_VERBS,
  categories: [],
  strategy: {
    schema: EVENT_SCHEMA,
    prepareForCreate: (object) => object,
    validate: (object) => {
      const errors = validateObjectMeta(object.metadata, true, DNS_SUBDOMAIN_NAME);
      if ((object as { involvedObject?: unknown }).involvedObject === undefined) errors.push(required("involvedObject"));
      return { object, errors };
    },
    prepareForUpdate: (next) => next,
    validateUpdate: () => [],
  },
};
