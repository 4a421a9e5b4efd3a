/**
 * Cheap deterministic hashing for the simulator's data set: a 32-bit integer mix, a seeded PRNG and
 * hex helpers. Rows of the big row sets are derived from `(seed, entity, index)` with these, so they
 * are stable across calls without being stored. Not cryptographic, and not meant to be.
 */

/** A strong 32-bit integer finaliser (lowbias32): every input bit affects every output bit. */
export const mix32 = (x: number): number => {
  let h = x | 0
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h >>> 0
}

/** Hash of two 32-bit values. */
export const hash2 = (a: number, b: number): number => mix32(mix32(a ^ 0x9e3779b9) ^ Math.imul(b | 0, 0x85ebca6b) ^ 0x27d4eb2f)

/** Hash of three 32-bit values. */
export const hash3 = (a: number, b: number, c: number): number => hash2(hash2(a, b), c)

/** A uniform float in [0, 1) from a 32-bit hash. */
export const unit = (h: number): number => (h >>> 0) / 4294967296

/** FNV-1a of a string, then mixed: the 32-bit identity of a name. */
export const hashString = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return mix32(h)
}

const BYTE_HEX: ReadonlyArray<string> = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

/** Eight lowercase hex digits of a 32-bit value. */
export const hex8 = (u: number): string =>
  (BYTE_HEX[(u >>> 24) & 255] as string) +
  (BYTE_HEX[(u >>> 16) & 255] as string) +
  (BYTE_HEX[(u >>> 8) & 255] as string) +
  (BYTE_HEX[u & 255] as string)

/** `words × 8` hex digits (no "0x") derived from `(a, b, c)`. */
export const hexWords = (a: number, b: number, c: number, words: number): string => {
  const base = hash3(a, b, c)
  let out = ""
  for (let w = 0; w < words; w++) out += hex8(hash2(base, w + 1))
  return out
}

/** A 32-byte hash ("0x" + 64 hex digits) derived from `(a, b, c)`. */
export const hash32Hex = (a: number, b: number, c: number): string => "0x" + hexWords(a, b, c, 8)

/** A 20-byte address ("0x" + 40 hex digits) derived from `(a, b, c)`. */
export const addressHex = (a: number, b: number, c: number): string => "0x" + hexWords(a, b, c, 5)

/** A seeded PRNG (mulberry32): a fast, reproducible stream of 32-bit values. */
export class Prng {
  private state: number
  constructor(seed: number) {
    this.state = mix32(seed ^ 0x6d2b79f5) | 0
  }
  /** The next uniform 32-bit unsigned value. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
  /** A uniform float in [0, 1). */
  float(): number {
    return this.next() / 4294967296
  }
  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n)
  }
  /** A uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1)
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p
  }
  /** One element of a non-empty array. */
  pick<A>(items: ReadonlyArray<A>): A {
    return items[this.int(items.length)] as A
  }
  /** A bigint in [0, 2^64) built from two draws. */
  big64(): bigint {
    return (BigInt(this.next()) << 32n) | BigInt(this.next())
  }
}

/** Hex of a non-negative integer as JSON-RPC writes quantities: "0x0" for zero. */
export const quantityHex = (n: number | bigint): string => "0x" + n.toString(16)

const ZEROS_64 = "0".repeat(64)

/** A 32-byte ABI word (64 hex digits, no "0x") of a non-negative integer. */
export const word = (n: bigint): string => {
  const h = n.toString(16)
  return h.length >= 64 ? h.slice(h.length - 64) : ZEROS_64.slice(h.length) + h
}

/** An address as a 32-byte topic: "0x" + 24 zeros + the 40 address digits. */
export const addressTopic = (address: string): string => "0x000000000000000000000000" + address.slice(2)

/** A uint256 as a 32-byte topic. */
export const uintTopic = (n: bigint): string => "0x" + word(n)
