/**
 * Chains of the explorer API: the branded `ChainId` and the chain table
 * (name as the explorer spells it, and whether the free plan may use it).
 *
 * @example
 * import { Chain } from "explorer-etl"
 * const polygon = Chain.ChainId.make(137)
 * Chain.byId(polygon)?.name // "Polygon Mainnet"
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Schema from "effect/Schema"

/**
 * A chain id as the API's `chainid` parameter takes it: one positive integer, branded.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChainId = Schema.Int.pipe(Schema.positive(), Schema.brand("ChainId"))
/**
 * The type of the values of the `ChainId` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ChainId = typeof ChainId.Type

/**
 * A chain id read from a string (`"137"`), as it comes from a CLI flag or a query string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ChainIdFromString = Schema.compose(Schema.NumberFromString, ChainId)

/**
 * One row of the chain table.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChainInfo {
  readonly id: ChainId
  readonly name: string
  /** `false` on the paid-only chains: a free key gets "Free API access is not supported for this chain…". */
  readonly freeTier: boolean
}

const table: ReadonlyArray<readonly [number, string, boolean]> = [
  [1, "Ethereum Mainnet", true],
  [11155111, "Sepolia Testnet", true],
  [560048, "Hoodi Testnet", true],
  [56, "BNB Smart Chain Mainnet", false],
  [97, "BNB Smart Chain Testnet", false],
  [137, "Polygon Mainnet", true],
  [80002, "Polygon Amoy Testnet", true],
  [8453, "Base Mainnet", false],
  [84532, "Base Sepolia Testnet", false],
  [42161, "Arbitrum One Mainnet", true],
  [421614, "Arbitrum Sepolia Testnet", true],
  [59144, "Linea Mainnet", true],
  [59141, "Linea Sepolia Testnet", true],
  [81457, "Blast Mainnet", true],
  [168587773, "Blast Sepolia Testnet", true],
  [10, "OP Mainnet", false],
  [11155420, "OP Sepolia Testnet", false],
  [43114, "Avalanche C-Chain", false],
  [43113, "Avalanche Fuji Testnet", false],
  [199, "BitTorrent Chain Mainnet", true],
  [1029, "BitTorrent Chain Testnet", true],
  [42220, "Celo Mainnet", true],
  [11142220, "Celo Sepolia Testnet", true],
  [252, "Fraxtal Mainnet", true],
  [2523, "Fraxtal Hoodi Testnet", true],
  [100, "Gnosis", true],
  [5000, "Mantle Mainnet", true],
  [5003, "Mantle Sepolia Testnet", true],
  [4352, "Memecore Mainnet", true],
  [43522, "Memecore Insectarium Testnet", true],
  [204, "opBNB Mainnet", true],
  [5611, "opBNB Testnet", true],
  [167000, "Taiko Mainnet", true],
  [167013, "Taiko Hoodi", true],
  [50, "XDC Mainnet", true],
  [51, "XDC Apothem Testnet", true],
  [33139, "ApeChain Mainnet", true],
  [33111, "ApeChain Curtis Testnet", true],
  [480, "World Mainnet", true],
  [4801, "World Sepolia Testnet", true],
  [146, "Sonic Mainnet", true],
  [14601, "Sonic Testnet", true],
  [130, "Unichain Mainnet", true],
  [1301, "Unichain Sepolia Testnet", true],
  [2741, "Abstract Mainnet", true],
  [11124, "Abstract Sepolia Testnet", true],
  [80094, "Berachain Mainnet", true],
  [80069, "Berachain Bepolia Testnet", true],
  [143, "Monad Mainnet", true],
  [10143, "Monad Testnet", true],
  [999, "HyperEVM Mainnet", true],
  [747474, "Katana Mainnet", true],
  [737373, "Katana Bokuto", true],
  [1329, "Sei Mainnet", true],
  [1328, "Sei Testnet", true],
  [988, "Stable Mainnet", true],
  [2201, "Stable Testnet", true],
  [9745, "Plasma Mainnet", true],
  [9746, "Plasma Testnet", true],
  [4326, "MegaETH Mainnet", true],
  [6343, "MegaETH Testnet", true]
]

/**
 * Every chain the explorer API serves today.
 *
 * @since 0.1.0
 * @category constants
 */
export const chains: ReadonlyArray<ChainInfo> = table.map(([id, name, freeTier]) => ({
  id: ChainId.make(id),
  name,
  freeTier
}))

const byIdMap = new Map<number, ChainInfo>(chains.map((c) => [c.id, c]))

/**
 * The chain table row of a chain id, or `undefined` for a chain the API does not serve.
 *
 * @since 0.1.0
 * @category utils
 */
export const byId = (id: number): ChainInfo | undefined => byIdMap.get(id)

/**
 * Whether the API serves this chain id at all (deprecated ids such as Holesky 17000 are not).
 *
 * @since 0.1.0
 * @category guards
 */
export const isSupported = (id: number): boolean => byIdMap.has(id)

/**
 * Whether a free-plan key may use this chain for operations other than getsourcecode/getabi.
 *
 * @since 0.1.0
 * @category guards
 */
export const isFreeTier = (id: number): boolean => byIdMap.get(id)?.freeTier ?? false

/**
 * HyperEVM: served by the API, but `token/topholders` does not support it.
 *
 * @since 0.1.0
 * @category constants
 */
export const HYPEREVM: ChainId = ChainId.make(999)

/**
 * Human name of a chain for messages: "Polygon Mainnet (137)".
 *
 * @since 0.1.0
 * @category utils
 */
export const label = (id: number): string => {
  const info = byIdMap.get(id)
  return info ? `${info.name} (${id})` : `chain ${id}`
}
