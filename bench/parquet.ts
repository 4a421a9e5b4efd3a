/**
 * Parquet beside CSV: the same 1,000,000 ERC-20-transfer-like rows (the encoded records the client hands
 * to a file) written in 1,000-row pages, each path in a process of its own so that its peak RSS is its own.
 * The rows are made before the clock starts: 20 distinct pages (random hashes and addresses, amounts up
 * to 2^96, 50 tokens), written again and again; each page is encoded on its own, so a repeated page costs
 * what a new one would.
 * - `csv`: the export's CSV path (`Format.encodedEncoder` + `Files.openData`);
 * - `parquet`, `parquet-snappy`, `parquet-uncompressed`: `Parquet.open` + one `writeRowGroup` per page,
 *   with the default GZIP (level 1), SNAPPY or no compression.
 * Every path fsyncs about once a second, as an export does at its checkpoints. The children run as the
 * CLI runs (compiled by `tsc -p bench` as the main bench does, plain node with bin/v8-settings.js), so
 * their peak RSS compares with bench/RESULTS.md's; modules are imported one by one, as src/ does.
 *
 *   npx tsx bench/parquet.ts [--rows 1000000] [--group 1000]
 *
 * Not part of `npm run bench`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Erc20Transfer } from "../src/schemas/account.js"
import * as Files from "../src/sinks/Files.js"
import * as Format from "../src/sinks/Format.js"
import * as Parquet from "../src/sinks/Parquet.js"
import { args, emit, peakRssMb, repoRoot, rssMb, runCompiled } from "./lib.js"

const modes = ["csv", "parquet", "parquet-snappy", "parquet-uncompressed"] as const
type Mode = (typeof modes)[number]

interface Result {
  readonly mode: Mode
  readonly rows: number
  readonly seconds: number
  readonly cpuSeconds: number
  /** RSS once everything is loaded, before the first row. */
  readonly rssBeforeMb: number
  readonly peakRssMb: number
  readonly fileBytes: number
  /** Parquet: the JSON of the committed state at the end (what a checkpoint stores). */
  readonly stateJsonBytes?: number
}

// ---------------------------------------------------------------------------------------------------------
// Rows: random hashes and addresses (they do not compress), amounts up to uint256, repeated token names

let seed = 0x2545f491
const random32 = (): number => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return seed >>> 0
}
const randomHex = (digits: number): string => {
  let out = "0x"
  while (out.length < digits + 2) out += random32().toString(16).padStart(8, "0")
  return out.slice(0, digits + 2)
}
const tokens = Array.from({ length: 50 }, (_, t) => ({ address: randomHex(40), name: `Token ${t}`, symbol: `TK${t}` }))

const transfer = (i: number, blockHash: string): Erc20Transfer.Encoded => {
  const token = tokens[random32() % tokens.length] as (typeof tokens)[number]
  const block = 18_000_000 + Math.floor(i / 50)
  return {
    blockNumber: String(block),
    timeStamp: String(1_700_000_000 + (block - 18_000_000) * 12),
    hash: randomHex(64),
    nonce: String(random32() % 100_000),
    blockHash,
    from: randomHex(40),
    contractAddress: token.address,
    to: randomHex(40),
    value: (BigInt(random32()) * BigInt(random32()) * 1_000_000_000_000n).toString(),
    tokenName: token.name,
    tokenSymbol: token.symbol,
    tokenDecimal: "18",
    transactionIndex: String(i % 200),
    gas: String(21_000 + (random32() % 200_000)),
    gasPrice: String(10_000_000_000 + (random32() % 1_000_000_000)),
    gasUsed: String(21_000 + (random32() % 100_000)),
    cumulativeGasUsed: String(1_000_000 + (random32() % 10_000_000)),
    input: "deprecated",
    methodId: "0xa9059cbb",
    functionName: "transfer(address _to, uint256 _value)",
    confirmations: String(1_000_000 - Math.floor(i / 50))
  }
}

const page = (from: number, size: number): Array<Erc20Transfer.Encoded> => {
  const rows = new Array<Erc20Transfer.Encoded>(size)
  let blockHash = randomHex(64)
  for (let k = 0; k < size; k++) {
    if ((from + k) % 50 === 0) blockHash = randomHex(64)
    rows[k] = transfer(from + k, blockHash)
  }
  return rows
}

// ---------------------------------------------------------------------------------------------------------
// One path, in a child

