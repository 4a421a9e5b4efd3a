/**
 * The naive peer: the way most clients page an explorer list — `page = 1, 2, 3, …` with a fixed offset
 * and plain `fetch`, a polite pause between calls, stopping at an empty or short page or at the first
 * error — on the same query explorer-etl exports. Its rows are compared with the oracle's (one wire
 * record per line of `--oracle`, as `JSON.stringify` wrote it): rows exported, missing, duplicated,
 * unexpected, calls made, errors hit.
 *
 * Args: --base-url URL --key KEY --module M --action A --params JSON --oracle FILE [--offset 1000] [--pause-ms 350]
 */
import { readFileSync } from "node:fs"
import { arg, args, canonical, compare, emit, round } from "./lib.js"

const a = args()
const offset = Number(a.offset ?? "1000")
const pauseMs = Number(a["pause-ms"] ?? "350")
const params = JSON.parse(arg(a, "params")) as Record<string, string | number>

const main = async () => {
  const oracle = readFileSync(arg(a, "oracle"), "utf8").split("\n").filter((l) => l !== "").map((l) => canonical(JSON.parse(l)))
  const rows: Array<string> = []
  const errors: Array<string> = []
  let calls = 0
  const t0 = performance.now()
  for (let page = 1; ; page++) {
    const url = new URL(`${arg(a, "base-url")}/v2/api`)
    url.searchParams.set("chainid", "1")
    url.searchParams.set("module", arg(a, "module"))
    url.searchParams.set("action", arg(a, "action"))
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, String(v))
    url.searchParams.set("page", String(page))
    url.searchParams.set("offset", String(offset))
    url.searchParams.set("sort", "asc")
    url.searchParams.set("apikey", arg(a, "key"))
    calls++
    let body: { status?: string; message?: string; result?: unknown }
    try {
      body = (await (await fetch(url)).json()) as typeof body
    } catch (error) {
      errors.push(`page ${page}: ${String(error)}`)
      break
    }
    if (body.status === "1" && Array.isArray(body.result)) {
      for (const r of body.result) rows.push(canonical(r))
      if (body.result.length < offset) break
    } else if (Array.isArray(body.result) && body.result.length === 0) {
      break // "No transactions found": the end
    } else {
      errors.push(`page ${page}: ${typeof body.result === "string" ? body.result : body.message ?? "?"}`)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs))
  }
  return {
    query: { module: arg(a, "module"), action: arg(a, "action"), params, offset },
    calls,
    rowsExported: rows.length,
    ...compare(oracle, rows),
    errors,
    seconds: round((performance.now() - t0) / 1000, 2)
  }
}

main().then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
