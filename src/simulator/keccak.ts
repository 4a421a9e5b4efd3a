/**
 * Keccak-256 (the Ethereum hash, not SHA3-256: the padding byte is 0x01) for the simulator's proxy
 * module: the hash of a raw transaction that eth_sendRawTransaction answers, function selectors, and the
 * logs bloom of receipts and blocks. Written here so the simulator needs no dependency; small inputs only
 * (BigInt lanes: tens of microseconds per block of 136 bytes).
 */

const MASK = (1n << 64n) - 1n

/** Rotation offsets, indexed x + 5y. */
const ROTATIONS: ReadonlyArray<number> = [
  0, 1, 62, 28, 27,
  36, 44, 6, 55, 20,
  3, 10, 43, 25, 39,
  41, 45, 15, 21, 8,
  18, 2, 61, 56, 14
]

/** The 24 round constants, from the LFSR of the Keccak reference. */
const ROUND_CONSTANTS: ReadonlyArray<bigint> = (() => {
  const out: Array<bigint> = []
  let r = 1
  const bit = (): number => {
    const b = r & 1
    r = (r & 0x80) !== 0 ? ((r << 1) ^ 0x171) & 0xff : (r << 1) & 0xff
    return b
  }
  for (let round = 0; round < 24; round++) {
    let c = 0n
    for (let j = 0; j < 7; j++) if (bit() === 1) c |= 1n << BigInt((1 << j) - 1)
    out.push(c)
  }
  return out
})()

const rotl = (x: bigint, n: number): bigint => (n === 0 ? x : ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK)

const permute = (s: Array<bigint>): void => {
  const c: Array<bigint> = new Array(5)
  const b: Array<bigint> = new Array(25)
  for (let round = 0; round < 24; round++) {
    for (let x = 0; x < 5; x++) {
      c[x] = (s[x] as bigint) ^ (s[x + 5] as bigint) ^ (s[x + 10] as bigint) ^ (s[x + 15] as bigint) ^ (s[x + 20] as bigint)
    }
    for (let x = 0; x < 5; x++) {
      const d = (c[(x + 4) % 5] as bigint) ^ rotl(c[(x + 1) % 5] as bigint, 1)
      for (let y = 0; y < 25; y += 5) s[x + y] = (s[x + y] as bigint) ^ d
    }
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(s[x + 5 * y] as bigint, ROTATIONS[x + 5 * y] as number)
    }
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        s[x + y] = (b[x + y] as bigint) ^ (~(b[((x + 1) % 5) + y] as bigint) & MASK & (b[((x + 2) % 5) + y] as bigint))
      }
    }
    s[0] = (s[0] as bigint) ^ (ROUND_CONSTANTS[round] as bigint)
  }
}

const RATE = 136

/** Keccak-256 of bytes, as 32 bytes. */
export const keccak256 = (input: Uint8Array): Uint8Array => {
  const padded = new Uint8Array((Math.floor(input.length / RATE) + 1) * RATE)
  padded.set(input)
  padded[input.length] = (padded[input.length] as number) ^ 0x01
  padded[padded.length - 1] = (padded[padded.length - 1] as number) ^ 0x80
  const s: Array<bigint> = new Array(25).fill(0n)
  for (let offset = 0; offset < padded.length; offset += RATE) {
    for (let lane = 0; lane < RATE / 8; lane++) {
      let v = 0n
      for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(padded[offset + lane * 8 + k] as number)
      s[lane] = (s[lane] as bigint) ^ v
    }
    permute(s)
  }
  const out = new Uint8Array(32)
  for (let lane = 0; lane < 4; lane++) {
    let v = s[lane] as bigint
    for (let k = 0; k < 8; k++) {
      out[lane * 8 + k] = Number(v & 0xffn)
      v >>= 8n
    }
  }
  return out
}

/** Bytes of a "0x…" hex string (an odd digit count is refused by the callers before). */
export const hexToBytes = (hex: string): Uint8Array => {
  const digits = hex.startsWith("0x") || hex.startsWith("0X") ? hex.slice(2) : hex
  const out = new Uint8Array(digits.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16)
  return out
}

/** "0x" + lowercase hex of bytes. */
export const bytesToHex = (bytes: Uint8Array): string => {
  let out = "0x"
  for (const b of bytes) out += b.toString(16).padStart(2, "0")
  return out
}

/** Keccak-256 of a hex string's bytes, as "0x" + 64 hex digits. */
export const keccakHex = (hex: string): string => bytesToHex(keccak256(hexToBytes(hex)))

/** Keccak-256 of a UTF-8 text (a function signature), as "0x" + 64 hex digits. */
export const keccakText = (text: string): string => bytesToHex(keccak256(new TextEncoder().encode(text)))

/**
 * A 2048-bit logs bloom (as 256 bytes) of addresses and topics: for each item, the three 11-bit values of
 * the first six bytes of its Keccak-256 set one bit each (the yellow paper's M3:2048).
 */
export const logsBloom = (items: Iterable<string>): string => {
  const bloom = new Uint8Array(256)
  for (const item of items) {
    const h = keccak256(hexToBytes(item))
    for (let k = 0; k < 6; k += 2) {
      const bit = (((h[k] as number) << 8) | (h[k + 1] as number)) & 2047
      const index = 255 - (bit >> 3)
      bloom[index] = (bloom[index] as number) | (1 << (bit & 7))
    }
  }
  return bytesToHex(bloom)
}
