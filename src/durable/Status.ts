/**
 * What the journal of durable runs says (`explorer-etl status`): every run of a pipeline folder with
 * its state, and every activity of it (`export <file>`, `commit`) with its state, rows and calls, the
 * typed error it failed with, or the time it waits for when it met the key's daily cap (`waiting for
 * the daily cap until <time> UTC`). Read from the SQLite journal `PipelineRun` writes, or the PostgreSQL
 * database of a cluster (`Cluster`: there each export is a child workflow whose activity writes the
 * file, linked to its run by the parent the engine stores in its payload), without starting the
 * engine (and so without resuming anything): the engine's message table holds one `run` request per
 * run and one `activity` request per attempt; the reply table, their results (the workflow's `Result`
 * in an `Exit`, encoded by the schemas of `PipelineRun`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Reporter from "../sinks/Reporter.js"
import * as Journal from "./internal/journal.js"
import { DailyCapWait, ExportFailure, ExportSummary, PartResult, RunKey, utcText } from "./internal/staged.js"

/**
 * Where a run or an activity stands. `waiting`: an export whose last attempt met the key's daily cap,
 * asleep until `until` (then its next attempt runs), or one suspended with its run (no `until`); a run
 * is waiting when its exports that have not ended all are, one of them for the daily cap.
 */
export type State = "running" | "waiting" | "done" | "failed"

/** One activity of a run. */
export interface ActivityStatus {
  /** `export <file>`, `commit`; on a cluster, `plan <file>` and `part <file> <from>..<to>` too. */
  readonly name: string
  readonly state: State
  /** Attempts started (more than one after a crash or an interruption while it ran, or a wait for the daily cap). */
  readonly attempts: number
  /**
   * An export that is done: rows in its file and the requests sent to write it (every attempt of the
   * export, retries included, up to each interrupted attempt's last checkpoint); a part: its rows and calls.
   */
  readonly rows?: number | undefined
  readonly calls?: number | undefined
  /** Of those calls, the retries after a transient failure (absent: not counted). */
  readonly retries?: number | undefined
  /** A failed one: `<ErrorTag>: <message>`; a waiting one: the error met (the daily cap). */
  readonly error?: string | undefined
  /** A waiting one: when its next attempt starts (epoch ms). */
  readonly until?: number | undefined
}

/** One run of a pipeline. */
export interface RunStatus {
  readonly executionId: string
  readonly key: RunKey
  readonly state: State
  readonly error?: string | undefined
  readonly activities: ReadonlyArray<ActivityStatus>
}

const Message = Schema.Struct({
  id: Schema.Union(Schema.Number, Schema.BigIntFromSelf, Schema.String),
  entity_id: Schema.String,
  tag: Schema.String,
  payload: Schema.String
})
const Reply = Schema.Struct({ request_id: Schema.Union(Schema.Number, Schema.BigIntFromSelf, Schema.String), payload: Schema.String })

/** The parts of an encoded reply that say how a request ended: `Exit<Result<Exit<A, E>>>`. */
const ReplyPayload = Schema.parseJson(Schema.Struct({
  _tag: Schema.String,
  value: Schema.optional(Schema.Struct({
    _tag: Schema.String,
    exit: Schema.optional(Schema.Struct({
      _tag: Schema.String,
      value: Schema.optional(Schema.Unknown),
      cause: Schema.optional(Schema.Unknown)
    }))
  }))
}))

/** Where the engine keeps a child workflow's parent in its payload (`ClusterWorkflowEngine`). */
const parentKey = "~@effect/workflow/parent"
const ChildPayload = Schema.parseJson(Schema.Struct({ [parentKey]: Schema.Struct({ executionId: Schema.String }) }))

const ActivityPayload = Schema.parseJson(Schema.Struct({ name: Schema.String, attempt: Schema.Number }))

/** `<ErrorTag>: <message>` of the first typed error in an encoded cause, else a generic text. */
const describeCause = (cause: unknown): string => {
  const seen: Array<unknown> = [cause]
  while (seen.length > 0) {
    const node = seen.shift()
    if (node === null || typeof node !== "object") continue
    const failure = Schema.decodeUnknownOption(ExportFailure)(node)
    if (Option.isSome(failure)) return `${failure.value._tag}: ${failure.value.message}`
    seen.push(...Object.values(node))
  }
  return "a defect (see the run's output)"
}

