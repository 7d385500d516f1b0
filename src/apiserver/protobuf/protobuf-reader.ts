// Reading the protocol buffers wire format: a message is a sequence of (field number, wire
// type, value) records. Every read is bounded by the buffer; a truncated or malformed record is
// a ProtobufError, never an out-of-range read.

/** ProtobufError says why bytes are not a well-formed message. */
export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

/** ProtobufField is one record: a varint (as a bigint, for 64-bit values) or length-delimited bytes. */
export type ProtobufField = { field: number; varint: bigint; bytes?: undefined } | { field: number; bytes: Uint8Array; varint?: undefined };

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;
/** A varint has at most 10 bytes (64 bits, 7 per byte). */
const MAX_VARINT_BYTES = 10;

/** readFields returns the records of one message in order; fixed-width records (unused by the types read here) are skipped. */
export function readFields(bytes: Uint8Array): ProtobufField[] {
  const fields: ProtobufField[] = [];
  let at = 0;
  const readVarint = (): bigint => {
    let value = 0n;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      const byte = bytes[at++];
      if (byte === undefined) throw new ProtobufError("unexpected end of a varint");
      value |= BigInt(byte & 0x7f) << BigInt(7 * i);
      if (byte < 0x80) return value;
    }
    throw new ProtobufError("a varint longer than 10 bytes");
  };
  const skip = (n: number): void => {
    if (at + n > bytes.length) throw new ProtobufError("unexpected end of a fixed-width field");
    at += n;
  };
  while (at < bytes.length) {
    const key = readVarint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new ProtobufError("field number 0");
    if (wire === WIRE_VARINT) fields.push({ field, varint: readVarint() });
    else if (wire === WIRE_LENGTH_DELIMITED) {
      const length = readVarint();
      if (length > BigInt(bytes.length - at)) throw new ProtobufError(`field ${field} is longer than the message`);
      fields.push({ field, bytes: bytes.subarray(at, at + Number(length)) });
      at += Number(length);
    } else if (wire === WIRE_FIXED64) skip(8);
    else if (wire === WIRE_FIXED32) skip(4);
    else throw new ProtobufError(`field ${field} has the unsupported wire type ${wire}`);
  }
  return fields;
}
