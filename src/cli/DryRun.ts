/**
 * `--dry-run` of `export` and `run`: the one line each export's estimate is printed as (stdout), and the
 * flag itself.
 *
 *     out/logs.csv: logs chain 1, blocks 23,300,000..23,500,000: ~20,100 rows, ~22 calls (head included),
 *     ~2.2 s at 10 calls/s (latency 4 ms), 0.011% of the key's 200,000 calls a day; new file
 */
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ExportEstimate } from "../Exports.js"
import * as Plan from "../Plan.js"
import * as Reporter from "../sinks/Reporter.js"
import { type ApiOptions, planOf } from "./Environment.js"

/** `--dry-run`: plan the export(s), print what they would cost, write nothing. */
export const flag = Options.boolean("dry-run").pipe(
  Options.withDescription(
    "print what each export would read and cost (rows, calls, time, share of the daily cap, what would be " +
      "resumed) from the chain's head and one first page, then stop: nothing is written"
  )
)

/** The key's calls a day: `--calls-per-day` (or EXPLORER_CALLS_PER_DAY), else the plan's cap. */
export const callsPerDayOf = (api: Pick<ApiOptions, "callsPerDay" | "plan" | "simulator">): number =>
  Option.getOrElse(api.callsPerDay, () => Plan.limits[planOf(api)].callsPerDay)

/** A share in percent for people: `0.011%`, `4.2%`, `130%`; below 0.001%, `<0.001%`. */
const percent = (share: number): string => {
  const p = share * 100
  if (p > 0 && p < 0.001) return "<0.001%"
  return `${p >= 10 ? Math.round(p) : Number(p.toPrecision(2))}%`
}

/** Where the export would start, in words. */
const startOf = (e: ExportEstimate): string => {
  switch (e.start) {
    case "fresh":
      return "new file"
    case "resume":
      return `resumes the interrupted export of this query (${Reporter.plural(e.keptRows, "row")} kept): only the blocks left are counted`
    case "extend":
      return `appends the blocks final since to the ${Reporter.plural(e.keptRows, "row")} there`
    case "unchanged":
      return `no new final block: the ${Reporter.plural(e.keptRows, "row")} there stay as they are`
    case "rewrite":
      return `a finished export of this query is there (${Reporter.plural(e.keptRows, "row")}): written again whole (--resume appends only the new blocks)`
    case "whole":
      return "a list read whole at every run (its rows are not estimated)"
  }
}

/** The line of one export's estimate. */
export const lineOf = (e: ExportEstimate, callsPerDay: number): string => {
  const what = `${e.dataset} chain ${e.chainIds.join(",")}`
  const blocks = e.blocks === undefined
    ? ""
    : e.blocksLeft === e.blocks.toBlock - e.blocks.fromBlock + 1
    ? `, blocks ${Reporter.count(e.blocks.fromBlock)}..${Reporter.count(e.blocks.toBlock)}`
    : `, ${Reporter.plural(e.blocksLeft, "block")} left in ${Reporter.count(e.blocks.fromBlock)}..${Reporter.count(e.blocks.toBlock)}`
  const rows = e.rows === undefined ? "rows unknown" : e.exact ? Reporter.plural(e.rows, "row") : `~${Reporter.plural(e.rows, "row")}`
  const calls = e.start === "whole"
    ? `~${Reporter.plural(e.calls, "call")} (more for a list longer than a page)`
    : `${e.exact ? "" : "~"}${Reporter.plural(e.calls, "call")} (head included)`
  const time = e.seconds === undefined
    ? ""
    : `, ~${Reporter.duration(e.seconds * 1000)}` +
      (e.callsPerSecond === undefined ? "" : ` at ${e.callsPerSecond} calls/s`) +
      (e.latencyMs === undefined ? "" : ` (latency ${Reporter.duration(e.latencyMs)})`)
  return `${e.out}: ${what}${blocks}: ${rows}, ${calls}${time}, ${percent(e.calls / callsPerDay)} of the key's ` +
    `${Reporter.count(callsPerDay)} calls a day; ${startOf(e)}`
}

/**
 * Prints the estimates (stdout, one line each) and, unless `quiet`, what the dry run itself sent
 * (stderr).
 */
export const print = (estimates: ReadonlyArray<ExportEstimate>, api: ApiOptions) =>
  Effect.gen(function*() {
    const callsPerDay = callsPerDayOf(api)
    yield* Effect.forEach(estimates, (e) => Console.log(lineOf(e, callsPerDay)), { discard: true })
    if (!api.quiet) {
      const sent = estimates.reduce((n, e) => n + e.callsMade, 0)
      yield* Effect.sync(() => void process.stderr.write(`dry run: ${Reporter.plural(sent, "request")} sent, nothing written\n`))
    }
  })
