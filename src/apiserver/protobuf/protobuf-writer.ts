// The protocol buffers wire format, as far as the agent writes it: length-delimited fields
// (strings and embedded messages), which is all a document of strings and messages needs.

/** WIRE_LENGTH_DELIMITED is wire type 2 (strings, bytes, embedded messages, packed repeats). */
const WIRE_LENGTH_DELIMITED = 2;

/** varint encodes a non-negative integer as a base-128 varint. */
export function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

/** lengthDelimited encodes field `field` holding `payload` (a UTF-8 string or encoded message bytes). */
export function lengthDelimited(field: number, payload: string | Uint8Array): Uint8Array {
  const bytes = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  return Buffer.concat([varint(field * 8 + WIRE_LENGTH_DELIMITED), varint(bytes.length), bytes]);
}

/** message concatenates encoded fields into one message's bytes. */
export function message(...fields: Uint8Array[]): Uint8Array {
  return Buffer.concat(fields);
}
