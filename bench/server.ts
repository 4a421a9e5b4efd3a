/**
 * The bench simulator: `Simulator.make` in a process of its own, so the exports measured in other
 * processes do not share its CPU or RSS. Argument: the simulator options as JSON. Prints
 * `READY <json>` (base URL, demo keys, the chain-1 entities the benchmarks query), then answers one
 * JSON command per stdin line with `REPLY <json>`:
 * `stats` (with the event loop's largest delay and the arrival times of the /v2/api calls since
 * `resetStats`), `resetStats`, `gc` (a full collection, so that the garbage of warming a data set is not
 * collected in a pause during a measurement), `setFaults { faults }`, `oracleCount { query }`,
 * `oracleToFile { query, path }` (one wire record per line, as `JSON.stringify` writes it), `warm { query }`
 * (builds a data set's rows), `oracleFingerprint { query }` (a getLogs query's rows and the sha256 of their
 * fingerprints, {@link logFingerprint}, read in slices of at most 100,000 rows: a 9,000,000-row set never
 * whole in memory).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import { createWriteStream } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { createInterface } from "node:readline"
import { Core } from "../src/simulator/core.js"
import * as Simulator from "../src/simulator/index.js"
import { type BenchDataset, logFingerprint, round, type ServerReady } from "./lib.js"

interface Command {
  readonly id: number
  readonly cmd: string
  readonly query?: Simulator.OracleQuery
  readonly path?: string
  readonly faults?: Simulator.FaultOptions
}

const options = JSON.parse(process.argv[2] ?? "{}") as Simulator.SimulatorOptions

// When each /v2/api call reached the handler (wall-clock ms), the moment its rate windows count it: the
// bench pairs them with the client's send times to show how far arrivals shift from sends.
let arrivals: Array<number> = []
const handle = Core.prototype.handle
Core.prototype.handle = function(this: Core, raw, ip, now) {
  arrivals.push(round(performance.timeOrigin + performance.now(), 2))
  return handle.call(this, raw, ip, now)
}

const writeLines = (path: string, rows: ReadonlyArray<unknown>): Promise<void> =>
  new Promise((resolve, reject) => {
    const out = createWriteStream(path)
    out.on("error", reject)
    let i = 0
    const pump = () => {
      while (i < rows.length) {
        const ok = out.write(`${JSON.stringify(rows[i++])}\n`)
        if (!ok) return void out.once("drain", pump)
      }
      out.end(resolve)
    }
    pump()
  })

const main = async () => {
  const started = performance.now()
  const scope = Effect.runSync(Scope.make())
  const sim = await Effect.runPromise(Simulator.make(options).pipe(Scope.extend(scope)))
  const chain = sim.dataset.chain(1)
  const token = chain.erc20[0]
  const holder = chain.wallets[0]
  if (token === undefined || holder === undefined) throw new Error("the data set has no token or wallet on chain 1")
  const dataset: BenchDataset = {
    chainId: 1,
    latestBlock: chain.latestBlock,
    activity: chain.activity,
    busyWallet: {
      address: chain.busyWallet.address,
      transactions: chain.busyWallet.transactions,
      denseBlock: chain.busyWallet.denseBlock?.block
    },
    heavyContract: {
      address: chain.heavyContract.address,
      logs: chain.heavyContract.logs,
      denseBlock: chain.heavyContract.denseBlock?.block
    },
    token: { address: token.address, holder: holder.address },
    shapes: chain.shapes.map((x) => ({
      name: x.name,
      shape: x.shape,
      plan: x.plan,
      size: x.size,
      address: x.address,
      rows: x.rows,
      fromBlock: x.fromBlock,
      toBlock: x.toBlock
    }))
  }
  // Each populated chain's world is built on its first request (40-65 ms a chain here, two or three times
  // that on a loaded machine). Built then, it holds the event loop while the calls behind it wait in the
  // socket, and they are stamped late and together: a client that sent them apart is refused. Build them
  // now, with one call each under a demo key, and start counting again.
  for (const chainId of sim.dataset.chainIds) {
    const query = new URLSearchParams({
      chainid: String(chainId),
      module: "account",
      action: "balance",
      address: `0x${"0".repeat(40)}`,
      apikey: sim.demoKeys.proplus
    })
    await (await fetch(`${sim.baseUrl}/v2/api?${query}`)).text()
  }
  await Effect.runPromise(sim.resetStats)
  arrivals = []
  const ready: ServerReady = { baseUrl: sim.baseUrl, demoKeys: sim.demoKeys, dataset, startMs: performance.now() - started }
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`)

  // How late the server's event loop ran (GC pauses, long requests): a request is timestamped when its
  // handler runs, so a pause shifts its arrival as the rate windows see it.
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  const run = async (c: Command): Promise<unknown> => {
    switch (c.cmd) {
      case "stats":
        return { ...(await Effect.runPromise(sim.stats)), loopDelayMaxMs: loop.max / 1e6, arrivalsMs: arrivals }
      case "gc": {
        // bench/lib.ts starts this process with --expose-gc.
        const gc = (globalThis as { gc?: () => void }).gc
        gc?.()
        return null
      }
      case "resetStats":
        loop.reset()
        arrivals = []
        return Effect.runPromise(sim.resetStats)
      case "setFaults":
        return Effect.runPromise(sim.setFaults(c.faults ?? {}))
      case "oracleCount":
        if (c.query === undefined) throw new Error("oracleCount needs a query")
        return Effect.runPromise(sim.oracleCount(c.query))
      case "warm": {
        if (c.query === undefined) throw new Error("warm needs a query")
        const t = performance.now()
        const n = await Effect.runPromise(sim.oracleCount(c.query))
        return { count: n, ms: performance.now() - t }
      }
      case "oracleFingerprint": {
        const q = c.query
        if (q === undefined || q.params === undefined) throw new Error("oracleFingerprint needs a query")
        const at = (from: number, to: number): Simulator.OracleQuery => ({ ...q, params: { ...q.params, fromblock: from, toblock: to } })
        const count = (from: number, to: number) => Effect.runPromise(sim.oracleCount(at(from, to)))
        const hash = createHash("sha256")
        let rows = 0
        let from = Number(q.params.fromblock)
        const last = Number(q.params.toblock)
        while (from <= last) {
          // The longest slice from `from` of at most 100,000 rows (one block, whatever it holds, at least).
          let end = last
          if ((await count(from, last)) > 100_000) {
            let lo = from
            let hi = last
            while (lo < hi) {
              const mid = Math.floor((lo + hi + 1) / 2)
              if ((await count(from, mid)) <= 100_000) lo = mid
              else hi = mid - 1
            }
            end = lo
          }
          for (const r of await Effect.runPromise(sim.oracle(at(from, end)))) {
            hash.update(`${logFingerprint(r as Readonly<Record<string, unknown>>)}\n`)
            rows++
          }
          from = end + 1
        }
        return { rows, sha256: hash.digest("hex") }
      }
      case "oracleToFile": {
        if (c.query === undefined || c.path === undefined) throw new Error("oracleToFile needs a query and a path")
        const rows = await Effect.runPromise(sim.oracle(c.query))
        await writeLines(c.path, rows)
        return rows.length
      }
      default:
        throw new Error(`unknown command ${c.cmd}`)
    }
  }

  const lines = createInterface({ input: process.stdin })
  lines.on("line", (line) => {
    if (line.trim() === "") return
    const c = JSON.parse(line) as Command
    run(c).then(
      (result) => process.stdout.write(`REPLY ${JSON.stringify({ id: c.id, result: result ?? null })}\n`),
      (error: unknown) => process.stdout.write(`REPLY ${JSON.stringify({ id: c.id, error: String(error) })}\n`)
    )
  })
  const stop = () => {
    void Effect.runPromise(Scope.close(scope, Exit.void)).finally(() => process.exit(0))
  }
  lines.on("close", stop)
  process.on("SIGTERM", stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
