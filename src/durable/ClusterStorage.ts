/**
 * The cluster's storage, PostgreSQL (`@effect/sql-pg`), and the retry of a layer whose build lost the
 * race to create the cluster's tables on a fresh database (runners started together).
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"

/**
 * Whether a failure is PostgreSQL refusing a table, type or index that another process created at the
 * same moment: `CREATE TABLE IF NOT EXISTS` run at once by two processes on a fresh database fails in
 * one of them (unique violation 23505 on the catalog, or 42P07 / 42710 duplicate object).
 */
const isSchemaRace = (error: unknown): boolean => {
  let cause: unknown = error
  for (let depth = 0; depth < 8 && typeof cause === "object" && cause !== null; depth++) {
    const { code, message, _tag } = cause as { code?: unknown; message?: unknown; _tag?: unknown }
    if (code === "23505" || code === "42P07" || code === "42710") return true
    if (typeof message === "string" && /already exists|duplicate key/i.test(message)) return true
    // Seen with four runners started at once on a fresh database: the statement's own error is not
    // carried, only @effect/sql's text for a statement that failed (a connection that fails says so).
    if (_tag === "SqlError" && message === "Failed to execute statement") return true
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}

/**
 * Runners (and submitters) started together on a fresh database create the cluster's tables at once:
 * the one that loses the race builds its layer again, once the other's tables exist.
 */
const schemaRaceRetry = Schedule.exponential(Duration.millis(100)).pipe(
  Schedule.jittered,
  // Capped at 2 s between tries, for up to 30 s: on a loaded machine the runner that won the race
  // may take seconds to finish its tables (five tries over ~3 s were seen to end too soon in CI).
  Schedule.union(Schedule.spaced(Duration.seconds(2))),
  Schedule.upTo(Duration.seconds(30)),
  Schedule.whileInput(isSchemaRace)
)

/** A defect of a layer's build, carried as a failure while its build is retried. */
class BuildDefect {
  constructor(readonly cause: unknown) {}
}

/**
 * Builds `layer` again while it fails with a lost schema race ({@link schemaRaceRetry}). @effect/cluster's
 * storages run their migrations under `Effect.orDie`: a lost race (`relation "cluster_migrations"
 * already exists`, 42P07) is a defect, which `Layer.retry` alone never sees. Defects are carried as
 * failures through the retries and die again after them; the layer's own failures keep their type.
 */
export const retryingSchemaRace = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  layer.pipe(
    Layer.catchAllCause((cause): Layer.Layer<unknown, E | BuildDefect> => {
      if (Cause.isInterruptedOnly(cause)) return Layer.failCause(cause)
      const failure = Cause.failureOption(cause)
      return Option.isSome(failure) ? Layer.fail(failure.value) : Layer.fail(new BuildDefect(Cause.squash(cause)))
    }),
    Layer.retry(schemaRaceRetry),
    Layer.catchAll((error): Layer.Layer<unknown, E> => error instanceof BuildDefect ? Layer.die(error.cause) : Layer.fail(error))
  )

/** The cluster's storage: PostgreSQL at `url`. */
export const storage = (url: string) => PgClient.layer({ url: Redacted.make(url) })
