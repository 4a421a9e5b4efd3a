/**
 * `explorer-etl runner … --every "<cron>"` on real processes (issue 18, "schedules that survive
 * restarts"): a real PostgreSQL (test/durable/postgres.ts, one for the file), the simulator in this
 * process, runner processes given the same schedule — a cron with seconds, every 15 s, so ticks come
 * fast. Each tick fires once across the runners: one `run … done` line among all runners' output, one
 * `Run` workflow in the cluster's storage. Every runner stopped while a tick passes, one started
 * again: that tick fires once (not zero, not twice) and the files are those of a one-process run.
 * A tick due while another tick's run holds the schedule (its row written by the test: `ClusterCron`
 * never overlaps runs by itself) is skipped with a line, and the next one runs. Ticks that fired over
 * a day before the latest are removed from the storage (one planted by the test).
 * `run --cluster --every` is refused before any request, pointing at the runner's flag.
 */
import type * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, it } from "@effect/vitest"
import { Cron, Effect, Fiber, Schedule, Schema, type Scope } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import walletHistory from "../../pipelines/wallet-history.js"
import * as Cluster from "../../src/durable/Cluster.js"
import { configHashOf } from "../../src/durable/internal/staged.js"
import { cliSuite, exited, failureOf, requestsWith, spawnCli, until } from "../cli/helpers.js"
import { dataFiles, onDatabase, postgresForFile } from "./helpers.js"
import * as Postgres from "./postgres.js"

const suite = cliSuite("every")
const twoKey = suite.key("two", "proplus")
const downKey = suite.key("down", "proplus")
const plainKey = suite.key("plain", "proplus")
const refusedKey = suite.key("refused", "proplus")
const skipKey = suite.key("skip", "proplus")

const CRON = "*/15 * * * * *"
const cron = Cron.unsafeParse(CRON, "UTC")

const database = postgresForFile()

const api = (key: string) => ["--base-url", suite.sim.baseUrl, "--api-key", key, "--plan", "proplus"]

/** wallet-history's config over the simulator's first 2 wallets of chain 1 (14 exports). */
const twoWallets = (): string => {
  const config = path.join(suite.dir, "wallet-history.config.json")
  const wallets = suite.sim.dataset.chain(1).wallets.slice(0, 2).map((w) => ({ name: w.name, address: w.address }))
  writeFileSync(config, JSON.stringify({ chainId: 1, fromBlock: 0, wallets }))
  return config
}

type Runner = ReturnType<typeof spawnCli> & { readonly port: number }

/** A runner of wallet-history on the schedule, ready when this succeeds; SIGTERM at the end of the scope. */
const runner = (key: string, config: string, outDir: string): Effect.Effect<Runner, never, Scope.Scope> =>
  Effect.gen(function*() {
    const port = yield* Effect.orDie(Postgres.freePort)
    const process = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawnCli([
          "runner", "pipelines/wallet-history.ts", "--cluster", database(), "--port", String(port), ...api(key),
          "--every", CRON, "--config", config, "--out-dir", outDir, "--quiet"
        ])
      ),
      stop
    )
    yield* until(() => process.output.stdout.includes(`runner 127.0.0.1:${port} of wallet-history ready`), 60_000).pipe(
      Effect.catchAllDefect(() => Effect.dieMessage(`runner on ${port} did not start:\n${process.output.stderr}`))
    )
    return { ...process, port }
  })

/** SIGTERM, and the runner's output kept in the transcript (checked for keys). */
const stop = (r: ReturnType<typeof spawnCli>) =>
  Effect.gen(function*() {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGTERM")
    yield* exited(r.child)
    suite.transcript.record({ args: ["runner"], code: r.child.exitCode, signal: r.child.signalCode, ...r.output })
  })

/** The ticks a runner's output says it ran: `<runner> run wallet-history <tick> done: …`. */
const ticksRunBy = (r: Runner): ReadonlyArray<string> =>
  r.output.stdout.split("\n").flatMap((line) => {
    const match = new RegExp(`^127\\.0\\.0\\.1:${r.port} run wallet-history (\\S+) done: 14 files, [\\d,]+ rows written$`).exec(line)
    return match === null ? [] : [match[1] as string]
  })

