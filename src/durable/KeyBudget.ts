/**
 * One budget per API key across the runners of a cluster (issue 18): a `Throttle.SharedBudget` kept
 * in a PostgreSQL row per key. Each attempt of every runner's client reserves the key's next send
 * time in one call to a SQL function, which locks the key's row, reads the database's clock and plans
 * the next slot `interval` after the later of the previous plan and now (the same even spacing as a
 * process's own lane, `Throttle`); the caller waits what the function returns and sends. The
 * throttled operations (2/s) plan their own next slot from the moment they are sent, in the same
 * row, so one call takes both slots at once; a rate-limit answer pauses the key for every runner.
 * A slot its caller reaches over 20 ms late (its event loop busy when the timer was due) is left
 * unused and the call takes the next free one (counted once): the other runners send on their slots,
 * and a late call among them would reach the server closer than the spacing to the next.
 *
 * The row also counts the key's calls per UTC day — the day of each call's slot on the database's clock
 * (runners' clocks may differ) — against the caller's `callsPerDay` (`Config`'s `rate.callsPerDay`,
 * default the plan's cap, `Plan.limits`): a call that would pass it takes no slot and is refused before
 * it is sent; the client fails it with the `RateLimitError` of scope "day" the server answers ("Max
 * daily rate limit reached"), which a cluster's export waits out until 00:00 UTC (`Cluster`). Every
 * attempt counts, retries included, as the server counts them. The count resets with the slot's day:
 * the first call planned after 00:00 UTC starts the day's count at 1.
 *
 * Why a row and not an entity per key or `@effect/experimental`'s `RateLimiter`: the row needs no
 * owner (a runner killed mid-run leaves nothing to hand over: the next call of any runner locks the
 * row), waits are computed on one clock (the database's: runners' clocks may differ), and it costs
 * one round trip per call (~1 ms on loopback, against ≥ 33 ms between calls at 30/s). The
 * `RateLimiter` of 0.61 needs a Redis store for sharing; an entity would add the shard's owner to
 * every call's path, and a shard move would stall the key's calls.
 *
 * Tables: `explorer_etl_key_budget` (id = API URL and key fingerprint, never the key; the day's count in
 * `day`, days since 1970-01-01 UTC, and `day_calls`) and the function `explorer_etl_take_slot`, created
 * (or brought to this version) on first use: every runner of a cluster runs the same version.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Throttle from "../Throttle.js"

// Two runners starting together would both run `CREATE OR REPLACE FUNCTION` ("tuple concurrently
// updated"): the set-up runs under a transaction-wide advisory lock of its own.
const SETUP_LOCK = 0x6574_6c31

const DAY_MILLIS = 86_400_000

/**
 * A slot this process reaches this late (its event loop busy when the timer was due) is left unused and
 * the call takes another: sent now, it would reach the server among the next slots, which the other
 * runners send on time — calls bunched closer than the key's spacing, the server's window refusing one
 * (seen with two runners parsing pages on 2 cores). Half the lane's slack (`Throttle`: ~40 ms).
 */
const MISSED_SLOT_MILLIS = 20
/** Slots missed in a row before the call is sent anyway (a process that is always late still sends). */
const MISSED_SLOT_RETRIES = 3

