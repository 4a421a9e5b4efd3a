/**
 * The registry: every data set of the library, listed once, in the order the command line lists them.
 * `Sources`, `Streams`, the CLI's `export` commands (and their help), the Parquet types the schemas
 * cannot tell, `Readable`'s amounts and the data-set table of docs/cli.md are derived from it. Adding a
 * data set is one file of this folder (a `Dataset.make`), its line here, and its test.
 */
import type * as Effect from "effect/Effect"
import type { ExplorerClient } from "../../ExplorerClient.js"
import type { StreamError } from "../../ExplorerError.js"
import type * as Dataset from "../Dataset.js"
import type { Source } from "../Sources.js"
import type { StreamFunction } from "../Streams.js"
import { addressTags } from "./addressTags.js"
import { beaconWithdrawals } from "./beaconWithdrawals.js"
import { dailyGasUsed } from "./dailyGasUsed.js"
import { dailyStatistic } from "./dailyStatistic.js"
import { dailyTxCount } from "./dailyTxCount.js"
import { erc1155Transfers } from "./erc1155Transfers.js"
import { erc20Transfers } from "./erc20Transfers.js"
import { erc721Transfers } from "./erc721Transfers.js"
import { events } from "./events.js"
import { internalTransactions } from "./internalTransactions.js"
import { logs } from "./logs.js"
import { minedBlocks } from "./minedBlocks.js"
import { nftHoldings } from "./nftHoldings.js"
import { tokenBalances } from "./tokenBalances.js"
import { tokenHolders } from "./tokenHolders.js"
import { topHolders } from "./topHolders.js"
import { transactions } from "./transactions.js"

/** The library's data sets, by name. */
export const library = {
  logs,
  events,
  transactions,
  internalTransactions,
  erc20Transfers,
  erc721Transfers,
  erc1155Transfers,
  tokenHolders,
  topHolders,
  nftHoldings,
  tokenBalances,
  dailyGasUsed,
  dailyTxCount,
  addressTags,
  minedBlocks,
  beaconWithdrawals,
  dailyStatistic
} as const

/** A registry: data sets by name (the library's, or the library's and your own). */
export type Registry = Readonly<Record<string, Dataset.Any>>

/** The data sets of a registry, in order. */
export const list = (registry: Registry): ReadonlyArray<Dataset.Any> => Object.values(registry)

/** Each data set's source, by name: what `Sources.<name>` is. */
export const sourcesOf = <R extends Registry>(registry: R): { readonly [K in keyof R]: R[K]["source"] } =>
  Object.fromEntries(Object.entries(registry).map(([name, dataset]) => [name, dataset.source])) as {
    readonly [K in keyof R]: R[K]["source"]
  }

/** A stream of a data set's rows from its source, as `Streams.<name>` reads it. */
export type StreamOf<F> = F extends (query: infer Q) => Effect.Effect<Source<infer A, infer _I>, StreamError, ExplorerClient>
  ? StreamFunction<Q, A>
  : never
