/**
 * Per-chain constants of the simulated data set (latest block, block time, gas price level, native
 * supply) and the entity naming scheme: every well-known address is derived from (seed, chain, name).
 */
import * as Chain from "../Chain.js"
import { addressHex, hash32Hex, hashString, mix32 } from "./hash.js"

/** What the simulator assumes about one chain. */
export interface ChainProfile {
  readonly chainId: number
  readonly latestBlock: number
  /** Seconds between blocks. */
  readonly blockTime: number
  /** Unix seconds of `latestBlock`. */
  readonly latestTimestamp: number
  /** Typical gas price in wei. */
  readonly gasPriceWei: bigint
  /** Native supply in wei (stats/ethsupply). */
  readonly supplyWei: bigint
}

/** Unix seconds of every chain's latest block: 2025-10-01T06:26:40Z. Fixed, so answers never drift. */
export const LATEST_TIMESTAMP = 1_759_300_000

const GWEI = 1_000_000_000n
const ETHER = 10n ** 18n

const known: Record<number, Omit<ChainProfile, "chainId" | "latestTimestamp">> = {
  1: { latestBlock: 23_500_000, blockTime: 12, gasPriceWei: 12n * GWEI, supplyWei: 120_700_000n * ETHER },
  137: { latestBlock: 77_000_000, blockTime: 2, gasPriceWei: 35n * GWEI, supplyWei: 10_470_000_000n * ETHER },
  8453: { latestBlock: 36_000_000, blockTime: 2, gasPriceWei: 5_000_000n, supplyWei: 2_600_000n * ETHER },
  999: { latestBlock: 15_000_000, blockTime: 1, gasPriceWei: GWEI / 2n, supplyWei: 999_990_000n * ETHER },
  11155111: { latestBlock: 9_300_000, blockTime: 12, gasPriceWei: 2n * GWEI, supplyWei: 3_900_000_000n * ETHER }
}

/** The chains that hold a populated data set by default (facts: 1, 137, 8453 paid-only, 999, Sepolia). */
export const DEFAULT_CHAINS: ReadonlyArray<number> = [1, 137, 8453, 999, 11155111]

/** The profile of any supported chain; chains not in the table get a stable made-up one. */
export const profileOf = (chainId: number): ChainProfile => {
  const k = known[chainId]
  if (k !== undefined) return { chainId, latestTimestamp: LATEST_TIMESTAMP, ...k }
  const h = mix32(chainId)
  return {
    chainId,
    latestTimestamp: LATEST_TIMESTAMP,
    latestBlock: 5_000_000 + (h % 40_000_000),
    blockTime: 2,
    gasPriceWei: GWEI / 10n + BigInt(h % 1000) * 1_000_000n,
    supplyWei: (1_000_000_000n + BigInt(h % 1_000_000)) * ETHER
  }
}

/** Whether the API serves this chain id: it is in the chain table (ids and names; the rules are in rules.ts). */
export const isServed = (chainId: number): boolean => Chain.byId(chainId) !== undefined

/** The 32-bit identity of (seed, chain): the root of every derived value of that chain. */
export const chainRoot = (seed: number, chainId: number): number => mix32(hashString(`sim:${seed >>> 0}:${chainId}`))

/** The address of a named entity of a chain. */
export const entityAddress = (seed: number, chainId: number, name: string): string =>
  addressHex(chainRoot(seed, chainId), hashString(name), 0xadd4e55)

/** The hash of a block (the same in every row that names the block). */
export const blockHash = (root: number, block: number): string => hash32Hex(root, 0xb10c, block)

/** Unix seconds of a block. */
export const timestampOf = (p: ChainProfile, block: number): number =>
  p.latestTimestamp - (p.latestBlock - block) * p.blockTime

/** How many blocks back from the latest the regular activity starts. */
export const ACTIVITY_SPAN = 200_000
