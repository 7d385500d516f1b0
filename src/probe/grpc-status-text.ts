// grpc-go's rendering of a status error, which the kubelet puts in a gRPC probe's output.

// Go's codes.Code.String() names, indexed by code number.
const GO_CODE_NAMES = [
  "OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
  "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
  "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
] as const;

/** goStatusErrorText renders a status as grpc-go's error does: "rpc error: code = Unavailable desc = …". */
export function goStatusErrorText(code: number, details: string): string {
  return `rpc error: code = ${GO_CODE_NAMES[code] ?? `Code(${String(code)})`} desc = ${details}`;
}
