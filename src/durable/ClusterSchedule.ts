/**
 * A pipeline's runs on a cron, kept by the runners of a cluster (`ClusterCron`): the schedule, its name,
 * the tick being run, the check before a runner starts, and the layer that fires each tick once.
 */
import * as ClusterCron from "@effect/cluster/ClusterCron"
import * as Entity from "@effect/cluster/Entity"
import * as Path from "@effect/platform/Path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Console from "effect/Console"
import * as Cron from "effect/Cron"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Pipeline from "../Pipeline.js"
import { configHashOf, sha256 } from "./internal/staged.js"
import * as ClusterConfig from "./ClusterConfig.js"
import * as ClusterStorage from "./ClusterStorage.js"
import * as ClusterClient from "./ClusterClient.js"
import * as ScheduleRegistry from "./ScheduleRegistry.js"
import type * as ClusterRunner from "./ClusterRunner.js"

/**
 * How old a tick may be and still fire: a tick due while every runner was down fires when one comes
 * back within this time (`ClusterCron`'s `skipIfOlderThan`, its default kept).
 */
export const MISSED_TICK_WINDOW = Duration.days(1)

/**
 * A schedule of a pipeline's runs kept by the runners of a cluster ({@link scheduleLayer}): its cron
 * (text, UTC, 5 fields or 6 with seconds first) and what each run is given, as `run` takes it.
 */
export interface RunSchedule<C, E = never, R = never> {
  readonly cron: string
  /** The run's config, read when the runner starts (a config file, the simulator's demo targets …). */
  readonly config: Effect.Effect<C, E, R>
  /** The output folder of every run (default "out"); made absolute from this process's folder. */
  readonly outDir?: string | undefined
  readonly confirmations?: number | undefined
  readonly concurrency?: number | undefined
  readonly quiet?: boolean | undefined
}

/**
 * A schedule's name, the same in every runner given the same schedule: pipeline, cron (parsed: the
 * same times written otherwise are the same schedule), config hash and output folder.
 */
export const scheduleName = (pipelineName: string, cron: Cron.Cron, configHash: string, pipelineOutDir: string): string =>
  `explorer-etl/every/${pipelineName}/${
    sha256([pipelineName, JSON.stringify(cron.toJSON()), configHash, pipelineOutDir].join("\n")).slice(0, 16)
  }`

/**
 * The time of the tick being run: `ClusterCron` names the entity of a tick by its ISO time, so a tick
 * delivered again (its runner stopped mid-run) is the same tick. Else (never seen): the latest match.
 */
const tickTime = (cron: Cron.Cron) =>
  Effect.gen(function*() {
    const address = yield* Effect.serviceOption(Entity.CurrentAddress)
    const named = Option.map(address, (a) => new Date(a.entityId))
    if (Option.isSome(named) && !Number.isNaN(named.value.getTime()) && Cron.match(cron, named.value)) return named.value
    const now = new Date()
    now.setUTCMilliseconds(0)
    return Cron.match(cron, now) ? now : Cron.prev(cron, now)
  })

/** What a schedule is to the cluster: its cron, its runs' config and folder, and its name. */
const scheduleOf = <C, I, E, R>(pipeline: Pipeline.Pipeline<C, I>, schedule: RunSchedule<C, E, R>) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const cron = yield* Pipeline.parseCron(schedule.cron)
    const config = yield* schedule.config
    const encoded = yield* Schema.encode(pipeline.config)(config).pipe(Effect.orDie)
    const confirmations = schedule.confirmations ?? 0
    const configHash = configHashOf(encoded, confirmations)
    const outDir = path.resolve(path.join(schedule.outDir ?? "out", pipeline.name))
    return { cron, encoded, confirmations, configHash, outDir, name: scheduleName(pipeline.name, cron, configHash, outDir) }
  })

/**
 * Whether a runner given `schedule` may join the cluster at `options.url`, asked before it starts (its
 * socket, its shards): refused (`InvalidInputError` on `--every`) when a live runner keeps another
 * schedule. The runner's start asks again, and registers it, in one transaction ({@link scheduleLayer}):
 * this check only makes the usual refusal come before the runner listens.
 *
 * @example
 * yield* Cluster.checkSchedule(pipeline, { cron: "0 * * * *", config: Effect.succeed(config) }, options)
 */