type Ended = { readonly state: State; readonly value?: unknown; readonly error?: string }

/** How a request ended, from its reply (none: still running, or suspended to be continued). */
const endedOf = (payload: string | undefined): Ended => {
  if (payload === undefined) return { state: "running" }
  const reply = Schema.decodeUnknownOption(ReplyPayload)(payload)
  if (Option.isNone(reply)) return { state: "running" }
  const { _tag, value } = reply.value
  if (_tag !== "Success" || value === undefined) return { state: "failed", error: "the engine failed the request" }
  // Suspended: an activity interrupted by its workflow's suspension (another export went to sleep),
  // run again when the workflow resumes.
  if (value._tag === "Suspended") return { state: "waiting" }
  if (value._tag !== "Complete" || value.exit === undefined) return { state: "running" }
  return value.exit._tag === "Success"
    ? { state: "done", value: value.exit.value }
    : { state: "failed", error: describeCause(value.exit.cause) }
}

const idText = (id: number | bigint | string): string => String(id)

const calls = (n: number): string => `${n} call${n === 1 ? "" : "s"}`

/**
 * A run as the journal holds it: its status, the entities whose messages are its own (itself, its
 * exports' child workflows), and whether every one of them ended.
 */
interface JournalRun {
  readonly status: RunStatus
  readonly entities: ReadonlyArray<string>
  readonly ended: boolean
}

const hasEnded = (ended: Ended): boolean => ended.state === "done" || ended.state === "failed"

const journalRuns = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyArray<JournalRun>, SqlError> => Effect.gen(function*() {
  const messages = (yield* sql`SELECT id, entity_id, tag, payload FROM cluster_messages
    WHERE entity_type LIKE 'Workflow/explorer-etl/run/%' AND tag IN ('run', 'activity') ORDER BY id`)
    .flatMap((row) => Option.toArray(Schema.decodeUnknownOption(Message)(row)))
  // On a cluster (`Cluster`), each export is a child workflow whose own activities write the file, and
  // each part of an export read apart is a child workflow of the export's.
  const children = (yield* sql`SELECT id, entity_id, tag, payload FROM cluster_messages
    WHERE (entity_type LIKE 'Workflow/explorer-etl/export/%' OR entity_type LIKE 'Workflow/explorer-etl/part/%')
    AND tag IN ('run', 'activity') ORDER BY id`)
    .flatMap((row) => Option.toArray(Schema.decodeUnknownOption(Message)(row)))
  const parentOf = new Map(children.filter((m) => m.tag === "run").flatMap((m) =>
    Option.toArray(Option.map(Schema.decodeUnknownOption(ChildPayload)(m.payload), (p) => [m.entity_id, p[parentKey].executionId] as const))
  ))
  /** The run an entity belongs to: itself, or its parent's run. */
  const runOf = (entity: string): string => {
    let at = entity
    for (let parent = parentOf.get(at); parent !== undefined && parent !== at; parent = parentOf.get(at)) at = parent
    return at
  }
  const replies = new Map(
    (yield* sql`SELECT request_id, payload FROM cluster_replies ORDER BY id`)
      .flatMap((row) => Option.toArray(Schema.decodeUnknownOption(Reply)(row)))
      .map((r) => [idText(r.request_id), r.payload] as const)
  )
  // Activities in the order they started, a run's own and its children's together (ids are snowflakes).
  const activityMessages = [...messages, ...children].filter((m) => m.tag === "activity")
    .sort((a, b) => (BigInt(idText(a.id)) < BigInt(idText(b.id)) ? -1 : 1))
  const childRuns = children.filter((m) => m.tag === "run")
  const runs: Array<JournalRun> = []
  for (const run of messages.filter((m) => m.tag === "run")) {
    const key = Schema.decodeUnknownOption(Schema.parseJson(RunKey))(run.payload)
    if (Option.isNone(key)) continue
    const ended = endedOf(replies.get(idText(run.id)))
    // Activities by name: the last attempt's reply says how it stands.
    const byName = new Map<string, { attempts: number; ended: Ended }>()
    for (const m of activityMessages) {
      if (m.tag !== "activity" || runOf(m.entity_id) !== run.entity_id) continue
      const payload = Schema.decodeUnknownOption(ActivityPayload)(m.payload)
      if (Option.isNone(payload)) continue
      const before = byName.get(payload.value.name)
      byName.set(payload.value.name, { attempts: (before?.attempts ?? 0) + 1, ended: endedOf(replies.get(idText(m.id))) })
    }
    const activities = [...byName].map(([name, { attempts, ended }]): ActivityStatus => {
      const wait = Schema.decodeUnknownOption(DailyCapWait)(ended.value)
      if (ended.state === "done" && Option.isSome(wait)) {
        return { name, state: "waiting", attempts, until: wait.value.until, error: wait.value.reason }
      }
      // An export: the rows in its file and the calls of the run that wrote it; a part: its own.
      const counts = Option.orElse(
        Option.map(Schema.decodeUnknownOption(ExportSummary)(ended.value), (s) => s.manifest),
        () => Schema.decodeUnknownOption(PartResult)(ended.value)
      )
      return {
        name,
        state: ended.state,
        attempts,
        rows: Option.getOrUndefined(Option.map(counts, (c) => c.rows)),
        calls: Option.getOrUndefined(Option.map(counts, (c) => c.calls)),
        retries: Option.getOrUndefined(Option.flatMap(counts, (c) => Option.fromNullable("retries" in c ? c.retries : undefined))),
        error: ended.error
      }
    })
    // The run's own reply is `Suspended` while it sleeps: it waits when its exports that have not
    // ended all wait, one of them for the daily cap.
    const open = activities.filter((a) => a.state === "running" || a.state === "waiting")
    const state = (ended.state === "running" || ended.state === "waiting") &&
        open.some((a) => a.until !== undefined) && open.every((a) => a.state === "waiting")
      ? "waiting"
      : ended.state === "waiting"
      ? "running"
      : ended.state
    const own = childRuns.filter((m) => m.entity_id !== run.entity_id && runOf(m.entity_id) === run.entity_id)
    runs.push({
      status: { executionId: run.entity_id, key: key.value, state, error: ended.error, activities },
      entities: [run.entity_id, ...own.map((m) => m.entity_id)],
      ended: hasEnded(ended) && own.every((m) => hasEnded(endedOf(replies.get(idText(m.id)))))
    })
  }
  return runs
})

