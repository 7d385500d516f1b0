// A small seeded PRNG for the driver's start jitter, so `-seed S` reproduces the same start
// offsets (as the anchor's math/rand source does; the sequences differ, the distribution not).

/** seededRandom returns a uniform [0, 1) generator (mulberry32) for a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** seedFrom maps a -seed flag value to a generator seed; 0 means time based, like the anchor. */
export function seedFrom(flag: number): number {
  if (flag !== 0) return flag;
  return Number(process.hrtime.bigint() & 0xffffffffn) || 1;
}
