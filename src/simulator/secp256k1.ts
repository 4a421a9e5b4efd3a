/**
 * The sender of a signed transaction: secp256k1 public-key recovery from (hash, r, s, recovery id), as a
 * node does it before it checks the sender's nonce and balance. Plain bigint arithmetic (affine points,
 * inverses by the extended Euclidean algorithm): a few milliseconds a signature, enough for a simulator.
 */
import { bytesToHex, keccak256 } from "./keccak.js"

const P = 2n ** 256n - 2n ** 32n - 977n
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const G = {
  x: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  y: 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n
}

interface Point {
  readonly x: bigint
  readonly y: bigint
}

const mod = (a: bigint, m: bigint): bigint => {
  const r = a % m
  return r < 0n ? r + m : r
}

const inverse = (a: bigint, m: bigint): bigint => {
  let [oldR, r] = [mod(a, m), m]
  let [oldS, s] = [1n, 0n]
  while (r !== 0n) {
    const q = oldR / r
    ;[oldR, r] = [r, oldR - q * r]
    ;[oldS, s] = [s, oldS - q * s]
  }
  return mod(oldS, m)
}

const pow = (base: bigint, exponent: bigint, m: bigint): bigint => {
  let result = 1n
  let b = mod(base, m)
  let e = exponent
  while (e > 0n) {
    if ((e & 1n) === 1n) result = (result * b) % m
    b = (b * b) % m
    e >>= 1n
  }
  return result
}

const add = (a: Point | undefined, b: Point | undefined): Point | undefined => {
  if (a === undefined) return b
  if (b === undefined) return a
  if (a.x === b.x && mod(a.y + b.y, P) === 0n) return undefined
  const slope = a.x === b.x
    ? mod(3n * a.x * a.x * inverse(2n * a.y, P), P)
    : mod((b.y - a.y) * inverse(b.x - a.x, P), P)
  const x = mod(slope * slope - a.x - b.x, P)
  return { x, y: mod(slope * (a.x - x) - a.y, P) }
}

const multiply = (point: Point, scalar: bigint): Point | undefined => {
  let result: Point | undefined
  let addend: Point | undefined = point
  let k = mod(scalar, N)
  while (k > 0n) {
    if ((k & 1n) === 1n) result = add(result, addend)
    addend = add(addend, addend)
    k >>= 1n
  }
  return result
}

const word = (n: bigint): string => n.toString(16).padStart(64, "0")

/**
 * The address that signed `hash` with (r, s, recoveryId), lower-case with 0x; `undefined` for a signature
 * no key can have made.
 */
export const recoverAddress = (hash: Uint8Array, r: bigint, s: bigint, recoveryId: number): string | undefined => {
  if (r <= 0n || r >= N || s <= 0n || s >= N || (recoveryId !== 0 && recoveryId !== 1)) return undefined
  const x = r
  const y2 = mod(x * x * x + 7n, P)
  let y = pow(y2, (P + 1n) / 4n, P)
  if (mod(y * y, P) !== y2) return undefined
  if (Number(y & 1n) !== recoveryId) y = P - y
  const z = BigInt(bytesToHex(hash))
  const rInverse = inverse(r, N)
  const q = add(multiply(G, mod(-z * rInverse, N)), multiply({ x, y }, mod(s * rInverse, N)))
  if (q === undefined) return undefined
  const publicKey = Uint8Array.from(Buffer.from(word(q.x) + word(q.y), "hex"))
  return "0x" + bytesToHex(keccak256(publicKey)).slice(-40)
}
