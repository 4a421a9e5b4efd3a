/**
 * The simulator's serving rate: a 100,000-row query read through as the block cursor reads it (txlist of
 * the busy wallet, 10,000 rows a request; getLogs of the heavy contract, 1,000 rows a request), one
 * request at a time, with plain `fetch`. The time counted is the request and the body only (finding the
 * next start block is not); every row served counts (the cursor re-reads a page's last block, so a few
 * rows are served twice). The orchestrator adds the server process's CPU time.
 *
 * Args: --base-url URL --key KEY --dataset txs|logs --address A --from-block N --to-block N [--rows 100000]
 */
import { arg, args, emit, nextCursorPage, round } from "./lib.js"

const a = args()
const dataset = arg(a, "dataset")
const target = Number(a.rows ?? "100000")
const cap = dataset === "txs" ? 10_000 : 1_000

const main = async () => {
  let start = Number(arg(a, "from-block"))
  let page = 1
  let rows = 0
  let bytes = 0
  let requests = 0
  let busyMs = 0
  while (rows < target) {
    const url = dataset === "txs"
      ? `${arg(a, "base-url")}/v2/api?chainid=1&module=account&action=txlist&address=${arg(a, "address")}&startblock=${start}&endblock=${arg(a, "to-block")}&page=${page}&offset=${cap}&sort=asc&apikey=${arg(a, "key")}`
      : `${arg(a, "base-url")}/v2/api?chainid=1&module=logs&action=getLogs&address=${arg(a, "address")}&fromBlock=${start}&toBlock=${arg(a, "to-block")}&page=${page}&offset=${cap}&apikey=${arg(a, "key")}`
    const t0 = performance.now()
    const body = await (await fetch(url)).text()
    busyMs += performance.now() - t0
    requests++
    bytes += body.length
    const result = (JSON.parse(body) as { result: ReadonlyArray<{ blockNumber: string }> }).result
    if (!Array.isArray(result) || result.length === 0) break
    rows += result.length
    if (result.length < cap) break
    // The next request as the block cursor makes it (a paid plan's window: 10,000 rows).
    ;({ page, start } = nextCursorPage(start, page, Number((result[result.length - 1] as { blockNumber: string }).blockNumber), cap, 10_000))
  }
  return {
    dataset,
    rows,
    requests,
    megabytes: round(bytes / 1e6, 1),
    seconds: round(busyMs / 1000, 3),
    rowsPerSecond: round(rows / (busyMs / 1000))
  }
}

main().then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
