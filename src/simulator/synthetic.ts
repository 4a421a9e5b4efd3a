/**
 * Big and custom row sets, stored compactly: an `Int32Array` of block numbers (sorted) per set, and
 * every row's content derived from (chain root, set id, row index) with the cheap hash — so a wallet
 * with 100,000 transactions or a contract with 1,000,000 logs costs a few megabytes, and a row is the
 * same every time it is served.
 *
 * Transaction and log indexes of a set are laid out in a "lane" above the lanes of the sets before
 * it (lane base + position in the block), so rows of different sets that share a block never share a
 * transactionIndex or logIndex, and merging sets by (block, set order) is the chain's order.
 */
import { addressHex, addressTopic, hash2, hash3, hash32Hex, hex8, hexWords, mix32, Prng, word } from "./hash.js"
import type { ChainProfile } from "./profiles.js"
import type { InternalTx, Log, NormalTx, TokenMeta, TokenTransfer } from "./rows.js"
import { lowerBound, type LogSource, type RowSource } from "./rowIndex.js"
import { PAUSED_TOPIC, TRANSFER_TOPIC } from "./world.js"

/**
 * Topic0 of Uniswap-V3-style `Swap(address,address,int256,int256,uint160,uint128,int24)`.
 *
 * @since 0.1.0
 * @category constants
 */
export const SWAP_TOPIC = "0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67"

/** Where the dense block of a set sits and how many rows it holds. */
export interface DensePlan {
  readonly block: number
  readonly rows: number
}

/** The layout of a generated set, known before generating it. */
export interface BlockPlan {
  readonly total: number
  readonly fromBlock: number
  readonly toBlock: number
  readonly dense: DensePlan | undefined
  /** Most rows in one non-dense block. */
  readonly cap: number
  /** Mean rows per non-empty, non-dense block. */
  readonly mean: number
}

/** Plan a set of `total` rows over [fromBlock, toBlock] with one dense block of `denseRows`. */
export const planBlocks = (total: number, fromBlock: number, toBlock: number, denseBlock: number, denseRows: number): BlockPlan => {
  const dense = denseRows > 0 && total >= denseRows ? { block: denseBlock, rows: denseRows } : undefined
  const normal = total - (dense?.rows ?? 0)
  const range = Math.max(1, toBlock - fromBlock)
  const mean = Math.max(1.5, normal / (range * 0.3))
  const cap = Math.max(12, Math.ceil(mean * 4))
  return { total, fromBlock, toBlock, dense, cap: dense === undefined ? cap : Math.min(cap, Math.max(1, dense.rows - 1)), mean }
}

/**
 * Generate the sorted block numbers of a planned set: clustered activity with long empty stretches
 * (10% of the gaps are ~100× the others), at most `cap` rows per block, plus the dense block.
 */
export const generateBlocks = (plan: BlockPlan, seed: number): Int32Array => {
  const rng = new Prng(seed)
  const dense = plan.dense
  const normal = plan.total - (dense?.rows ?? 0)
  const counts: Array<number> = []
  const gaps: Array<number> = []
  let remaining = normal
  let gapTotal = 0
  while (remaining > 0) {
    const c = Math.min(remaining, plan.cap, 1 + Math.floor(-Math.log(1 - rng.float()) * (plan.mean - 1)))
    counts.push(c)
    remaining -= c
    const g = rng.chance(0.1) ? 50 + Math.floor(-Math.log(1 - rng.float()) * 400) : 1 + Math.floor(-Math.log(1 - rng.float()) * 2)
    gaps.push(g)
    gapTotal += g
  }
  const active = counts.length
  const available = plan.toBlock - plan.fromBlock - active
  const f = gapTotal > 0 && available > 0 ? available / gapTotal : 0
  const blocks: Array<number> = []
  const rows: Array<number> = []
  let cum = 0
  for (let j = 0; j < active; j++) {
    cum += gaps[j] as number
    let b = plan.fromBlock + j + Math.floor(f * cum)
    const last = blocks.length - 1
    if (b > plan.toBlock) b = plan.toBlock
    if (last >= 0 && b <= (blocks[last] as number)) {
      rows[last] = (rows[last] as number) + (counts[j] as number)
      continue
    }
    blocks.push(b)
    rows.push(counts[j] as number)
  }
  if (dense !== undefined) {
    const at = blocks.findIndex((b) => b >= dense.block)
    if (at >= 0 && blocks[at] === dense.block) {
      // Keep the dense block exact: move the rows that landed on it to a neighbour.
      const moved = rows[at] as number
      if (at > 0) rows[at - 1] = (rows[at - 1] as number) + moved
      else if (at + 1 < rows.length) rows[at + 1] = (rows[at + 1] as number) + moved
      else {
        blocks.splice(at, 0, dense.block - 1)
        rows.splice(at, 0, moved)
        rows[at + 1] = dense.rows
        return expand(blocks, rows, plan.total)
      }
      rows[at] = dense.rows
    } else if (at >= 0) {
      blocks.splice(at, 0, dense.block)
      rows.splice(at, 0, dense.rows)
    } else {
      blocks.push(dense.block)
      rows.push(dense.rows)
    }
  }
  return expand(blocks, rows, plan.total)
}

