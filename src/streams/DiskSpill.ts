/**
 * A Stream's read-ahead on disk (`StreamOptions.spill`): the rows a partition reads ahead of its turn
 * wait in a file of their own, one JSON line per row in the record schema's encoded form (the wire's
 * strings, exactly as an export's JSONL holds them), read back and decoded with the same schema when
 * their turn comes, so the Stream's rows are the values the in-memory Stream holds. The files live in
 * a temporary folder made (in `directory`, or the system's) when the Stream starts — a folder that
 * cannot be written fails the Stream then, before its first request — and removed with everything in
 * it when the Stream ends, fails or is interrupted.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { fileSystemError, SinkError } from "../sinks/SinkError.js"
import type { RowSpill, RowSpills } from "./engine/Scheduler.js"

/** Rows decoded back at a time (a page of logs: the chunks the Stream hands over stay page-sized). */
const rowsPerRead = 1_000

const encoder = new TextEncoder()

/**
 * The spills of one Stream in a temporary folder of `directory` (default: the system's), its rows
 * written and read back with `schema`. The folder is removed when `Scope` closes.
 */
export const make = <A, I>(
  schema: Schema.Schema<A, I>,
  directory: string | undefined
): Effect.Effect<RowSpills<SinkError, never>, SinkError, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const folder = yield* fs.makeTempDirectoryScoped({ ...(directory === undefined ? {} : { directory }), prefix: "explorer-etl-spill-" })
      .pipe(Effect.mapError(fileSystemError(directory ?? "the system's temporary folder", "making the Stream's spill folder")))
    const encode = Schema.encodeUnknownEither(Schema.Array(schema as Schema.Schema<A, I>))
    const decode = Schema.decodeUnknownEither(Schema.Array(schema as Schema.Schema<A, I>))
    let made = 0
    const remove = (path: string) => Effect.ignore(fs.remove(path, { force: true }))

    const create = Effect.sync((): RowSpill<SinkError> => {
      const path = `${folder}/p${++made}.jsonl`
      let rows = 0
      let read = false
      const text = (batch: ReadonlyArray<unknown>): Either.Either<string, SinkError> =>
        Either.flatMap(
          Either.mapLeft(encode(batch), (e) =>
            new SinkError({ reason: "Encode", path, detail: `a row read ahead did not encode: ${ParseResult.TreeFormatter.formatErrorSync(e)}` })),
          (encoded) =>
            Either.try({
              try: () => encoded.map((row) => JSON.stringify(row)).join("\n") + "\n",
              catch: (e) => new SinkError({ reason: "Encode", path, detail: `a row read ahead has no JSON form: ${String(e)}` })
            })
        )
      const parse = (lines: ReadonlyArray<string>): Either.Either<ReadonlyArray<unknown>, SinkError> =>
        Either.flatMap(
          Either.try({
            try: () => lines.map((line) => JSON.parse(line) as unknown),
            catch: (e) => new SinkError({ reason: "FileSystem", path, detail: `the spill holds a line that is not JSON: ${String(e)}` })
          }),
          (encoded) =>
            Either.mapLeft(decode(encoded), (e) =>
              new SinkError({ reason: "Encode", path, detail: `a row read back did not decode: ${ParseResult.TreeFormatter.formatErrorSync(e)}` }))
        )
      return {
        name: path,
        write: (batch) =>
          batch.length === 0 ? Effect.void : Effect.gen(function*() {
            const lines = yield* text(batch)
            yield* fs.writeFile(path, encoder.encode(lines), { flag: "a" }).pipe(Effect.mapError(fileSystemError(path, "writing rows read ahead")))
            rows += batch.length
          }),
        length: () => rows,
        // On disk once written: the rows ahead never wait for memory.
        held: () => 0,
        flush: Effect.void,
        // A Stream resumes nothing: no checkpoint counts on its spills.
        sync: Effect.void,
        close: remove(path),
        rows: Stream.suspend(() => {
          if (read || rows === 0) return Stream.empty
          read = true
          return fs.stream(path).pipe(
            Stream.mapError(fileSystemError(path, "reading rows read ahead")),
            Stream.decodeText(),
            Stream.splitLines,
            Stream.grouped(rowsPerRead),
            Stream.mapEffect((lines) => parse(Chunk.toReadonlyArray(lines)))
          )
        })
      }
    })
    return { create, remove }
  })
