/**
 * What the simulator's blocks hold beyond the rows of the data set: who proposed each block (its fee
 * recipient, `miner`), the base fee, the gas used and the proposer's reward. Derived from (chain, block),
 * so eth_getBlockByNumber, getminedblocks and getblockreward agree with each other without storing
 * anything.
 *
 * Every block has a proposer: one of four builder addresses, except that inside the regular activity a
 * solo validator proposes about one block in a thousand (so its getminedblocks list is short enough to
 * export whole).
 */
import type { ChainData } from "./dataset.js"
import { hash2, hash3 } from "./hash.js"

/** Entity names of the proposers (addresses come from `ChainData.addr`). */
export const proposerNames = {
  builders: ["builder-0", "builder-1", "builder-2", "builder-3"],
  soloValidator: "solo-validator"
} as const

/** One in this many blocks of the regular activity is proposed by the solo validator. */
export const SOLO_ONE_IN = 1_000

const ACTIVITY_START = (c: ChainData): number => c.world().activityStart

/** Whether the solo validator proposed `block`. */
export const soloProposed = (c: ChainData, block: number): boolean =>
  c.populated && block >= ACTIVITY_START(c) && block <= c.profile.latestBlock &&
  hash2(c.root ^ 0x5010, block) % SOLO_ONE_IN === 0

/** The proposer of a block: -1 for the solo validator, else the builder's number (0–3). */
const proposerOf = (c: ChainData, block: number): number =>
  soloProposed(c, block) ? -1 : hash2(c.root ^ 0xb01d, block) & 3

const addresses = new WeakMap<ChainData, { readonly solo: string; readonly builders: ReadonlyArray<string> }>()
/** The proposers' addresses of a chain (computed once). */
export const proposers = (c: ChainData): { readonly solo: string; readonly builders: ReadonlyArray<string> } => {
  let a = addresses.get(c)
  if (a === undefined) {
    a = { solo: c.addr(proposerNames.soloValidator), builders: proposerNames.builders.map((n) => c.addr(n)) }
    addresses.set(c, a)
  }
  return a
}

/** The fee recipient (`miner`) of a block. */
export const minerOf = (c: ChainData, block: number): string => {
  const p = proposerOf(c, block)
  const a = proposers(c)
  return p < 0 ? a.solo : (a.builders[p] as string)
}

/** The base fee of a block: 50–65 % of the chain's typical gas price (below every gas price paid in it). */
export const baseFeeOf = (c: ChainData, block: number): bigint =>
  (c.profile.gasPriceWei * BigInt(50 + (hash2(c.root ^ 0xba5e, block) % 16))) / 100n

/** The gas limit of every block. */
export const GAS_LIMIT = 45_000_000

/** Gas used by a block: its last transaction's cumulative gas (a block holds exactly its transactions), 0 if it has none. */
export const gasUsedOf = (c: ChainData, block: number): number => {
  const txs = c.txsInBlock(block)
  const last = txs[txs.length - 1]
  return last === undefined ? 0 : Math.min(GAS_LIMIT, last.cumulativeGasUsed)
}

/**
 * The proposer's reward (wei): the priority fees of the block's known transactions plus a made-up part for
 * the transactions the data set does not hold (post-merge rewards are fees only).
 */
export const blockRewardOf = (c: ChainData, block: number): bigint => {
  const base = baseFeeOf(c, block)
  let tips = 0n
  for (const t of c.txsInBlock(block)) tips += BigInt(t.gasUsed) * (t.gasPrice > base ? t.gasPrice - base : 0n)
  return tips + BigInt(hash2(c.root ^ 0x7e3d, block) % 40_000_000) * 1_000_000_000n
}

/**
 * The blocks `address` proposed, newest first, skipping `skip` and taking up to `take` (getminedblocks).
 * The solo validator's blocks are found in the regular activity only; a builder's are every block whose
 * hash picks it, found by walking down from the latest block until enough are collected.
 */