export const checkSchedule = <C, I, E>(pipeline: Pipeline.Pipeline<C, I>, schedule: RunSchedule<C, E>, options: ClusterRunner.RunnerOptions) =>
  Effect.gen(function*() {
    const { name } = yield* scheduleOf(pipeline, schedule)
    const other = (yield* ScheduleRegistry.otherSchedules(`${options.host}:${options.port}`, name, schedule.cron, false))[0]
    if (other !== undefined) return yield* ScheduleRegistry.anotherSchedule(other)
  }).pipe(Effect.provide(ClusterStorage.storage(options.url)))

/**
 * Removes the schedule `name`'s ticks that fired more than {@link MISSED_TICK_WINDOW} before `tick`
 * (`ClusterCron` keeps a message and a reply per tick, a schedule's table would grow by one a tick):
 * such a tick is never sent again (a tick that old would be skipped, and the next tick is planned
 * from now), so its message, which only stopped it from firing twice, is no longer needed. Ticks not
 * processed yet (due, or running) are kept whatever their time.
 */
const forgetTicks = (sql: SqlClient.SqlClient, name: string, tick: Date) => {
  const before = new Date(tick.getTime() - Duration.toMillis(MISSED_TICK_WINDOW)).toISOString()
  const entityType = `ClusterCron/${name}`
  // The entity of a tick is named by its ISO time (`ClusterCron`), which sorts as the times do.
  return sql.withTransaction(Effect.gen(function*() {
    yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM cluster_messages
      WHERE entity_type = ${entityType} AND processed AND entity_id < ${before})`
    yield* sql`DELETE FROM cluster_messages WHERE entity_type = ${entityType} AND processed AND entity_id < ${before}`
  }))
}

/**
 * `pipeline`'s runs on `schedule`, kept by the cluster (`ClusterCron`): every runner given the same
 * schedule registers it, and each tick fires once across them — a `Run` workflow whose run time is
 * the tick's, so a tick delivered again is the same run, not a second one. The runner whose shard
 * holds the tick submits the run, waits for it (its exports spread over all runners as any run's)
 * and prints one line: `<runner> run <pipeline> <tick> done: N files, N rows written` (or `failed: …`,
 * or `skipped: …` when another tick's run still runs).
 *
 * Ticks follow `ClusterCron`'s rules: the next tick is planned from the end of a run (runs of one
 * schedule do not overlap; ticks passed during a long run are skipped), and a tick due while every
 * runner was down fires once when one comes back within {@link MISSED_TICK_WINDOW} — once, for all
 * the ticks missed meanwhile. The first tick is the cron's next match: no run at start.
 */
export const scheduleLayer = <C, I, E, R>(pipeline: Pipeline.Pipeline<C, I>, schedule: RunSchedule<C, E, R>, runner: string) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const { confirmations, configHash, cron, encoded, name, outDir } = yield* scheduleOf(pipeline, schedule)
    const line = (tick: Date, text: string) => Console.log(`${runner} run ${pipeline.name} ${tick.toISOString()} ${text}`)
    const sql = yield* SqlClient.SqlClient
    const execute = Effect.gen(function*() {
      const tick = yield* tickTime(cron)
      const runOfTick = ClusterClient.awaitRun(pipeline.name, {
        pipeline: pipeline.name,
        configHash,
        runTime: tick.toISOString(),
        outDir,
        config: JSON.stringify(encoded),
        confirmations,
        concurrency: Math.max(1, Math.floor(schedule.concurrency ?? 4)),
        quiet: schedule.quiet ?? false
      }).pipe(
        Effect.match({
          onSuccess: (summaries) =>
            `done: ${summaries.length} files, ${summaries.reduce((n, s) => n + s.rowsWritten, 0).toLocaleString("en-US")} rows written`,
          // A failed run is the run's: the schedule goes on to its next tick.
          onFailure: (error) => `failed: ${error.message}`
        })
      )
      const outcome = yield* ScheduleRegistry.exclusiveTick(sql, name, tick.toISOString(), runOfTick, (holder) =>
        Effect.succeed(`skipped: the run of ${holder} is still running`))
      yield* Effect.ignore(forgetTicks(sql, name, tick))
      // The line last, once the tick's own bookkeeping is done: what is left (`ClusterCron` planning the
      // next tick and marking this one fired) is two writes, the only moment a stop makes the tick come
      // again (docs/pipelines.md, "Ticks missed while every runner was down").
      yield* line(tick, outcome)
    })
    yield* ScheduleRegistry.registerSchedule(runner, name, schedule.cron)
    return ClusterCron.make({
      name,
      cron,
      execute,
      shardGroup: ClusterConfig.SCHEDULE_SHARD_GROUP,
      skipIfOlderThan: MISSED_TICK_WINDOW
    })
  }))
