/**
 * Progress of one stream: pages, calls, rows and the block position, published through a
 * `SubscriptionRef` so sinks and the CLI can watch it (`SubscriptionRef.changes`) or poll it.
 *
 * @example
 * const progress = yield* Progress.make("logs", 1)
 * const rows = Streams.logs({ address }, { progress })
 * yield* progress.changes.pipe(Stream.runForEach((p) => Console.log(p.rows)), Effect.fork)
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Effect from "effect/Effect"
import * as SubscriptionRef from "effect/SubscriptionRef"

/**
 * Whether a finished stream delivered every row, or stopped early because the caller allowed it.
 *
 * @since 0.1.0
 * @category models
 */
export type Completeness = "running" | "complete" | "truncated"

/**
 * A snapshot of a stream's progress.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  /** The data set, e.g. "logs", "transactions", "tokenHolders". */
  readonly dataset: string
  readonly chainId: number
  /** Requests the stream made (each page, the `latest` look-up, and every split after a query timeout). */
  readonly calls: number
  /** Answers that delivered a page (empty pages included). */
  readonly pages: number
  /** Rows emitted downstream so far. */
  readonly rows: number
  /** First block of the query (block-ordered data sets). */
  readonly fromBlock?: number
  /** Every row with a block ≤ this one has been emitted. */
  readonly completeThrough?: number
  /** Last block of the query, `latest` resolved (block-ordered data sets). */
  readonly targetBlock?: number
  readonly completeness: Completeness
  /** Why a truncated stream stopped. */
  readonly truncatedReason?: string
  /** Decoded events (`Sources.events`): rows the ABI decoded. */
  readonly decodedRows?: number
  /** Decoded events (`Sources.events`): rows kept raw (an empty event name), as the ABI could not decode them. */
  readonly undecodedRows?: number
}

/**
 * A progress cell: a `SubscriptionRef` of `Progress`.
 *
 * @since 0.1.0
 * @category models
 */
export type ProgressRef = SubscriptionRef.SubscriptionRef<Progress>

/**
 * A fresh progress cell for a data set.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (dataset: string, chainId: number): Effect.Effect<ProgressRef> =>
  SubscriptionRef.make<Progress>({ dataset, chainId, calls: 0, pages: 0, rows: 0, completeness: "running" })

/**
 * Fraction of the block range done, 0..1, when the stream is block-ordered and its range is known.
 *
 * @since 0.1.0
 * @category utils
 */
export const fraction = (p: Progress): number | undefined => {
  if (p.completeness !== "running") return 1
  if (p.fromBlock === undefined || p.targetBlock === undefined) return undefined
  const span = p.targetBlock - p.fromBlock + 1
  if (span <= 0) return 1
  const done = p.completeThrough === undefined ? 0 : p.completeThrough - p.fromBlock + 1
  return Math.max(0, Math.min(1, done / span))
}

/**
 * @internal updates a progress cell if there is one.
 *
 * @since 0.1.0
 * @category utils
 */
export const update = (ref: ProgressRef | undefined, f: (p: Progress) => Progress): Effect.Effect<void> =>
  ref === undefined ? Effect.void : SubscriptionRef.update(ref, f)