export const minedBlocks = (c: ChainData, address: string, skip: number, take: number): ReadonlyArray<number> => {
  const out: Array<number> = []
  if (!c.populated || take <= 0) return out
  const latest = c.profile.latestBlock
  const a = proposers(c)
  const wanted = address === a.solo ? -1 : a.builders.indexOf(address)
  if (wanted === -1 && address !== a.solo) return out
  const bottom = wanted === -1 ? ACTIVITY_START(c) : 0
  let seen = 0
  for (let b = latest; b >= bottom && out.length < take; b--) {
    if (proposerOf(c, b) !== wanted) continue
    if (seen++ >= skip) out.push(b)
  }
  return out
}

// ---- consensus-layer withdrawals --------------------------------------------------------------------

/** Entity name of the staker whose validators' withdrawals go to one address (txsBeaconWithdrawal). */
export const STAKER = "staker"
/** Validators of the staker. */
export const STAKER_VALIDATORS = 16
/** Blocks between two sweeps of one validator (plus a jitter of up to 200). */
export const SWEEP_BLOCKS = 5_000

/** One withdrawal of the consensus layer to the staker's address. */
export interface Withdrawal {
  readonly index: number
  readonly validator: number
  readonly block: number
  /** Gwei. */
  readonly amount: bigint
}

const sweeps = new WeakMap<ChainData, { readonly rows: ReadonlyArray<Withdrawal>; readonly prefixWei: ReadonlyArray<bigint> }>()

/** The validator indexes of the staker. */
export const stakerValidators = (c: ChainData): ReadonlyArray<number> =>
  Array.from({ length: STAKER_VALIDATORS }, (_, k) => 400_000 + (hash2(c.root ^ 0x57a4, 0) % 900_000) + k * 37)

const build = (c: ChainData) => {
  let s = sweeps.get(c)
  if (s !== undefined) return s
  const rows: Array<Withdrawal> = []
  if (c.populated) {
    const start = ACTIVITY_START(c)
    const end = c.profile.latestBlock
    stakerValidators(c).forEach((validator, k) => {
      let block = start + (hash2(c.root ^ 0x5eed, k) % SWEEP_BLOCKS)
      for (let n = 0; block <= end; n++) {
        // about 0.01–0.02 ether of rewards per sweep, as the recorded answers show
        const amount = 10_000_000n + BigInt(hash3(c.root, validator, n) % 10_000_000)
        rows.push({ index: 0, validator, block, amount })
        block += SWEEP_BLOCKS + (hash3(c.root ^ 0x1177, validator, n) % 200)
      }
    })
  }
  rows.sort((a, b) => a.block - b.block || a.validator - b.validator)
  // the global withdrawal index grows with the block: 16 withdrawals per block before ours
  const indexed = rows.map((w, i) => ({ ...w, index: w.block * 16 + (i % 16) }))
  const prefixWei: Array<bigint> = []
  let sum = 0n
  for (const w of indexed) prefixWei.push((sum += w.amount * 1_000_000_000n))
  s = { rows: indexed, prefixWei }
  sweeps.set(c, s)
  return s
}

/** The staker's withdrawals, in block order. */
export const withdrawals = (c: ChainData): ReadonlyArray<Withdrawal> => build(c).rows

/** Wei withdrawn to the staker up to the end of `block` (its native balance: it does nothing else). */
export const withdrawnBy = (c: ChainData, block: number): bigint => {
  const { prefixWei, rows } = build(c)
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((rows[mid] as Withdrawal).block <= block) lo = mid + 1
    else hi = mid
  }
  return lo === 0 ? 0n : (prefixWei[lo - 1] as bigint)
}

const byBlock = new WeakMap<ChainData, ReadonlyMap<number, ReadonlyArray<Withdrawal>>>()

/** The staker's withdrawals included in one block (the `withdrawals` of eth_getBlockByNumber). */
export const withdrawalsIn = (c: ChainData, block: number): ReadonlyArray<Withdrawal> => {
  let m = byBlock.get(c)
  if (m === undefined) {
    const built = new Map<number, Array<Withdrawal>>()
    for (const w of withdrawals(c)) {
      const a = built.get(w.block)
      if (a === undefined) built.set(w.block, [w])
      else a.push(w)
    }
    m = built
    byBlock.set(c, m)
  }
  return m.get(block) ?? []
}

/** Unix seconds of the Shanghai fork (withdrawals) and of Cancun (blobs) on mainnet, used for every chain. */
export const SHANGHAI_TIME = 1_681_338_455
export const CANCUN_TIME = 1_710_338_135