const setup = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`
    yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_key_budget (
      id text PRIMARY KEY,
      key_next double precision NOT NULL DEFAULT 0,
      throttled_next double precision NOT NULL DEFAULT 0,
      paused_until double precision NOT NULL DEFAULT 0
    )`
    // The day's count (added after the first release: a table of an earlier version gains the columns).
    yield* sql`ALTER TABLE explorer_etl_key_budget
      ADD COLUMN IF NOT EXISTS day double precision NOT NULL DEFAULT 0,
      ADD COLUMN IF NOT EXISTS day_calls integer NOT NULL DEFAULT 0`
    yield* sql.unsafe(`DROP FUNCTION IF EXISTS explorer_etl_take_slot(text, boolean, double precision, double precision)`)
    yield* sql.unsafe(`DROP FUNCTION IF EXISTS explorer_etl_take_slot(text, boolean, double precision, double precision, integer)`)
    // The clock is read after the row's lock is taken: a call that waited for the lock plans from now.
    // A call is counted in the UTC day of its slot (when it is sent); NULL: that day's calls are spent,
    // and the call takes no slot. `p_counted`: the call was counted already (it missed its slot and takes
    // another).
    yield* sql.unsafe(`CREATE OR REPLACE FUNCTION explorer_etl_take_slot(
      p_id text, p_throttled boolean, p_interval double precision, p_throttled_interval double precision,
      p_calls_per_day integer, p_counted boolean
    ) RETURNS double precision AS $$
    DECLARE
      r explorer_etl_key_budget%ROWTYPE;
      now_ms double precision;
      slot double precision;
      slot_day double precision;
    BEGIN
      SELECT * INTO r FROM explorer_etl_key_budget WHERE id = p_id FOR UPDATE;
      now_ms := extract(epoch from clock_timestamp()) * 1000;
      slot := greatest(r.key_next, now_ms, r.paused_until);
      IF p_throttled THEN slot := greatest(slot, r.throttled_next); END IF;
      slot_day := floor(slot / ${DAY_MILLIS});
      IF NOT p_counted AND slot_day = r.day AND r.day_calls >= p_calls_per_day THEN RETURN NULL; END IF;
      UPDATE explorer_etl_key_budget SET
        key_next = slot + p_interval,
        throttled_next = CASE WHEN p_throttled THEN slot + p_throttled_interval ELSE throttled_next END,
        day = slot_day,
        day_calls = CASE WHEN p_counted AND r.day = slot_day THEN r.day_calls
          WHEN r.day = slot_day THEN r.day_calls + 1 ELSE 1 END
      WHERE id = p_id;
      RETURN slot - now_ms;
    END $$ LANGUAGE plpgsql`)
  }))

/** A slot of the cluster's ledger: it keeps no send (the database's clock is not the runner's). */
const unsentSlot: Throttle.SharedSlot = { sent: () => undefined }

/**
 * The shared budget on the cluster's database. A failing database is a defect of the call (the
 * runner cannot keep the key's budget without it).
 *
 * @example
 * Environment.clientLayer(options).pipe(Layer.provide(KeyBudget.layer), Layer.provide(PgClient.layer({ url })))
 */
export const layer: Layer.Layer<Throttle.SharedBudget, never, SqlClient.SqlClient> = Layer.effect(
  Throttle.SharedBudget,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* Effect.orDie(setup(sql))
    return {
      lane: (options) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO explorer_etl_key_budget (id) VALUES (${options.id}) ON CONFLICT DO NOTHING`
          const take = (throttled: boolean, counted: boolean) =>
            Effect.orDie(
              sql<{ readonly wait: number | null }>`SELECT explorer_etl_take_slot(${options.id}, ${throttled}, ${options.intervalMillis}, ${options.throttledIntervalMillis}, ${options.callsPerDay}, ${counted}) AS wait`
            )
          const lane: Throttle.SharedLane = {
            acquire: (throttled) =>
              Effect.gen(function*() {
                for (let attempt = 0;; attempt++) {
                  const asked = yield* Clock.currentTimeMillis
                  const [row] = yield* take(throttled, attempt > 0)
                  if (row !== undefined && row.wait === null) {
                    return yield* new Throttle.DailyCapReached({ callsPerDay: options.callsPerDay })
                  }
                  const answered = yield* Clock.currentTimeMillis
                  const wait = Number(row?.wait ?? 0)
                  if (wait > 0) yield* Effect.sleep(Duration.millis(Math.ceil(wait)))
                  // The slot, on this clock: `wait` after the database read its clock, about half the
                  // round trip after it was asked.
                  const late = (yield* Clock.currentTimeMillis) - (asked + (answered - asked) / 2 + wait)
                  // The database's clock is not this runner's: the slot keeps no send (spaced by slots).
                  if (late <= MISSED_SLOT_MILLIS || attempt >= MISSED_SLOT_RETRIES) return unsentSlot
                }
              }),
            pause: (duration) =>
              sql`UPDATE explorer_etl_key_budget SET paused_until = greatest(paused_until, extract(epoch from clock_timestamp()) * 1000 + ${Duration.toMillis(duration)}) WHERE id = ${options.id}`
                .pipe(Effect.asVoid, Effect.orDie)
          }
          return lane
        }).pipe(Effect.orDie)
    }
  })
)
