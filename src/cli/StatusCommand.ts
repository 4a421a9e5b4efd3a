/**
 * `explorer-etl status [--out-dir DIR]`: the durable runs (`run --durable`) of every pipeline folder in
 * the output folder — each run's state, its exports (done with rows and calls, running, or failed with
 * the typed error) — read from their journals without continuing anything.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { loadWithSqlite } from "./Errors.js"

const outDir = Options.text("out-dir").pipe(Options.withDefault("out"), Options.withDescription("output folder (default ./out)"))

/** The journal reader and its SQLite driver (an optional peer), loaded on use. */
const loadStatus = loadWithSqlite(
  "status",
  "status",
  () => Promise.all([import("../durable/Status.js"), import("@effect/sql-sqlite-node/SqliteClient")])
)

/** `explorer-etl status …` */
export const statusCommand = Command.make("status", { outDir }, (a) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const [Status, SqliteClient] = yield* loadStatus
    const folders = yield* fs.readDirectory(a.outDir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
    const journals: Array<string> = []
    for (const folder of [...folders].sort()) {
      const journal = path.join(a.outDir, folder, ".durable", "journal.sqlite")
      if (yield* fs.exists(journal).pipe(Effect.orElseSucceed(() => false))) journals.push(journal)
    }
    if (journals.length === 0) return yield* Console.log(`no durable runs in ${a.outDir}`)
    for (const journal of journals) {
      const runs = yield* Status.read.pipe(
        // Opened for writing although only read: a read-only connection to a WAL journal leaves its
        // -wal and -shm files behind, the last connection to close removes them.
        Effect.provide(SqliteClient.layer({ filename: journal })),
        Effect.orDie
      )
      for (const run of runs) yield* Effect.forEach(Status.describe(run), (line) => Console.log(line), { discard: true })
    }
  }).pipe(Effect.provide(NodeContext.layer))
).pipe(Command.withDescription("the durable runs in an output folder: each run and its exports, from the journal"))
