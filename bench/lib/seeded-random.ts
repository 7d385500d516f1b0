// A small seeded PRNG for the driver's start jitter, so `-seed S` reproduces the same start
// offsets (as the anchor's math/rand source does; the sequences differ, the distribution not).
export { seededRandom } from "../../src/util/seeded-random.js";

/** seedFrom maps a -seed flag value to a generator seed; 0 means time based, like the anchor. */
export function seedFrom(flag: number): number {
  if (flag !== 0) return flag;
  return Number(process.hrtime.bigint() & 0xffffffffn) || 1;
}