const expand = (blocks: ReadonlyArray<number>, rows: ReadonlyArray<number>, total: number): Int32Array => {
  const out = new Int32Array(total)
  let k = 0
  for (let j = 0; j < blocks.length; j++) {
    const b = blocks[j] as number
    for (let r = 0; r < (rows[j] as number); r++) out[k++] = b
  }
  return out
}

/** Blocks of an explicit distribution (scenarios): pairs sorted, equal blocks merged. */
export const blocksFromPairs = (pairs: ReadonlyArray<readonly [number, number]>): Int32Array => {
  const sorted = [...pairs].filter(([, c]) => c > 0).sort((a, b) => a[0] - b[0])
  let total = 0
  for (const [, c] of sorted) total += c
  const out = new Int32Array(total)
  let k = 0
  for (const [b, c] of sorted) for (let r = 0; r < c; r++) out[k++] = b
  return out
}

/** Largest number of rows in one block of a sorted block array. */
export const maxPerBlock = (blocks: Int32Array): number => {
  let best = 0
  let run = 0
  for (let i = 0; i < blocks.length; i++) {
    run = i > 0 && blocks[i] === blocks[i - 1] ? run + 1 : 1
    if (run > best) best = run
  }
  return best
}

/** Position of row `i` within its block. */
const positionInBlock = (blocks: Int32Array, i: number): number => i - lowerBound(blocks, blocks[i] as number)

/** Shared context of the sets of one chain. */
export interface SetContext {
  readonly root: number
  readonly profile: ChainProfile
}

const gasPriceOf = (ctx: SetContext, h: number): bigint => (ctx.profile.gasPriceWei * BigInt(70 + (h % 180))) / 100n
const cumulativeOf = (ctx: SetContext, block: number, pos: number, gasUsed: number): number =>
  21_000 + (hash2(ctx.root, block) >>> 16) % 4_000_000 + pos * 45_000 + gasUsed

const CALLS: ReadonlyArray<readonly [string, string]> = [
  ["0xa9059cbb", "transfer(address _to, uint256 _value)"],
  ["0x095ea7b3", "approve(address _spender, uint256 _value)"],
  ["0x3593564c", "execute(bytes commands, bytes[] inputs, uint256 deadline)"],
  ["0x5ae401dc", "multicall(uint256 deadline, bytes[] data)"],
  ["0x12aa3caf", "swap(address executor, tuple desc, bytes permit, bytes data)"],
  ["0xb6f9de95", ""]
]

/** A pool of `n` stable addresses named by (root, tag). */
export const addressPool = (root: number, tag: number, n: number): ReadonlyArray<string> =>
  Array.from({ length: n }, (_, k) => addressHex(root, tag, k))