/** Calls `sync` about once a second. */
const everySecond = <E>(sync: Effect.Effect<unknown, E>) => {
  let last = performance.now()
  return Effect.suspend(() => {
    if (performance.now() - last < 1000) return Effect.void
    last = performance.now()
    return Effect.asVoid(sync)
  })
}

const child = (mode: Mode, total: number, group: number, file: string) =>
  Effect.gen(function*() {
    const pool = Array.from({ length: 20 }, (_, k) => page(k * group, group))
    const pageAt = (at: number) => {
      const rows = pool[(at / group) % pool.length] as Array<Erc20Transfer.Encoded>
      return at + group <= total ? rows : rows.slice(0, total - at)
    }
    const rssBeforeMb = rssMb()
    const started = performance.now()
    const cpu = process.cpuUsage()
    let stateJsonBytes: number | undefined
    if (mode === "csv") {
      const encoder = yield* Format.encodedEncoder(Erc20Transfer, { format: "csv" })
      const data = yield* Files.openData(file, 0)
      const sync = everySecond(data.sync)
      yield* data.append(encoder.header)
      for (let at = 0; at < total; at += group) {
        yield* data.append(yield* encoder.encode(pageAt(at)))
        yield* sync
      }
      yield* data.sync
    } else {
      const columns = yield* Parquet.columnsOf(Erc20Transfer)
      const codec = mode === "parquet" ? "GZIP" : mode === "parquet-snappy" ? "SNAPPY" : "UNCOMPRESSED"
      const writer = yield* Parquet.open(file, columns, { codec })
      const sync = everySecond(writer.sync)
      for (let at = 0; at < total; at += group) {
        yield* writer.writeRowGroup(pageAt(at))
        yield* sync
      }
      stateJsonBytes = JSON.stringify(writer.state()).length
      yield* writer.finish
    }
    const used = process.cpuUsage(cpu)
    const result: Result = {
      mode,
      rows: total,
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: (used.user + used.system) / 1e6,
      rssBeforeMb,
      peakRssMb: peakRssMb(),
      fileBytes: statSync(file).size,
      ...(stateJsonBytes === undefined ? {} : { stateJsonBytes })
    }
    emit(result)
  }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

// ---------------------------------------------------------------------------------------------------------
// The orchestrator

const options = args()
const total = Number(options["rows"] ?? 1_000_000)
const group = Number(options["group"] ?? 1000)
const mode = options["child"] as Mode | undefined

if (mode !== undefined) {
  await Effect.runPromise(child(mode, total, group, options["file"] ?? ""))
} else {
  try {
    execFileSync(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", "bench"], { cwd: repoRoot, stdio: "ignore" })
  } catch {
    // Type errors elsewhere in the tree do not stop tsc from writing its output.
  }
  const compiled = join(repoRoot, "bench", ".compiled", "bench", "parquet.js")
  const cliSettings = ["--import", join(repoRoot, "bin", "v8-settings.js")]
  const folder = mkdtempSync(join(tmpdir(), "bench-parquet-"))
  try {
    const results: Array<Result> = []
    for (const m of modes) {
      const file = join(folder, m === "csv" ? "transfers.csv" : `${m}.parquet`)
      const childArgs = ["--child", m, "--rows", String(total), "--group", String(group), "--file", file]
      results.push(await runCompiled<Result>(compiled, childArgs, cliSettings))
      rmSync(file, { force: true })
    }
    const csv = results.find((r) => r.mode === "csv")
    console.log(`${total.toLocaleString("en")} transfer-like rows, ${group}-row pages (row groups)\n`)
    console.log("path                   wall s   cpu s    rows/s   vs csv   RSS before / peak MB   file MB")
    for (const r of results) {
      const ratio = csv === undefined ? "" : (csv.seconds / r.seconds).toFixed(2)
      console.log(
        `${r.mode.padEnd(22)} ${r.seconds.toFixed(1).padStart(6)}  ${r.cpuSeconds.toFixed(1).padStart(6)}  ${
          Math.round(r.rows / r.seconds).toLocaleString("en").padStart(8)
        }   ${ratio.padStart(6)}   ${`${r.rssBeforeMb.toFixed(0)} / ${r.peakRssMb.toFixed(0)}`.padStart(20)}   ${
          (r.fileBytes / 1e6).toFixed(1).padStart(7)
        }`
      )
    }
    for (const r of results) {
      if (r.stateJsonBytes !== undefined) {
        console.log(`\n${r.mode}: committed state at the end ${(r.stateJsonBytes / 1e6).toFixed(2)} MB of JSON (${
          Math.round(r.stateJsonBytes / Math.ceil(r.rows / group))
        } bytes per row group)`)
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}
