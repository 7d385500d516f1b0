// Column descriptions shared by several printers. The metadata ones are metav1.ObjectMeta's
// API documentation (ObjectMeta{}.SwaggerDoc()), as the API server's printers use them.

/** NAME_DOC describes a Name column. */
export const NAME_DOC =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/** AGE_DOC describes an Age column. */
export const AGE_DOC =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
