/**
 * The page-number engine for data sets without a block order (token holders, token balances, NFT
 * holdings): page 1, 2, … until an empty or short page. The result window stops paging before the
 * end of a long list; the stream then fails with `ResultWindowError` — unless the caller asked for a
 * partial result (`allowPartial`), in which case it ends and its progress says "truncated at N rows".
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type ExplorerError, ResultWindowError } from "../../ExplorerError.js"
import * as Progress from "../Progress.js"

/**
 * What the engine needs to page one page-numbered query.
 *
 * @since 0.1.0
 * @category models
 */
export interface PageNumberOptions<A, E> {
  readonly chainId: number
  readonly module: string
  readonly action: string
  /** Rows asked for per page (the plan's per-request cap). */
  readonly offset: number
  /** The result window: the largest page × offset the plan allows. */
  readonly window: number
  readonly fetch: (page: number, offset: number) => Effect.Effect<ReadonlyArray<A>, E>
  /** End with a truncated result instead of failing when the window stops paging. */
  readonly allowPartial?: boolean | undefined
  readonly progress?: Progress.ProgressRef | undefined
}

/**
 * Every row of a page-numbered list, in the server's order, each exactly once.
 *
 * @since 0.1.0
 * @category streams
 */
export const rows = <A, E>(options: PageNumberOptions<A, E>): Stream.Stream<A, E | ExplorerError> => {
  const { offset, window } = options
  const tick = (f: (p: Progress.Progress) => Progress.Progress) => Progress.update(options.progress, f)
  const step = (
    state: { readonly page: number; readonly delivered: number }
  ): Effect.Effect<readonly [Chunk.Chunk<A>, Option.Option<{ page: number; delivered: number }>], E | ExplorerError> =>
    Effect.gen(function*() {
      yield* tick((p) => ({ ...p, calls: p.calls + 1 }))
      const page = yield* options.fetch(state.page, offset)
      const delivered = state.delivered + page.length
      const last = page.length < offset
      const windowReached = !last && (state.page + 1) * offset > window
      if (windowReached && options.allowPartial !== true) {
        return yield* new ResultWindowError({
          chainId: options.chainId,
          module: options.module,
          action: options.action,
          window,
          rowsDelivered: delivered,
          detail: `the list goes on past the result window of ${window} rows (page × offset); ` +
            `pass allowPartial to accept the first ${delivered} rows`
        })
      }
      yield* tick((p) => ({
        ...p,
        pages: p.pages + 1,
        rows: p.rows + page.length,
        ...(last ? { completeness: "complete" as const } : {}),
        ...(windowReached
          ? { completeness: "truncated" as const, truncatedReason: `result window of ${window} rows reached after ${delivered} rows` }
          : {})
      }))
      const next = last || windowReached ? Option.none() : Option.some({ page: state.page + 1, delivered })
      return [Chunk.fromIterable(page), next] as const
    })
  return Stream.paginateChunkEffect({ page: 1, delivered: 0 }, step)
}
