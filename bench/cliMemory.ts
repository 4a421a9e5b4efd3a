/**
 * The command line's peak RSS (VmHWM) on its own, as a user runs it: `node bin/explorer-etl.js export …`
 * (dist/, its V8 settings) against the bench simulator in a process of its own (limits off, plan
 * proplus at its own 30 calls/s), for the busy wallet's transactions (10,000-row pages) and the heavy
 * contract's logs (1,000-row pages), with the engine's partitions as it decides them and with one cursor
 * (`--concurrency 1`), in alternating order. Section 3 of `npm run bench` measures the same CLI with more
 * around it; this one answers "what does the CLI peak at now, and what do the partitions add".
 *
 * Usage: npx tsx bench/cliMemory.ts [--datasets txs,logs] [--logs 1000000] [--runs 2] [--concurrency default,1]
 * (run `npm run build` first: the CLI runs dist/).
 */
import * as os from "node:os"
import * as path from "node:path"
import { args, removeExport, round, runCli, startServer } from "./lib.js"

const a = args()
const datasets = (a.datasets ?? "txs,logs").split(",")
const settings = (a.concurrency ?? "default,1").split(",")
const runs = Number(a.runs ?? "2")

const main = async () => {
  const server = await startServer({
    seed: 1,
    enforceRateLimits: false,
    dailyCaps: false,
    dataset: { busyWalletTransactions: 100_000, heavyContractLogs: Number(a.logs ?? "1000000") }
  })
  const d = server.dataset
  try {
    for (let i = 0; i < runs; i++) {
      for (const dataset of datasets) {
        for (const setting of settings) {
          const out = path.join(os.tmpdir(), `explorer-etl-cli-memory-${process.pid}.csv`)
          const what = dataset === "txs"
            ? ["export", "txs", "--address", d.busyWallet.address]
            : ["export", "logs", "--address", d.heavyContract.address]
          const r = await runCli([
            ...what, "--from-block", "0", "--to-block", String(d.latestBlock), "--base-url", server.baseUrl,
            "--plan", "proplus", "--quiet", "--out", out, ...(setting === "default" ? [] : ["--concurrency", setting])
          ], out, { EXPLORER_API_KEY: server.demoKeys.proplus ?? "" })
          removeExport(out)
          process.stdout.write(`${JSON.stringify({ dataset, concurrency: setting, rows: r.rows, peakRssMb: round(r.peakRssMb, 1), rowsPerSecond: round(r.rowsPerSecond) })}\n`)
        }
      }
    }
  } finally {
    await server.stop()
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`cli memory bench failed: ${String(error)}\n`)
  process.exit(1)
})
