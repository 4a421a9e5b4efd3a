/**
 * The newcomer path (issue 17): `explorer-etl simulator` prints, beside its demo keys, a wallet, a token
 * and a contract that have data, and an export command that runs as printed; with `--simulator` the
 * plan defaults to Pro Plus so every data set runs, unless `--plan` or EXPLORER_PLAN says otherwise.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Simulator from "../../src/simulator/index.js"
import { exited, failureOf, makeTempDir, readCsv, removeDir, spawnCli, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const transcript = new Transcript()

/** Starts `explorer-etl simulator --port 0` and waits for its whole banner (it ends with the ready command). */
const startCliSimulator = Effect.gen(function*() {
  const { child, output } = spawnCli(["simulator", "--port", "0"])
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      child.kill("SIGTERM")
      yield* exited(child)
    })
  )
  const banner = yield* Effect.async<string, string>((resume) => {
    const check = () => {
      if (/npx explorer-etl export .*\n/.test(output.stdout)) {
        child.stdout?.off("data", check)
        resume(Effect.succeed(output.stdout))
      }
    }
    child.stdout?.on("data", check)
    child.once("exit", () => resume(Effect.fail(`the simulator ended: ${output.stderr}`)))
    check()
  })
  return banner
})

describe.concurrent("newcomer", () => {
  it.scopedLive("simulator: sample wallet, token and contract with data, and a ready export command that runs as printed", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.promise(() => makeTempDir("cli-newcomer-")), (d) => Effect.promise(() => removeDir(d)))
      const banner = yield* startCliSimulator
      const baseUrl = /listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? ""
      const wallet = /^ {4}wallet {4}(0x[0-9a-f]{40}) /m.exec(banner)?.[1]
      const token = /^ {4}token {5}(0x[0-9a-f]{40}) /m.exec(banner)?.[1]
      const contract = /^ {4}contract {2}(0x[0-9a-f]{40}) /m.exec(banner)?.[1]
      expect([wallet, token, contract].every((a) => a !== undefined), banner).toBe(true)
      const command = /^ {4}npx explorer-etl (export .*)$/m.exec(banner)?.[1] ?? ""
      expect(command).toContain(`--address ${wallet}`)
      expect(command).toContain(`--base-url ${baseUrl}`)
      // The key in the environment, as printed just before: never on the command line (`ps` shows it).
      expect(command).not.toContain("--api-key")
      expect(banner).toContain(`\n    export EXPLORER_API_KEY=${Simulator.demoKeys.free}\n`)

      // The ready command, as printed (only its output file moved into the test's folder).
      const words = command.split(" ")
      const out = join(dir, "txs.csv")
      words[words.indexOf("--out") + 1] = out
      const ran = succeeded(yield* transcript.cli(words, { env: { EXPLORER_API_KEY: Simulator.demoKeys.free } }))
      expect(ran.stderr).toMatch(/^wrote [\d,]+ rows to /m)
      expect(readCsv(readFileSync(out, "utf8")).rows.length).toBeGreaterThan(0)

      // Each sample has the data the banner says it has.
      const api = ["--base-url", baseUrl, "--api-key", Simulator.demoKeys.free, "--quiet"]
      const walletTransfers = join(dir, "wallet-erc20.csv")
      succeeded(yield* transcript.cli(["export", "erc20-transfers", "--address", wallet ?? "", "--out", walletTransfers, ...api]))
      expect(readCsv(readFileSync(walletTransfers, "utf8")).rows.length).toBeGreaterThan(0)
      const tokenTransfers = join(dir, "token-erc20.csv")
      succeeded(yield* transcript.cli(["export", "erc20-transfers", "--contract", token ?? "", "--out", tokenTransfers, ...api]))
      expect(readCsv(readFileSync(tokenTransfers, "utf8")).rows.length).toBeGreaterThan(0)
      const abi = succeeded(yield* transcript.cli(["call", "contract", "getabi", `address=${contract}`, ...api]))
      expect(abi.stdout.length).toBeGreaterThan(10)

      // The notable addresses the long examples use, as the simulator's data set has them.
      const chain = (yield* Effect.scoped(Effect.flatMap(Simulator.make({ port: 0 }), (sim) => Effect.succeed(sim.dataset)))).chain(1)
      const notable = (label: string) => new RegExp(`^ {4}${label} +(0x[0-9a-f]{40}) `, "m").exec(banner)?.[1]
      expect(notable("busy wallet"), banner).toBe(chain.busyWallet.address)
      expect(banner).toContain(`(${chain.busyWallet.transactions.toLocaleString("en-US")} transactions`)
      expect(notable("heavy contract")).toBe(chain.heavyContract.address)
      expect(notable("airdrop token")).toBe(chain.airdropToken.address)
      expect(notable("ERC721 token")).toBe(chain.erc721[0]?.address)
      expect(notable("ERC1155 token")).toBe(chain.erc1155[0]?.address)
      expect(notable("proxy")).toBe(chain.proxyContract.address)
    }), TIMEOUT)

  it.scopedLive("--simulator runs a Pro Plus data set without --plan; --plan and EXPLORER_PLAN still choose", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(Effect.promise(() => makeTempDir("cli-newcomer-plan-")), (d) => Effect.promise(() => removeDir(d)))
      const out = join(dir, "tags.csv")
      const tags = succeeded(yield* transcript.cli(["export", "address-tags", "--label", "all", "--out", out, "--simulator", "--quiet"]))
      expect(tags.stderr).toBe("")
      expect(readCsv(readFileSync(out, "utf8")).rows.length).toBeGreaterThan(0)
      const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, "utf8")) as { readonly plan: string }
      expect(manifest.plan).toBe("proplus")
      failureOf(
        yield* transcript.cli(["export", "address-tags", "--label", "all", "--out", join(dir, "free.csv"), "--simulator", "--plan", "free"]),
        "PlanTierError"
      )
      failureOf(
        yield* transcript.cli(["export", "address-tags", "--label", "all", "--out", join(dir, "env.csv"), "--simulator"], {
          env: { EXPLORER_PLAN: "standard" }
        }),
        "PlanTierError"
      )
    }), TIMEOUT)
})
