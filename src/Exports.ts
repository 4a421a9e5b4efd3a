/**
 * Exports a data set to a file: the bridge between the streams (what to read) and the sinks (how to
 * write it). Block-ordered data sets are resumable and incremental; the others are rewritten whole.
 *
 * @example
 * import { Exports, Sources } from "explorer-etl"
 * const source = yield* Sources.logs({ chainId: 137, address, fromBlock: 50_000_000 })
 * const summary = yield* Exports.toFile(source, { out: "out/logs.csv", resume: true, confirmations: 64 })
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import { ExplorerClient } from "./ExplorerClient.js"
import type { StreamError } from "./ExplorerError.js"
import * as Export from "./sinks/Export.js"
import type { SinkError } from "./sinks/SinkError.js"
import * as Progress from "./streams/Progress.js"
import type * as Sources from "./streams/Sources.js"

/** Export options: where and how to write, plus the streams' `allowPartial`. */
export interface ToFileOptions extends Export.ExportOptions {
  /** Page-numbered data sets: accept a list cut by the result window (the manifest says truncated). */
  readonly allowPartial?: boolean | undefined
}

/** Writes every row of a source to `options.out`, with a manifest (and a checkpoint for block-ordered data). */
export const toFile = <A, I>(
  source: Sources.Source<A, I>,
  options: ToFileOptions
): Effect.Effect<Export.ExportSummary, StreamError | SinkError, ExplorerClient | FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const client = yield* ExplorerClient
    const progress = yield* Progress.make(source.dataset, source.chainId)
    const common = {
      dataset: source.dataset,
      query: source.query,
      plan: client.plan,
      schema: source.schema,
      progress,
      chainId: source.chainId
    }
    if (source._tag === "Blocks") {
      const lineBatches = source.lineBatches
      return yield* Export.exportToFile({
        ...common,
        source: Export.blocks({
          fromBlock: source.fromBlock,
          toBlock: source.toBlock,
          latestBlock: Progress.update(progress, (p) => ({ ...p, calls: p.calls + 1 })).pipe(
            Effect.zipRight(source.latestBlock)
          ),
          // The export reads one page ahead: the next request is on the wire while this page is written.
          batches: (range) => source.batches(range, { progress })
        }),
        // The rows as the file's lines, when the source can give them so (the library's sources can):
        // checked like the decoded ones, without building the decoded values and encoding them back,
        // and a page held as its text.
        lineBatches: lineBatches === undefined ? undefined : (range, lines) => lineBatches(range, lines, { progress })
      }, options)
    }
    return yield* Export.exportToFile({
      ...common,
      source: Export.rows(source.rows({ progress, allowPartial: options.allowPartial }))
    }, options)
  })
