/**
 * Every `npx explorer-etl …` command line in the fenced shell blocks of the README and of docs/*.md, run
 * as a user would, so the documentation cannot drift from the CLI. Each runs against the embedded simulator:
 * - a command already written with `--simulator` runs as written;
 * - a command written for the real API (no `--simulator`: it needs a real key) runs with `--simulator`
 *   added, which uses the simulator's demo key of the plan the command names — none is skipped
 *   (`chains` and `export` alone need no API and run as written);
 * - a `0x…` placeholder is replaced by an address of the simulator's data set that has rows for that
 *   data set, a `name=…` parameter of `call` by a value of it (`placeholders` below: a new example with
 *   a placeholder not listed there fails this test);
 * - `--out`/`--out-dir` go to a temporary folder, not the repository, and so does an `--abi FILE`: the
 *   test writes the ERC-20 events' ABI there under the name the README gives;
 * - `run … --every` (it runs until interrupted) is stopped with SIGINT after its first run.
 * Lines that are not explorer-etl commands (`npm install`, `npx tsx …`, `export VAR=…`) are not run here.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Simulator from "../../src/simulator/index.js"
import { exited, makeTempDir, removeDir, repoRoot, spawnCli, startSimulator, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 400_000
const transcript = new Transcript()

/** README.md and the guides of docs/ (not docs/api/, generated from the doc comments). */
const pages = (): ReadonlyArray<string> => [
  join(repoRoot, "README.md"),
  ...readdirSync(join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => join(repoRoot, "docs", f))
]

