/**
 * The cluster's registry of schedules, in two tables of its own beside `@effect/cluster`'s, read and
 * written under a PostgreSQL advisory lock: `explorer_etl_schedules` (a row per runner given a schedule,
 * refreshed while it runs: one schedule per cluster) and `explorer_etl_schedule_runs` (a row per
 * schedule while a tick's run runs: no overlapping runs).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { InvalidInputError } from "../ExplorerError.js"
import * as ClusterConfig from "./ClusterConfig.js"

// The registry's set-up and checks run one at a time across runners (two starting together with
// different schedules: the second sees the first).
const SCHEDULES_LOCK = 0x6574_6c32
/**
 * A runner's row in the registry is its while it refreshes it: every 5 s, stale after the shard locks'
 * expiry (15 s), when the cluster too takes the runner for gone.
 */
const SCHEDULE_HEARTBEAT = ClusterConfig.SHARD_LOCK_REFRESH
const SCHEDULE_STALE_SECONDS = ClusterConfig.RUNNER_EXPIRY_SECONDS

/**
 * The cluster's registry of schedules (`explorer_etl_schedules`, a row per runner given one, refreshed
 * while it runs, removed when it stops), read under its lock: the live runners of `runner`'s cluster
 * keeping a schedule other than `name` — or none, and then, with `register`, `runner`'s row written
 * in the same transaction.
 */
export const otherSchedules = (runner: string, name: string, cronText: string, register: boolean) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${SCHEDULES_LOCK})`
      yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_schedules (
        runner text PRIMARY KEY,
        schedule text NOT NULL,
        cron text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`
      yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_schedule_runs (
        schedule text PRIMARY KEY,
        tick text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      )`
      const others = yield* sql<{ runner: string; cron: string }>`
        SELECT runner, cron FROM explorer_etl_schedules
        WHERE runner <> ${runner} AND schedule <> ${name}
        AND seen_at > now() - make_interval(secs => ${SCHEDULE_STALE_SECONDS})`
      if (others.length === 0 && register) {
        yield* sql`INSERT INTO explorer_etl_schedules (runner, schedule, cron) VALUES (${runner}, ${name}, ${cronText})
          ON CONFLICT (runner) DO UPDATE SET schedule = excluded.schedule, cron = excluded.cron, seen_at = now()`
      }
      return others
    })))

/** A runner refused because `other` keeps another schedule. */
export const anotherSchedule = (other: { readonly runner: string; readonly cron: string }) =>
  new InvalidInputError({
    chainId: 0,
    module: "cli",
    action: "runner",
    parameter: "--every",
    detail: `runner ${other.runner} of this cluster keeps another schedule (every "${other.cron}", or another ` +
      `pipeline, config or output folder): every runner given --every must be given the same schedule ` +
      `(runners without --every are fine); another schedule needs its own database`
  })

/**
 * This runner's schedule in the cluster's registry ({@link otherSchedules}): a runner started with a
 * schedule other than a live runner's is refused (`InvalidInputError` on `--every`), as the runners
 * given schedules share the schedules' shards, and a tick landing on a runner without its schedule
 * would be lost.
 */
export const registerSchedule = (runner: string, name: string, cronText: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const other = (yield* otherSchedules(runner, name, cronText, true))[0]
    if (other !== undefined) return yield* anotherSchedule(other)
    yield* sql`UPDATE explorer_etl_schedules SET seen_at = now() WHERE runner = ${runner}`.pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(SCHEDULE_HEARTBEAT)),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() =>
      sql`DELETE FROM explorer_etl_schedules WHERE runner = ${runner} AND schedule = ${name}`.pipe(Effect.ignore)
    )
  })

/**
 * Runs `run` as the schedule `name`'s run of `tick` unless the run of another tick of it is running
 * (its row in `explorer_etl_schedule_runs`, refreshed while it runs): then the tick is skipped, its
 * result `skipped`'s, told which tick holds it. The same tick delivered again takes its own row over.
 */
export const exclusiveTick = <A, E, R>(
  sql: SqlClient.SqlClient,
  name: string,
  tick: string,
  run: Effect.Effect<A, E, R>,
  skipped: (holder: string) => Effect.Effect<A>
) =>
  Effect.gen(function*() {
    const taken = yield* sql<{ tick: string }>`
      INSERT INTO explorer_etl_schedule_runs AS r (schedule, tick) VALUES (${name}, ${tick})
      ON CONFLICT (schedule) DO UPDATE SET tick = excluded.tick, seen_at = now()
      WHERE r.tick = excluded.tick OR r.seen_at <= now() - make_interval(secs => ${SCHEDULE_STALE_SECONDS})
      RETURNING tick`
    if (taken.length === 0) {
      const holder = yield* sql<{ tick: string }>`SELECT tick FROM explorer_etl_schedule_runs WHERE schedule = ${name}`
      return yield* skipped(holder[0]?.tick ?? "another tick")
    }
    yield* sql`UPDATE explorer_etl_schedule_runs SET seen_at = now() WHERE schedule = ${name} AND tick = ${tick}`.pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced(SCHEDULE_HEARTBEAT)),
      Effect.delay(SCHEDULE_HEARTBEAT),
      Effect.forkScoped
    )
    const result = yield* run
    yield* sql`DELETE FROM explorer_etl_schedule_runs WHERE schedule = ${name} AND tick = ${tick}`
    return result
  }).pipe(Effect.scoped, Effect.orDie)