/** A query of the cluster's database. */
const cluster = <A, E>(query: (sql: PgClient.PgClient) => Effect.Effect<A, E>) => onDatabase(database(), query)

/** The run times of the `Run` workflows of wallet-history in the cluster's storage, one per execution. */
const storedRuns = (outDir: string) =>
  cluster((sql) => Effect.gen(function*() {
    const rows = yield* sql<{ payload: string }>`
      SELECT payload FROM cluster_messages
      WHERE entity_type = 'Workflow/explorer-etl/run/wallet-history' AND tag = 'run'`
    return rows
      // The row holds the request's payload: the run's fields (at the top, or under `payload`).
      .map((row) => {
        const stored = JSON.parse(row.payload) as { readonly runTime?: string; readonly outDir?: string; readonly payload?: unknown }
        return (stored.runTime === undefined ? stored.payload : stored) as { readonly runTime: string; readonly outDir: string }
      })
      .filter((run) => run.outDir === path.resolve(outDir, "wallet-history"))
      .map((run) => run.runTime)
      .sort()
  }))

const countOf = (items: ReadonlyArray<string>, item: string) => items.filter((i) => i === item).length

describe("explorer-etl runner --every", () => {
  it.scopedLive("two runners on one schedule: each tick fires once across them", () =>
    Effect.gen(function*() {
      const config = twoWallets()
      const out = path.join(suite.dir, "two")
      const [a, b] = yield* Effect.all([runner(twoKey, config, out), runner(twoKey, config, out)], { concurrency: 2 })
      const ticks = () => [...ticksRunBy(a), ...ticksRunBy(b)].sort()
      yield* until(() => ticks().length >= 3, 150_000).pipe(
        Effect.catchAllDefect(() => Effect.dieMessage(`${ticks().join(" ")}\n${a.output.stdout}${a.output.stderr}\n${b.output.stdout}${b.output.stderr}`))
      )
      const seen = ticks()
      // Each a tick of the cron, each once, in either runner's output and in the storage.
      for (const tick of seen) {
        expect(Cron.match(cron, new Date(tick)), tick).toBe(true)
        expect(countOf(seen, tick), tick).toBe(1)
      }
      const stored = yield* storedRuns(out)
      for (const tick of seen) expect(countOf(stored, tick), tick).toBe(1)
      expect(new Set(stored).size).toBe(stored.length)

      // A third runner given another schedule is refused, before it listens (nothing on stdout): the
      // runners with schedules share their ticks.
      const port = yield* Effect.orDie(Postgres.freePort)
      const other = yield* suite.transcript.cli([
        "runner", "pipelines/wallet-history.ts", "--cluster", database(), "--port", String(port), ...api(twoKey),
        "--every", "*/20 * * * * *", "--config", config, "--out-dir", out, "--quiet"
      ])
      expect(failureOf(other, "InvalidInputError")).toMatch(
        new RegExp(`--every: runner 127\\.0\\.0\\.1:(${a.port}|${b.port}) of this cluster keeps another schedule \\(every "\\*/15 \\* \\* \\* \\* \\*"`)
      )
      // The cluster forgets ticks that fired over a day before the latest (never sent again): a tick of
      // two days ago, planted as a copy of a tick that fired, with its reply, goes at the next tick;
      // the recent ticks stay.
      const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString()
      const tickRows = cluster((sql) => sql<{ entity_id: string; replies: number }>`
        SELECT m.entity_id, (SELECT count(*)::int FROM cluster_replies r WHERE r.request_id = m.request_id) AS replies
        FROM cluster_messages m WHERE m.entity_type LIKE 'ClusterCron/%' ORDER BY m.entity_id`)
      const plantedId = yield* cluster((sql) =>
        sql.withTransaction(Effect.gen(function*() {
          const [fired] = yield* sql<{ id: string; request_id: string }>`SELECT id::text, request_id::text FROM cluster_messages
            WHERE entity_type LIKE 'ClusterCron/%' AND processed ORDER BY id LIMIT 1`
          const [next] = yield* sql<{ id: string }>`SELECT (max(id) + 1000)::text AS id FROM cluster_messages`
          const id = next?.id
          yield* sql`INSERT INTO cluster_messages (id, message_id, shard_id, entity_type, entity_id, kind, tag, payload, headers, processed, request_id)
            SELECT ${id}::bigint, message_id || '-planted', shard_id, entity_type, ${twoDaysAgo}, kind, tag, payload, headers, TRUE, ${id}::bigint
            FROM cluster_messages WHERE id = ${fired?.id}::bigint`
          yield* sql`INSERT INTO cluster_replies (id, kind, request_id, payload, sequence, acked)
            SELECT ${id}::bigint, kind, ${id}::bigint, payload, sequence, acked FROM cluster_replies WHERE request_id = ${fired?.request_id}::bigint`
          return id
        }))
      )
      const planted = yield* tickRows
      expect(planted.find((row) => row.entity_id === twoDaysAgo)?.replies).toBe(1)

      // And neither runner was affected: the next tick still fires once.
      const before = ticks().length
      yield* until(() => ticks().length > before, 60_000)
      expect(new Set(ticks()).size).toBe(ticks().length)
      // Removed once the tick's run has ended, a moment after its line.
      let left = yield* tickRows
      for (let i = 0; i < 100 && left.some((row) => row.entity_id === twoDaysAgo); i++) {
        yield* Effect.sleep("100 millis")
        left = yield* tickRows
      }
      expect(left.some((row) => row.entity_id === twoDaysAgo)).toBe(false)
      expect(left.map((row) => row.entity_id)).toEqual(expect.arrayContaining(ticks()))
      const replies = yield* cluster((sql) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM cluster_replies WHERE request_id = ${plantedId}::bigint`)
      expect(replies[0]?.n).toBe(0)
    }), 240_000)

  it.scopedLive("every runner down while a tick passes: one runner back fires it once, the files as a one-process run's", () =>
    Effect.gen(function*() {
      const config = twoWallets()
      const out = path.join(suite.dir, "down")
      const first = yield* runner(downKey, config, out)
      yield* until(() => ticksRunBy(first).length >= 1, 90_000).pipe(
        Effect.catchAllDefect(() => Effect.dieMessage(`no tick ran:\n${first.output.stdout}${first.output.stderr}`))
      )
      // Stopped once the cluster has the tick as fired (its message processed, the next one planned):
      // a stop in the instant between the tick's line and that makes the tick come again instead of
      // the missed one (README's rule), not what this test is about.
      const fired = ticksRunBy(first)[0]
      const processed = cluster((sql) => sql<{ processed: boolean }>`SELECT processed FROM cluster_messages
        WHERE entity_type LIKE 'ClusterCron/%' AND entity_id = ${fired ?? ""}`)
      for (let i = 0; i < 100 && !(yield* processed).some((row) => row.processed); i++) yield* Effect.sleep("100 millis")
      expect(yield* processed).toEqual([{ processed: true }])
      yield* stop(first)
      const stoppedAt = new Date().toISOString()
      // The next tick passes with no runner up.
      const missed = Cron.next(cron, new Date())
      yield* Effect.sleep(Math.max(0, missed.getTime() - Date.now()) + 2_000)
      const back = yield* runner(downKey, config, out)
      const tick = missed.toISOString()
      const outputs = () =>
        `missed ${tick}, stopped at ${stoppedAt}\nfirst:\n${first.output.stdout}${first.output.stderr}\nback:\n${back.output.stdout}${back.output.stderr}`
      yield* until(() => ticksRunBy(back).includes(tick), 90_000).pipe(Effect.catchAllDefect(() => Effect.dieMessage(outputs())))
      // And one tick after it, from the schedule going on: the missed tick did not fire again.
      yield* until(() => ticksRunBy(back).some((t) => t > tick), 90_000).pipe(Effect.catchAllDefect(() => Effect.dieMessage(outputs())))
      expect(countOf([...ticksRunBy(first), ...ticksRunBy(back)], tick)).toBe(1)
      expect(countOf(yield* storedRuns(out), tick)).toBe(1)

      const plainOut = path.join(suite.dir, "plain")
      const plain = spawnCli(["run", "pipelines/wallet-history.ts", ...api(plainKey), "--config", config, "--out-dir", plainOut, "--quiet"])
      expect((yield* exited(plain.child)).code, plain.output.stderr).toBe(0)
      const [plainDir, dir] = [path.join(plainOut, "wallet-history"), path.join(out, "wallet-history")]
      const published = dataFiles(plainDir)
      expect(published.length).toBe(14)
      // The runner goes on ticking every 15 s: a later tick's run may be under way in `dir`, its files being
      // written beside the published ones (`.<name>.partial` and its spools, `<name>.lock`).
      const underWay = (f: string) => path.basename(f).startsWith(".") || f.endsWith(".lock")
      expect(dataFiles(dir).filter((f) => !underWay(f))).toEqual(published)
      for (const f of published) {
        expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(plainDir, f))), f).toBe(true)
      }
    }), 300_000)

  it.scopedLive("a tick due while another tick's run still holds the schedule is skipped, with a line; the next tick runs", () =>
    Effect.gen(function*() {
      const config = twoWallets()
      const out = path.join(suite.dir, "skip")
      // Another tick's run holding the schedule's row before the runner starts (as a tick's run delivered
      // again after its runner stopped would, while the next tick's run is going): what `ClusterCron`,
      // which plans each tick from the end of the last run, never does by itself.
      const holder = "2000-01-01T00:00:00.000Z"
      const decoded = yield* Schema.decodeUnknown(walletHistory.config)(JSON.parse(readFileSync(config, "utf8")))
      const encoded = yield* Schema.encode(walletHistory.config)(decoded)
      const name = Cluster.scheduleName("wallet-history", cron, configHashOf(encoded, 0), path.resolve(out, "wallet-history"))
      yield* cluster((sql) =>
        Effect.gen(function*() {
          yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_schedule_runs (
            schedule text PRIMARY KEY, tick text NOT NULL, seen_at timestamptz NOT NULL DEFAULT now())`
          yield* sql`INSERT INTO explorer_etl_schedule_runs (schedule, tick) VALUES (${name}, ${holder})
            ON CONFLICT (schedule) DO UPDATE SET tick = excluded.tick, seen_at = now()`
        })
      )
      // Kept fresh as its run would keep it (a row unrefreshed for 15 s is stale and taken over).
      const heartbeat = yield* Effect.forkScoped(
        cluster((sql) => sql`UPDATE explorer_etl_schedule_runs SET seen_at = now() WHERE schedule = ${name} AND tick = ${holder}`).pipe(
          Effect.repeat(Schedule.spaced("5 seconds"))
        )
      )
      // A runner of another schedule that stopped refreshing its row 20 s ago (killed) is gone: it does
      // not keep this runner out.
      yield* cluster((sql) =>
        Effect.gen(function*() {
          yield* sql`CREATE TABLE IF NOT EXISTS explorer_etl_schedules (
            runner text PRIMARY KEY, schedule text NOT NULL, cron text NOT NULL, seen_at timestamptz NOT NULL DEFAULT now())`
          yield* sql`INSERT INTO explorer_etl_schedules (runner, schedule, cron, seen_at)
            VALUES ('10.0.0.7:34431', 'explorer-etl/every/another', '0 0 * * *', now() - interval '20 seconds')`
        })
      )
      const r = yield* runner(skipKey, config, out)
      // The runner's schedule is the one held.
      expect(yield* cluster((sql) => sql`SELECT schedule FROM explorer_etl_schedules WHERE runner = ${`127.0.0.1:${r.port}`}`))
        .toEqual([{ schedule: name }])
      const skipped = () =>
        r.output.stdout.split("\n").filter((line) =>
          new RegExp(`^127\\.0\\.0\\.1:${r.port} run wallet-history \\S+ skipped: the run of ${holder} is still running$`).test(line)
        )
      yield* until(() => skipped().length >= 1, 60_000).pipe(
        Effect.catchAllDefect(() => Effect.dieMessage(`no tick skipped:\n${r.output.stdout}${r.output.stderr}`))
      )
      // Skipped: no run of it in the cluster, no call.
      expect(ticksRunBy(r)).toEqual([])
      expect(yield* storedRuns(out)).toEqual([])
      expect(yield* requestsWith(suite.sim, skipKey)).toBe(0)
      expect(yield* cluster((sql) => sql<{ tick: string }>`SELECT tick FROM explorer_etl_schedule_runs WHERE schedule = ${name}`))
        .toEqual([{ tick: holder }])

      // The holder gone (its run ended), the next tick runs, and its run's row goes with it.
      yield* Fiber.interrupt(heartbeat)
      yield* cluster((sql) => sql`DELETE FROM explorer_etl_schedule_runs WHERE schedule = ${name}`)
      yield* until(() => ticksRunBy(r).length >= 1, 60_000).pipe(
        Effect.catchAllDefect(() => Effect.dieMessage(`no tick ran after the skip:\n${r.output.stdout}${r.output.stderr}`))
      )
      const skippedTick = / (\S+) skipped:/.exec(skipped()[0] ?? "")?.[1] ?? ""
      expect(ticksRunBy(r).every((tick) => tick > skippedTick)).toBe(true)
      const held = cluster((sql) => sql`SELECT tick FROM explorer_etl_schedule_runs WHERE schedule = ${name}`)
      for (let i = 0; i < 50 && (yield* held).length > 0; i++) yield* Effect.sleep("100 millis")
      expect(yield* held).toEqual([])
    }), 150_000)

  it.live("run --cluster --every is refused before any request, pointing at runner --every", () =>
    Effect.gen(function*() {
      const config = twoWallets()
      const args = [
        "run", "pipelines/wallet-history.ts", ...api(refusedKey), "--config", config, "--out-dir", path.join(suite.dir, "refused"),
        "--cluster", database(), "--every", CRON
      ]
      const message = failureOf(yield* suite.transcript.cli(args), "InvalidInputError")
      expect(message).toMatch(/--every: .*explorer-etl runner <pipeline file> --cluster postgres:\/\/… --every/)
      expect(yield* requestsWith(suite.sim, refusedKey)).toBe(0)
    }))

  it.live("runner --every refuses a text that is no cron, before it starts", () =>
    Effect.gen(function*() {
      const args = ["runner", "pipelines/wallet-history.ts", "--cluster", database(), ...api(refusedKey), "--every", "every hour"]
      const message = failureOf(yield* suite.transcript.cli(args), "InvalidInputError")
      expect(message).toMatch(/^--every: expected a cron expression \(UTC\) such as "0 \* \* \* \*", got "every hour"/)
    }))

  it.live("runner --config without --every is refused: runs submitted with run --cluster bring their own config", () =>
    Effect.gen(function*() {
      const args = ["runner", "pipelines/wallet-history.ts", "--cluster", database(), ...api(refusedKey), "--config", "wallets.json"]
      const message = failureOf(yield* suite.transcript.cli(args), "InvalidInputError")
      expect(message).toMatch(/--config: is the config of a schedule's runs: give it with --every/)
    }))

  it.scoped("a runner without --every reads no config: a pipeline with no config file beside it starts", () =>
    Effect.gen(function*() {
      // bench/pipelines/block-parts.ts has no block-parts.config.json: its runs always bring theirs.
      const port = yield* Effect.orDie(Postgres.freePort)
      const process = yield* Effect.acquireRelease(
        Effect.sync(() => spawnCli(["runner", "bench/pipelines/block-parts.ts", "--cluster", database(), "--port", String(port), ...api(refusedKey)])),
        stop
      )
      yield* until(() => process.output.stdout.includes(`runner 127.0.0.1:${port} of block-parts ready`), 60_000).pipe(
        Effect.catchAllDefect(() => Effect.dieMessage(`runner on ${port} did not start:\n${process.output.stderr}`))
      )
    }), 90_000)
})
