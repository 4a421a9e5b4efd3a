/**
 * `explorer-etl status [--out-dir DIR] [--cluster postgres://…] [--all]`: the durable runs (`run`
 * without `--no-durable`) of every pipeline folder in the output folder — each run's state, its
 * exports (done with rows and calls, running, or failed with the typed error) — read from their
 * journals without continuing anything; with `--cluster`, the runs of that cluster (`run --cluster`),
 * from its database. Each pipeline's last 10 runs (`Status.recentRuns`), after a line counting the
 * earlier ones; `--all`: every run kept (a journal keeps each pipeline's last 100: `Status.prune`).
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Path from "@effect/platform/Path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as StatusModule from "../durable/Status.js"
import * as Lock from "../sinks/Lock.js"
import { badFlag, loadWithPostgres } from "./Errors.js"

const outDir = Options.text("out-dir").pipe(Options.withDefault("out"), Options.withDescription("output folder (default ./out)"))

const all = Options.boolean("all").pipe(
  Options.withDescription("every run kept, each pipeline's last 100 (default: its last 10, after a line counting the earlier ones)")
)

/** The journal reader, loaded on use (its SQLite driver is a native module). */
const loadStatus = Effect.promise(() => import("../durable/Status.js"))

const cluster = Options.text("cluster").pipe(
  Options.optional,
  Options.withDescription("postgres://…: the runs of that cluster (run --cluster), from its database, instead")
)

/** The reader and PostgreSQL's driver (an optional peer), loaded on use. */
const loadClusterStatus = loadWithPostgres(
  "status",
  "--cluster",
  () => Promise.all([import("../durable/Status.js"), import("@effect/sql-pg/PgClient")])
)

/** `explorer-etl status …` */
export const statusCommand = Command.make("status", { outDir, cluster, all }, (a) =>
  Effect.gen(function*() {
    const show = (Status: typeof StatusModule, runs: ReadonlyArray<StatusModule.RunStatus>, stopped?: string) =>
      Effect.forEach(
        (a.all ? runs : Status.recent(runs)).flatMap((item) => (typeof item === "string" ? [item] : Status.describe(item, stopped))),
        (line) => Console.log(line),
        { discard: true }
      )
    if (Option.isSome(a.cluster)) {
      const [Status, PgClient] = yield* loadClusterStatus
      const runs = yield* Status.read.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(a.cluster.value) })),
        Effect.catchTag("SqlError", (e) => Effect.fail(badFlag("status", "--cluster", `the cluster's database: ${e.message}`)))
      )
      if (runs.length === 0) return yield* Console.log("no durable runs in the cluster's database")
      return yield* show(Status, runs)
    }
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const Status = yield* loadStatus
    const folders = yield* fs.readDirectory(a.outDir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
    const journals: Array<string> = []
    for (const folder of [...folders].sort()) {
      const journal = path.join(a.outDir, folder, ".durable", "journal.sqlite")
      if (yield* fs.exists(journal).pipe(Effect.orElseSucceed(() => false))) journals.push(journal)
    }
    if (journals.length === 0) return yield* Console.log(`no durable runs in ${a.outDir}`)
    for (const journal of journals) {
      // A durable run holds its journal's lock while it runs: without a live holder, its runs are stopped.
      const holder = yield* Lock.inspect(journal)
      const stopped = Option.match(holder, {
        onNone: () => "no process runs it",
        onSome: (h) => h.alive ? undefined : `pid ${h.pid} gone`
      })
      yield* show(Status, yield* Effect.orDie(Status.readJournal(journal)), stopped)
    }
  }).pipe(Effect.provide(NodeContext.layer))
).pipe(
  Command.withDescription("the durable runs in an output folder (or of a cluster): each run and its exports, from the journal")
)
