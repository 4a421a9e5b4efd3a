/**
 * The journal of durable runs does not grow without end (issue 18): when a run ends, the runs of its
 * pipeline before the last `keepRuns` (default `Status.keptRuns`) are removed from it, all their
 * messages and replies with them (`Status.prune`), while a run that has not ended is never removed.
 * In this process: `PipelineRun.run` (the embedded engine on SQLite, as `run` runs it) against the
 * simulator, the journal read back as `status` reads it and row by row.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import tokenActivity from "../../pipelines/token-activity.js"
import * as Journal from "../../src/durable/internal/journal.js"
import * as PipelineRun from "../../src/durable/PipelineRun.js"
import * as Status from "../../src/durable/Status.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as Simulator from "../../src/simulator/index.js"
import { madeUpKey, makeTempDir, removeDir } from "../cli/helpers.js"
import { dataFiles } from "./helpers.js"

/** The journal's rows: messages by entity, and replies (each to a message's request). */
const rowsOf = (journal: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const messages = yield* sql<{ entity_id: string; request_id: bigint }>`SELECT entity_id, request_id FROM cluster_messages`
    const replies = yield* sql<{ request_id: bigint }>`SELECT request_id FROM cluster_replies`
    return { entities: new Set(messages.map((m) => m.entity_id)), messages, replies }
  }).pipe(Effect.provide(Journal.layer(journal)), Effect.orDie)

/** A temporary folder, a simulator with a key of its own, and `run`: a durable run of token-activity there. */
const setUp = (name: string) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(Effect.promise(() => makeTempDir(`prune-${name}-`)), (d) => Effect.promise(() => removeDir(d)))
    const key = madeUpKey(`prune${name}`)
    const sim = yield* Simulator.make({ keys: { [key]: "proplus" } })
    const client = Layer.merge(Pipeline.explorerLayer({ apiKey: Redacted.make(key), baseUrl: sim.baseUrl, plan: "proplus" }), NodeContext.layer)
    const config = tokenActivity.demoConfig(sim.dataset)
    const out = path.join(dir, "out")
    const journal = path.join(out, "token-activity", ".durable", "journal.sqlite")
    const run = (keepRuns?: number) =>
      PipelineRun.run(tokenActivity, config, { outDir: out, quiet: true, keepRuns }).pipe(Effect.provide(client))
    return { client, config, dir, journal, out, run, sim }
  })

describe("PipelineRun: the journal keeps the last runs", () => {
  it.scopedLive("each run's end removes the runs before the last keepRuns, every row of theirs, and the next run still extends the files", () =>
    Effect.gen(function*() {
      const { client, config, dir, journal, out, run } = yield* setUp("keep")

      const seen: Array<string> = []
      for (let i = 0; i < 5; i++) {
        yield* run(2)
        const runs = yield* Effect.orDie(Status.readJournal(journal))
        seen.push((runs.at(-1) as Status.RunStatus).executionId)
        // The last two runs (this one among them), every one done.
        expect(runs.map((r) => r.executionId)).toEqual(seen.slice(-2))
        expect(runs.every((r) => r.state === "done" && r.activities.length > 0)).toBe(true)
      }
      // Nothing of the removed runs is left: no message to their entities, no reply to their requests.
      const rows = yield* rowsOf(journal)
      expect([...rows.entities].sort()).toEqual(seen.slice(-2).sort())
      const requests = new Set(rows.messages.map((m) => String(m.request_id)))
      expect(rows.replies.length).toBeGreaterThan(0)
      expect(rows.replies.every((r) => requests.has(String(r.request_id)))).toBe(true)

      // The files are those of runs that were never pruned: one more run, then a fresh folder's.
      yield* run()
      expect((yield* Effect.orDie(Status.readJournal(journal))).length).toBe(3)
      const fresh = path.join(dir, "fresh")
      yield* PipelineRun.run(tokenActivity, config, { outDir: fresh, quiet: true }).pipe(Effect.provide(client))
      const files = dataFiles(path.join(out, "token-activity"))
      expect(files.length).toBeGreaterThan(0)
      expect(dataFiles(path.join(fresh, "token-activity"))).toEqual(files)
      for (const file of files) {
        expect(readFileSync(path.join(out, "token-activity", file), "utf8"), file)
          .toBe(readFileSync(path.join(fresh, "token-activity", file), "utf8"))
      }

      // By hand: keep 1.
      expect(yield* Status.prune(1).pipe(Effect.provide(Journal.layer(journal)), Effect.orDie)).toBe(2)
      expect((yield* Effect.orDie(Status.readJournal(journal))).length).toBe(1)
    }), 120_000)

  it.scopedLive("a run that has not ended is never removed, however old", () =>
    Effect.gen(function*() {
      const { journal, run, sim } = yield* setUp("open")
      yield* run()
      yield* run()

      // The third run, slowed down by a distant server, is pruned with nothing kept while it runs.
      yield* sim.setFaults({ latency: { fixedMs: 400 } })
      const third = yield* Effect.fork(run())
      let open: Status.RunStatus | undefined
      for (let i = 0; i < 200 && open === undefined; i++) {
        yield* Effect.sleep("50 millis")
        const runs = yield* Effect.catchAllCause(Status.readJournal(journal), () => Effect.succeed([]))
        const last = runs.at(-1)
        if (runs.length === 3 && last?.state === "running" && last.activities.length > 0) open = last
      }
      if (open === undefined) return yield* Effect.dieMessage("the third run was never seen running")
      expect(yield* Status.prune(0).pipe(Effect.provide(Journal.layer(journal)), Effect.orDie)).toBe(2)
      const left = yield* Effect.orDie(Status.readJournal(journal))
      expect(left.map((r) => r.executionId)).toEqual([open.executionId])

      // It goes on and ends as any run, its activities' results intact.
      yield* sim.setFaults({})
      const summaries = yield* Fiber.join(third)
      expect(summaries.length).toBeGreaterThan(0)
      const [ended] = yield* Effect.orDie(Status.readJournal(journal))
      expect(ended?.executionId).toBe(open.executionId)
      expect(ended?.state).toBe("done")
      expect(ended?.activities.filter((a) => a.name.startsWith("export ")).length).toBe(summaries.length)
    }), 120_000)
})