/** The CLI command lines of the README and docs/: fenced sh blocks, lines starting `npx explorer-etl`, comments dropped. */
const readmeCommands = (): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let fenced = false
  for (const line of pages().flatMap((page) => readFileSync(page, "utf8").split("\n"))) {
    if (/^```(sh|bash|shell)\s*$/.test(line)) fenced = true
    else if (line.startsWith("```")) fenced = false
    else if (fenced && line.startsWith("npx explorer-etl ")) lines.push(line.replace(/\s+#.*$/, "").trim())
  }
  // A command given on two pages runs once.
  return [...new Set(lines)]
}

/** Shell words: spaces split, double or single quotes group. */
const words = (line: string): Array<string> =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "")

// The in-process simulator has the embedded one's data set (same default options): the same addresses.
let sim: Simulator.Simulator.Service
let close: () => Promise<void>
let dir: string

beforeAll(async () => {
  const started = await startSimulator({})
  sim = started.sim
  close = started.close
  dir = await makeTempDir("cli-readme-")
})

afterAll(async () => {
  await close?.()
  if (dir !== undefined) await removeDir(dir)
})

/** What a `0x…` placeholder after `flag` stands for in `dataset` on `chainId`. */
const placeholders: Record<string, (chainId: number) => string | undefined> = {
  "txs --address": (c) => sim.dataset.chain(c).wallets[0]?.address,
  "logs --address": (c) => sim.dataset.chain(c).erc20[0]?.address,
  "logs --topic0": () => Simulator.TRANSFER_TOPIC,
  "erc20-transfers --contract": (c) => sim.dataset.chain(c).erc20[0]?.address,
  "holders --contract": (c) => sim.dataset.chain(c).airdropToken.address,
  "events --address": (c) => sim.dataset.chain(c).erc20[0]?.address,
  "checkverifystatus guid": (c) => sim.dataset.chain(c).verifications.pending
}

/** The ABI an `--abi FILE` example reads: the events of ERC-20. */
const erc20Events = [
  {
    type: "event",
    name: "Transfer",
    inputs: [
      { name: "from", type: "address", indexed: true },
      { name: "to", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false }
    ]
  },
  {
    type: "event",
    name: "Approval",
    inputs: [
      { name: "owner", type: "address", indexed: true },
      { name: "spender", type: "address", indexed: true },
      { name: "value", type: "uint256", indexed: false }
    ]
  }
]

/** Waits until the command's stdout matches `pattern`; fails, naming `what`, if it ends first. */
const untilPrinted = (
  child: ReturnType<typeof spawnCli>["child"],
  output: ReturnType<typeof spawnCli>["output"],
  pattern: RegExp,
  what: string
) =>
  Effect.async<void, string>((resume) => {
    const check = () => {
      if (pattern.test(output.stdout)) {
        child.stdout?.off("data", check)
        resume(Effect.void)
      }
    }
    child.stdout?.on("data", check)
    child.once("exit", () => resume(Effect.fail(`ended before ${what}: ${output.stderr}`)))
    check()
  })

/** The command as the test runs it (see the module header). */
const prepared = (line: string, index: number): Array<string> => {
  const args = words(line).slice(2)
  const chainAt = args.indexOf("--chain")
  const chainId = chainAt === -1 ? 1 : Number(args[chainAt + 1])
  const dataset = args[0] === "export" ? args[1] : args[0]
  for (let i = 1; i < args.length; i++) {
    const value = args[i] as string
    if (!value.includes("…")) continue
    // `call <module> <action> name=…`: the parameter of that action; else the value of the flag before it
    const named = args[0] === "call" ? /^([A-Za-z0-9_]+)=…$/.exec(value) : null
    const fill = named !== null ? placeholders[`${args[2]} ${named[1]}`] : placeholders[`${dataset} ${args[i - 1]}`]
    const filled = fill?.(chainId)
    if (filled === undefined) throw new Error(`README: no test value for ${args[i - 1]} ${value} in "${line}"`)
    args[i] = named !== null ? `${named[1]}=${filled}` : filled
  }
  const outAt = args.indexOf("--out")
  if (outAt !== -1) args[outAt + 1] = join(dir, `${index}-${args[outAt + 1]}`)
  if (args[0] === "run" || args[0] === "demo") args.push("--out-dir", join(dir, `${index}-out`))
  // The simulator on a free port: the default 9545 may be taken on the machine running the tests.
  if (args[0] === "simulator" && !args.includes("--port")) args.push("--port", "0")
  const abiAt = args.indexOf("--abi")
  const abi = args[abiAt + 1]
  if (abiAt !== -1 && abi !== undefined && abi !== "auto") {
    args[abiAt + 1] = join(dir, abi)
    writeFileSync(args[abiAt + 1] as string, JSON.stringify(erc20Events))
  }
  // ABIs fetched by `--abi auto` are cached in the test's folder, not the user's.
  if (args[0] === "export" && args[1] === "events" && !args.includes("--abi-cache")) args.push("--abi-cache", join(dir, "abi-cache"))
  // Only the commands that talk to an API take --simulator (not `chains`, nor `export` alone, which lists the data sets).
  const api = args[0] === "call" || args[0] === "run" || (args[0] === "export" && args.length > 1)
  if (api && !args.includes("--simulator")) args.push("--simulator")
  return args
}

describe("README commands", () => {
  const commands = readmeCommands()

  it("the README and docs/ have CLI examples to run", () => {
    expect(commands.length).toBeGreaterThanOrEqual(5)
    // The CLI reference's examples are among them, not only the README's quick start.
    expect(commands).toContain("npx explorer-etl export holders --contract 0x… --plan standard --allow-partial --out holders.csv")
    for (const line of commands) expect(line).not.toMatch(/--simulator.*--simulator/)
  })

  describe.concurrent("each runs", () => {
    commands.forEach((line, index) => {
      if (words(line)[2] === "simulator") {
        it.scopedLive(`${line} (its banner, then stopped with SIGINT)`, () =>
          Effect.gen(function*() {
            const args = prepared(line, index)
            const { child, output } = spawnCli(args)
            yield* Effect.addFinalizer(() => Effect.sync(() => void child.kill("SIGKILL")))
            // The banner ends with the ready export command; it is written at once.
            yield* untilPrinted(child, output, /npx explorer-etl export txs .*--out txs\.csv\n/, "its banner")
            // What the README says it prints: the demo keys, and the notable addresses of chain 1.
            const chain = sim.dataset.chain(1)
            expect(output.stdout).toContain(Simulator.demoKeys.free)
            expect(output.stdout).toContain(Simulator.demoKeys.standard)
            for (const address of [chain.busyWallet.address, chain.heavyContract.address, chain.airdropToken.address,
              chain.erc721[0]?.address, chain.erc1155[0]?.address, chain.proxyContract.address]) {
              expect(output.stdout).toContain(`${address}  (`)
            }
            child.kill("SIGINT")
            const end = yield* exited(child)
            transcript.record({ args, code: end.code, signal: end.signal, stdout: output.stdout, stderr: output.stderr })
            expect(end.code).toBe(0)
          }), TIMEOUT)
      } else if (/ --every /.test(line)) {
        it.scopedLive(`${line} (stopped after its first run)`, () =>
          Effect.gen(function*() {
            const args = prepared(line, index)
            const { child, output } = spawnCli(args)
            yield* Effect.addFinalizer(() => Effect.sync(() => void child.kill("SIGKILL")))
            // The first run prints one line per file written: `<path>\t<rows> rows\t<status>`.
            yield* untilPrinted(child, output, /\t[\d,]+ rows?\t/, "its first run")
            child.kill("SIGINT")
            const end = yield* exited(child)
            transcript.record({ args, code: end.code, signal: end.signal, stdout: output.stdout, stderr: output.stderr })
            expect(end.code).toBe(130)
          }), TIMEOUT)
      } else {
        it.live(line, () =>
          Effect.gen(function*() {
            const result = succeeded(yield* transcript.cli(prepared(line, index)))
            if (line.includes(" export ")) expect(result.stderr).toMatch(/^(wrote|appended) [\d,]+ rows? to /m)
            else expect(result.stdout.length).toBeGreaterThan(0)
          }), TIMEOUT)
      }
    })
  })
})