/**
 * Every run in a journal, oldest first, with its activities in the order they started.
 *
 * @example
 * const runs = yield* Status.read.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(database) })))
 */
export const read: Effect.Effect<ReadonlyArray<RunStatus>, SqlError, SqlClient.SqlClient> = Effect.map(
  Effect.flatMap(SqlClient.SqlClient, journalRuns),
  (runs) => runs.map((run) => run.status)
)

/** Runs of each pipeline a journal keeps (`prune`): the last 100, and any that has not ended. */
export const keptRuns = 100

/**
 * Removes from the journal each pipeline's runs that ended before its last `keep` (default
 * {@link keptRuns}): their requests and replies, those of their exports' child workflows, their wake-ups.
 * A run that has not ended is never removed, whatever its age (it is continued). A run is also known
 * by its key (pipeline, config, run time): a removed run's key started again would be a new run,
 * which no command does (a run is continued only while it has not ended). Gives the number of runs
 * removed. Run after each run ends, so that a schedule's journal stays as small as its last `keep`
 * runs.
 *
 * @example
 * const removed = yield* Status.prune().pipe(Effect.provide(Journal.layer(file)))
 */
export const prune = (keep: number = keptRuns): Effect.Effect<number, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const kept = Number.isNaN(keep) ? keptRuns : Math.max(0, Math.floor(keep))
    const runs = yield* journalRuns(sql)
    // Newest first: how many runs of its pipeline came after each.
    const later = new Map<string, number>()
    const removed: Array<JournalRun> = []
    for (let i = runs.length - 1; i >= 0; i--) {
      const run = runs[i] as JournalRun
      const after = later.get(run.status.key.pipeline) ?? 0
      later.set(run.status.key.pipeline, after + 1)
      if (run.ended && after >= kept) removed.push(run)
    }
    const entities = removed.flatMap((run) => run.entities)
    // A few hundred at a time: a journal pruned for the first time may hold thousands of runs.
    for (let i = 0; i < entities.length; i += 200) {
      const some = entities.slice(i, i + 200)
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM cluster_messages WHERE entity_id IN ${sql.in(some)})`
        yield* sql`DELETE FROM cluster_messages WHERE entity_id IN ${sql.in(some)}`
      }))
    }
    return removed.length
  })

/**
 * Every run in the journal file of an embedded run (`<out-dir>/<pipeline>/.durable/journal.sqlite`),
 * as {@link read} gives them. The file is opened for writing although only read: a read-only connection
 * to a WAL journal leaves its -wal and -shm files behind, the last connection to close removes them.
 *
 * @example
 * const runs = yield* Status.readJournal("out/wallet-history/.durable/journal.sqlite")
 */
export const readJournal = (journal: string): Effect.Effect<ReadonlyArray<RunStatus>, SqlError> =>
  Effect.provide(read, Journal.layer(journal))

/** Runs of each pipeline `explorer-etl status` shows unless asked for all (`--all`). */
export const recentRuns = 10

/**
 * The runs to show, in their order (oldest first): every one, or each pipeline's last `last`, each
 * pipeline's shown runs preceded by a line counting those left out (a schedule's journal keeps every
 * run it made).
 *
 * @example
 * Status.recent(runs, 10).flatMap((item) => typeof item === "string" ? [item] : Status.describe(item))
 */
export const recent = (runs: ReadonlyArray<RunStatus>, last: number = recentRuns): ReadonlyArray<RunStatus | string> => {
  const counts = new Map<string, number>()
  for (const run of runs) counts.set(run.key.pipeline, (counts.get(run.key.pipeline) ?? 0) + 1)
  const seen = new Map<string, number>()
  const out: Array<RunStatus | string> = []
  for (const run of runs) {
    const pipeline = run.key.pipeline
    const index = seen.get(pipeline) ?? 0
    seen.set(pipeline, index + 1)
    const hidden = (counts.get(pipeline) ?? 0) - last
    if (index < hidden) continue
    if (index === hidden && hidden > 0) {
      out.push(`(${Reporter.plural(hidden, "earlier run")} of ${pipeline} not shown: --all shows every run)`)
    }
    out.push(run)
  }
  return out
}

/**
 * A run and its activities as lines of text, as `explorer-etl status` prints them. `stopped`: the
 * process that ran the journal's runs is gone (why, e.g. `pid 4242 gone`): a run the journal calls
 * running is stopped, and the same command continues it.
 */
export const describe = (run: RunStatus, stopped?: string): ReadonlyArray<string> => {
  const halted = stopped !== undefined && run.state === "running"
  const stateOf = (state: State): string => halted && state === "running" ? "stopped" : state
  // The commit steps (`commit`, `commit finished exports`) are activities too, not exports.
  const exported = run.activities.filter((a) => a.name.startsWith("export "))
  const done = exported.filter((a) => a.state === "done")
  const rows = done.reduce((n, a) => n + (a.rows ?? 0), 0)
  const callsMade = done.reduce((n, a) => n + (a.calls ?? 0), 0)
  const retriesMade = done.reduce((n, a) => n + (a.retries ?? 0), 0)
  const withRetries = (n: number) => n === 0 ? "" : ` (${Reporter.retries(n)})`
  return [
    `${run.key.pipeline}\trun ${run.key.runTime}\t${stateOf(run.state)}` +
    (halted ? ` (${stopped}; resumable: run the same command to continue it)` : "") +
    `${run.error === undefined ? "" : `: ${run.error}`}\t` +
    `${done.length}/${exported.length} exports done, ${Reporter.plural(rows, "row")}, ${calls(callsMade)}${withRetries(retriesMade)}`,
    ...run.activities.map((a) =>
      `  ${a.name}\t${stateOf(a.state)}` +
      (a.rows === undefined ? "" : `\t${Reporter.plural(a.rows, "row")}\t${calls(a.calls ?? 0)}${withRetries(a.retries ?? 0)}`) +
      (a.state !== "waiting" ? "" : a.until !== undefined
        ? ` for the daily cap until ${utcText(a.until)}`
        // Suspended with its run: it continues when the run does, unless the run has ended.
        : run.state === "failed"
        ? " (stopped: the run failed first; its next start is a new run)"
        : " (suspended: continues when the run does)") +
      (a.attempts > 1 ? `\t${a.attempts} attempts` : "") +
      (a.error === undefined ? "" : `\t${a.error}`)
    )
  ]
}