/** The transactions of a busy wallet (txlist), or of a scenario wallet. */
export const walletTxSource = (
  ctx: SetContext,
  id: number,
  owner: string,
  blocks: Int32Array,
  txLane: number,
  allOutgoingBlock: number
): RowSource<NormalTx> & { readonly nativeDelta: (i: number) => bigint } => {
  const peers = addressPool(ctx.root, mix32(id ^ 0x9ee2), 512)
  const n = blocks.length
  const outgoing = new Uint8Array(n)
  const nonces = new Int32Array(n)
  let nonce = 0
  for (let i = 0; i < n; i++) {
    const h = hash3(ctx.root, id, i)
    const out = blocks[i] === allOutgoingBlock || (h & 0xff) < 205
    outgoing[i] = out ? 1 : 0
    nonces[i] = out ? nonce++ : (h >>> 12) % 5_000
  }
  const row = (i: number): NormalTx => {
    const h = hash3(ctx.root, id, i)
    const h2 = mix32(h ^ 0x5bd1e995)
    const block = blocks[i] as number
    const pos = positionInBlock(blocks, i)
    const peer = peers[(h >>> 8) % 512] as string
    const out = outgoing[i] === 1
    const gasPrice = gasPriceOf(ctx, h2)
    if (!out) {
      const value = BigInt(500 + (h2 % 4_500)) * 1_000_000_000_000_000n + BigInt(h >>> 4) * 1_000n
      return {
        block, index: txLane + pos, hash: hash32Hex(ctx.root, id, i), nonce: nonces[i] as number, from: peer, to: owner,
        value, gas: 21_000, gasPrice, gasUsed: 21_000, cumulativeGasUsed: cumulativeOf(ctx, block, pos, 21_000),
        input: "0x", methodId: "0x", functionName: "", contractAddress: "", isError: false, receiptStatus: "1", genesis: false
      }
    }
    const isError = (h2 >>> 24) < 5
    const native = (h2 & 0x3) === 0
    const call = CALLS[(h2 >>> 4) % CALLS.length] as readonly [string, string]
    const gasUsed = native ? 21_000 : 30_000 + ((h2 >>> 8) % 150_000)
    const value = native ? BigInt(1 + (h2 >>> 12) % 10_000) * 1_000_000_000_000n : 0n
    return {
      block, index: txLane + pos, hash: hash32Hex(ctx.root, id, i), nonce: nonces[i] as number, from: owner, to: peer,
      value, gas: Math.round(gasUsed * 1.3), gasPrice, gasUsed, cumulativeGasUsed: cumulativeOf(ctx, block, pos, gasUsed),
      input: native ? "0x" : call[0] + hexWords(ctx.root, h, i, 8), methodId: native ? "0x" : call[0],
      functionName: native ? "" : call[1], contractAddress: "", isError, receiptStatus: isError ? "0" : "1", genesis: false
    }
  }
  return {
    blocks,
    get: row,
    nativeDelta: (i) => {
      const tx = row(i)
      if (tx.to === owner) return tx.value
      const fee = tx.gasPrice * BigInt(tx.gasUsed)
      return tx.isError ? -fee : -(fee + tx.value)
    }
  }
}

const Z38 = "0".repeat(38)
const Z40 = "0".repeat(40)
const Z44 = "0".repeat(44)
const F48 = "f".repeat(48)
const F58 = "f".repeat(58)

/** The logs of a heavy contract: Uniswap-V3-style Swap events, one per transaction. */
export const swapLogSource = (
  ctx: SetContext,
  id: number,
  contract: string,
  routers: ReadonlyArray<string>,
  blocks: Int32Array,
  txLane: number,
  logLane: number
): LogSource => {
  const senderTopics = routers.map(addressTopic)
  const traders = addressPool(ctx.root, mix32(id ^ 0x7ade), 256).map(addressTopic)
  const topicAt = (i: number, k: number): string | undefined => {
    if (k === 0) return SWAP_TOPIC
    const h = hash3(ctx.root, id, i)
    if (k === 1) return senderTopics[h % senderTopics.length]
    if (k === 2) return traders[(h >>> 8) & 255]
    return undefined
  }
  const get = (i: number): Log => {
    const h = hash3(ctx.root, id, i)
    const h2 = mix32(h ^ 0x68e31da4)
    const h3 = mix32(h2 ^ 0x1b873593)
    const block = blocks[i] as number
    const pos = positionInBlock(blocks, i)
    // ABI words written straight from hashes (no BigInt): a positive amount, a negative amount
    // (two's complement), sqrtPriceX96 just above 2^96, a liquidity, and a negative int24 tick.
    const positive = Z40 + hex8(h2 & 0xffff) + hex8(h3) + hex8(h)
    const negative = F48 + hex8(h3 | 0x80000000) + hex8(h2)
    const tick = F58 + ((1 << 24) - 1 - (h2 % 50_000)).toString(16).padStart(6, "0")
    const topics = [SWAP_TOPIC, senderTopics[h % senderTopics.length] as string, traders[(h >>> 8) & 255] as string]
    return {
      address: contract, topics,
      data: "0x" + (h2 & 1 ? positive + negative : negative + positive) + Z38 + "01" + hex8(h3 >>> 8) + hex8(h) +
        hex8(h2) + Z44 + hex8(h3 & 0xfff) + hex8(h2 ^ h3) + hex8(h ^ h3).slice(4) + tick,
      block, txHash: hash32Hex(ctx.root, id, i), txIndex: txLane + pos, logIndex: logLane + pos,
      gasPrice: gasPriceOf(ctx, h2), gasUsed: 110_000 + (h2 % 90_000)
    }
  }
  return { blocks, get, topicAt }
}

/**
 * Scenario logs of a contract: ERC-20-style Transfer events between a pool of 16 addresses. `mixed`:
 * about one log in five is an ERC-721-shaped Transfer (the amount as a third indexed topic, no data)
 * and about one in thirteen a `Paused(address)`, as a contract whose logs an ERC-20 ABI only partly
 * decodes.
 */
