/**
 * What the machine's shared key budget (`machineBudget`) costs and what it buys: `account/balance`
 * calls flat out (8 fibers per process) on the professional plan (30 calls/s) for a fixed time,
 * against the bench simulator enforcing its windows, from 1 process and from 2 processes on one key,
 * with the ledger off and on (each mode in a fresh state directory). Reports the calls/s the key
 * reached (all processes together), the most calls in any second, and the server's rate-limit answers;
 * first, what one reservation costs (2,000 in a row on a ledger that never makes them wait).
 *
 *     npx tsx bench/machineBudget.ts [--seconds 10]
 *
 * A child (`--child`) runs one process's calls and prints its send times and counters as JSON.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Client from "../src/ExplorerClient.js"
import * as MachineBudget from "../src/internal/machineBudget.js"
import { args, emit, repoRoot, round, startServer } from "./lib.js"
import { rateOf, recordingHttp } from "./timing.js"

const a = args()
const seconds = Number(a.seconds ?? "10")

interface ChildResult {
  readonly sent: ReadonlyArray<number>
  readonly client: { readonly requests: number; readonly retries: number; readonly rateLimited: number }
}

const child = (): Promise<ChildResult> => {
  const sent: Array<number> = []
  const ClientLive = Client.layer({
    apiKey: Redacted.make(a.key ?? ""),
    baseUrl: a["base-url"] ?? "",
    plan: "professional",
    machineBudget: a.budget === "on" ? { directory: a.dir } : false
  }).pipe(Layer.provide(recordingHttp(sent)))
  const program = Effect.gen(function*() {
    const client = yield* Client.ExplorerClient
    const worker = Effect.forever(Effect.ignore(client.balance({ chainId: 1, address: a.address ?? "" })))
    yield* Effect.all(Array.from({ length: 8 }, () => worker), { concurrency: "unbounded", discard: true }).pipe(
      Effect.timeout(Duration.seconds(seconds)),
      Effect.ignore
    )
    // Wall-clock send times: the processes' figures are put together.
    return { sent: sent.map((t) => performance.timeOrigin + t), client: yield* client.stats }
  })
  return Effect.runPromise(program.pipe(Effect.provide(ClientLive)))
}

const runChild = (childArgs: ReadonlyArray<string>): Promise<ChildResult> =>
  new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", "bench/machineBudget.ts", "--child", "1", ...childArgs], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    p.stdout.on("data", (d: Buffer) => void (out += d.toString()))
    p.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as ChildResult) : reject(new Error(`child exited ${code}`))))
  })

/** The time one reservation takes (ms): a ledger whose slots are 1 µs apart, so nothing waits. */
const reservationMillis = (): Promise<number> => {
  const dir = mkdtempSync(join(tmpdir(), "bench-machine-budget-cost-"))
  const program = Effect.gen(function*() {
    const budget = yield* MachineBudget.make({ directory: dir, keyFingerprint: "bench" })
    if (budget === undefined) return Number.NaN
    const lane = yield* budget.lane({ id: "http://bench/v2/api bench", intervalMillis: 0.001, throttledIntervalMillis: 0.001, callsPerDay: 1e9 })
    const n = 2_000
    const t0 = performance.now()
    for (let i = 0; i < n; i++) yield* Effect.orDie(lane.acquire(false))
    return (performance.now() - t0) / n
  })
  return Effect.runPromise(Effect.scoped(program)).finally(() => rmSync(dir, { recursive: true, force: true }))
}

const main = async () => {
  const perReservation = await reservationMillis()
  process.stderr.write(`one reservation: ${perReservation.toFixed(3)} ms\n`)
  const server = await startServer({ seed: 1, enforceRateLimits: true, dailyCaps: false })
  const key = server.demoKeys.professional ?? ""
  const address = "0x1111111111111111111111111111111111111111"
  const results = []
  try {
    for (const processes of [1, 2]) {
      for (const budget of ["off", "on"] as const) {
        const dir = mkdtempSync(join(tmpdir(), "bench-machine-budget-"))
        await server.command({ cmd: "resetStats" })
        const children = await Promise.all(
          Array.from({ length: processes }, () =>
            runChild(["--key", key, "--base-url", server.baseUrl, "--address", address, "--budget", budget, "--dir", dir]))
        )
        const stats = await server.command<{ readonly rateLimited: number }>({ cmd: "stats" })
        rmSync(dir, { recursive: true, force: true })
        const rate = rateOf(children.flatMap((c) => c.sent))
        results.push({
          processes,
          ledger: budget,
          callsPerSecond: round(rate.callsPerSecond, 2),
          maxInAnySecond: rate.maxInAnySecond,
          calls: rate.calls,
          rateLimitedByServer: stats.rateLimited
        })
        process.stderr.write(`${JSON.stringify(results[results.length - 1])}\n`)
      }
    }
  } finally {
    await server.stop()
  }
  emit({ plan: "professional", allowedPerSecond: 30, seconds, reservationMs: round(perReservation, 3), results })
}

if (a.child !== undefined) {
  child().then((r) => process.stdout.write(JSON.stringify(r)), (e: unknown) => {
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  })
} else {
  main().catch((e: unknown) => {
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  })
}