export const transferLogSource = (
  ctx: SetContext,
  id: number,
  contract: string,
  blocks: Int32Array,
  txLane: number,
  logLane: number,
  mixed = false
): LogSource => {
  const pool = addressPool(ctx.root, mix32(id ^ 0x5ce7), 16).map(addressTopic)
  /** 0: ERC-20 Transfer, 1: ERC-721-shaped Transfer, 2: Paused. */
  const shapeOf = (h: number): 0 | 1 | 2 => {
    if (!mixed) return 0
    const r = mix32(h ^ 0x3c6ef372) % 65
    return r < 13 ? 1 : r < 18 ? 2 : 0
  }
  const topicsOf = (h: number, i: number): ReadonlyArray<string> => {
    const from = pool[h & 15] as string
    switch (shapeOf(h)) {
      case 0:
        return [TRANSFER_TOPIC, from, pool[(h >>> 4) & 15] as string]
      case 1:
        return [TRANSFER_TOPIC, from, pool[(h >>> 4) & 15] as string, "0x" + word(BigInt(i))]
      case 2:
        return [PAUSED_TOPIC]
    }
  }
  const topicAt = (i: number, k: number): string | undefined => topicsOf(hash3(ctx.root, id, i), i)[k]
  const get = (i: number): Log => {
    const h = hash3(ctx.root, id, i)
    const block = blocks[i] as number
    const pos = positionInBlock(blocks, i)
    const shape = shapeOf(h)
    const data = shape === 1 ? "0x" : shape === 2 ? "0x" + (pool[h & 15] as string).slice(2) : "0x" + word((BigInt(mix32(h)) << 40n) | BigInt(i))
    return {
      address: contract, topics: [...topicsOf(h, i)], data, block, txHash: hash32Hex(ctx.root, id, i),
      txIndex: txLane + pos, logIndex: logLane + pos, gasPrice: gasPriceOf(ctx, h), gasUsed: 35_000 + (h % 30_000)
    }
  }
  return { blocks, get, topicAt }
}

/** Scenario internal transactions received by an address from a pool of contracts. */
export const internalSource = (ctx: SetContext, id: number, owner: string, blocks: Int32Array, txLane: number): RowSource<InternalTx> => {
  const pool = addressPool(ctx.root, mix32(id ^ 0x1a7e), 8)
  return {
    blocks,
    get: (i) => {
      const h = hash3(ctx.root, id, i)
      const block = blocks[i] as number
      const failed = (h >>> 24) < 4
      return {
        block, txIndex: txLane + positionInBlock(blocks, i), hash: hash32Hex(ctx.root, id, i), from: pool[h & 7] as string,
        to: owner, value: BigInt(1 + (h >>> 3) % 100_000) * 10_000_000_000_000n, contractAddress: "", input: "",
        type: "call", gas: 2_300 + (h % 50_000), gasUsed: 0, traceId: "0_" + (1 + (h >>> 28)), isError: failed,
        errCode: failed ? "execution reverted" : ""
      }
    }
  }
}

/** Scenario token transfers of a wallet with one scenario token of the given standard. */
export const transferSource = (
  ctx: SetContext,
  id: number,
  owner: string,
  token: TokenMeta,
  blocks: Int32Array,
  txLane: number,
  logLane: number
): RowSource<TokenTransfer> => {
  const peers = addressPool(ctx.root, mix32(id ^ 0x70c3), 64)
  return {
    blocks,
    get: (i) => {
      const h = hash3(ctx.root, id, i)
      const h2 = mix32(h ^ 0x2545f491)
      const block = blocks[i] as number
      const pos = positionInBlock(blocks, i)
      const peer = peers[h & 63] as string
      const incoming = (h & 64) !== 0
      const from = incoming ? peer : owner
      const to = incoming ? owner : peer
      const gasUsed = 40_000 + (h2 % 60_000)
      const tx: NormalTx = {
        block, index: txLane + pos, hash: hash32Hex(ctx.root, id, i), nonce: (h2 >>> 8) % 10_000, from, to: token.address,
        value: 0n, gas: Math.round(gasUsed * 1.4), gasPrice: gasPriceOf(ctx, h2), gasUsed,
        cumulativeGasUsed: cumulativeOf(ctx, block, pos, gasUsed), input: "deprecated", methodId: "0x" + hex8(h2 | 1),
        functionName: "", contractAddress: "", isError: false, receiptStatus: "1", genesis: false
      }
      return {
        token, tx, from, to,
        amount: token.standard === "erc20" ? (BigInt(h2) << 30n) | BigInt(i) : token.standard === "erc1155" ? BigInt(1 + (h % 20)) : 1n,
        tokenId: token.standard === "erc20" ? 0n : BigInt(i + 1),
        logIndex: logLane + pos
      }
    }
  }
}
