/**
 * `explorer-etl call`, `explorer-etl simulator`, `--simulator` and `--help` as subprocesses: decoded
 * JSON on stdout, the generic request for an unnamed module/action, keys from the flag or the
 * environment (and never in any output), the simulator serving until SIGTERM/SIGINT.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Plan } from "../../src/Plan.js"
import * as Simulator from "../../src/simulator/index.js"
import {
  type CliResult,
  exited,
  failureOf,
  madeUpKey,
  requestsWith,
  spawnCli,
  startSimulator,
  succeeded,
  Transcript
} from "./helpers.js"

/** Generous: a 2-core CI runs several CLI processes at once; nothing here asserts on time. */
const TIMEOUT = 240_000

const keyPlans: Record<string, Plan> = {}
const key = (name: string, plan: Plan): string => {
  const k = madeUpKey(`c${name}`)
  keyPlans[k] = plan
  return k
}
/** A key the simulator does not know: passed in the environment where the flag must win. */
const envKey = madeUpKey("cenvironment")

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>

beforeAll(async () => {
  const started = await startSimulator({ keys: keyPlans, dataset: { busyWalletTransactions: 0, heavyContractLogs: 0 } })
  sim = started.sim
  close = started.close
})

afterAll(async () => {
  await close?.()
})

/** Strips the terminal colours @effect/cli puts in its help. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "")

// One concurrent block: the CLI processes keep both cores busy to the end.
describe.concurrent("commands", () => {
  const serveUntil = (signal: NodeJS.Signals, extra: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const args = ["simulator", "--port", "0", ...extra]
      const { child, output } = spawnCli(args)
      yield* Effect.addFinalizer(() => Effect.sync(() => void child.kill("SIGKILL")))
      // The banner ends with the last plan's demo key.
      const banner = yield* Effect.async<string, string>((resume) => {
        let done = false
        const finish = (result: Effect.Effect<string, string>) => {
          if (done) return
          done = true
          child.stdout?.off("data", check)
          child.off("exit", ended)
          resume(result)
        }
        const check = () => {
          if (output.stdout.includes(Simulator.demoKeys.proplus)) finish(Effect.succeed(output.stdout))
        }
        const ended = () => finish(Effect.fail(`the simulator ended: ${output.stderr}`))
        child.stdout?.on("data", check)
        child.once("exit", ended)
        check()
      })
      const baseUrl = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(banner)
      expect(baseUrl).not.toBeNull()
      expect(Number(baseUrl?.[2])).toBeGreaterThan(0)
      for (const [plan, demoKey] of Object.entries(Simulator.demoKeys)) expect(banner).toMatch(new RegExp(`${plan}\\s+${demoKey}`))
      const url = `${baseUrl?.[1]}/v2/api?chainid=1&module=stats&action=ethsupply&apikey=${Simulator.demoKeys.free}`
      const answer = yield* Effect.promise(() => fetch(url).then((r) => r.json() as Promise<{ status: string; result: string }>))
      expect(answer.status).toBe("1")
      expect(answer.result).toMatch(/^\d+$/)
      child.kill(signal)
      const end = yield* exited(child)
      const result: CliResult = { args, code: end.code, signal: end.signal, stdout: output.stdout, stderr: output.stderr }
      transcript.record(result)
      expect(end).toEqual({ code: 0, signal: null })
      expect(output.stderr).toBe("")
    })

  it.scopedLive("simulator: prints its base URL (--port 0: the real port) and the six demo keys, answers, ends on SIGTERM", () =>
    serveUntil("SIGTERM", []), TIMEOUT)

  it.scopedLive("simulator: with --host, --seed and --fault, ends on SIGINT", () =>
    serveUntil("SIGINT", ["--host", "127.0.0.1", "--seed", "7", "--fault", "latency=1+1,seed=3"]), TIMEOUT)

  const named = key("named", "free")
  it.live("call: a named operation: decoded JSON (bigints as strings), parameters in API spelling, options after the arguments, --api-key before EXPLORER_API_KEY", () =>
    Effect.gen(function*() {
      const chain = sim.dataset.chain(137)
      const wallet = chain.wallets[0]?.address ?? ""
      const to = chain.activity.toBlock
      const result = succeeded(
        yield* transcript.cli(
          [
            "call", "account", "txlist",
            `address=${wallet}`, "startblock=0", `endblock=${to}`, "page=1", "offset=5", "sort=asc",
            "--chain", "137", "--base-url", sim.baseUrl, "--plan", "free", "--api-key", named
          ],
          { env: { EXPLORER_API_KEY: envKey } }
        )
      )
      expect(result.stderr).toBe("")
      const wire = (yield* Effect.orDie(
        sim.oracle({ chainId: 137, module: "account", action: "txlist", params: { address: wallet, endblock: to } })
      )).slice(0, 5)
      const decoded = JSON.parse(result.stdout) as ReadonlyArray<Readonly<Record<string, unknown>>>
      expect(decoded.length).toBe(5)
      decoded.forEach((tx, i) => {
        const raw = wire[i] ?? {}
        expect(tx.hash).toBe(raw.hash)
        expect(tx.blockNumber).toBe(Number(raw.blockNumber))
        expect(tx.value).toBe(raw.value)
        expect(typeof tx.value).toBe("string")
        expect(tx.gasUsed).toBe(raw.gasUsed)
        expect(typeof tx.isError).toBe("boolean")
      })
      expect(yield* requestsWith(sim, named)).toBe(1)
      expect(yield* requestsWith(sim, envKey)).toBe(0)
    }), TIMEOUT)

  const unnamed = key("unnamed", "free")
  it.live("call: an unnamed module/action goes through the generic request and prints the server's answer (key from ETHERSCAN_API_KEY)", () =>
    Effect.gen(function*() {
      // proxy/eth_chainId is named by neither the client nor the simulator: the server's own refusal
      const result = yield* transcript.cli(["call", "proxy", "eth_chainId", "--base-url", sim.baseUrl], { env: { ETHERSCAN_API_KEY: unnamed } })
      expect(failureOf(result, "InvalidInputError")).toContain("Missing Or invalid Action name")
      expect(yield* requestsWith(sim, unnamed)).toBe(1)
    }), TIMEOUT)

  it.live("call: --simulator: the embedded simulator with its demo key for the plan", () =>
    Effect.gen(function*() {
      const token = sim.dataset.chain(1).erc20[0]?.address ?? ""
      const result = succeeded(
        yield* transcript.cli(["call", "token", "tokeninfo", `contractaddress=${token}`, "--simulator", "--plan", "standard"])
      )
      const info = JSON.parse(result.stdout) as ReadonlyArray<Readonly<Record<string, unknown>>>
      expect(info[0]?.contractAddress).toBe(token)
      expect(typeof info[0]?.totalSupply).toBe("string")
    }), TIMEOUT)

  it.live("export logs --help lists the filters and the API options", () =>
    Effect.gen(function*() {
      const result = succeeded(yield* transcript.cli(["export", "logs", "--help"]))
      const help = plain(result.stdout)
      for (
        const flag of [
          "--address", "--topic0", "--topic1", "--topic2", "--topic3", "--topic-op", "--from-block", "--to-block",
          "--out", "--format", "--resume", "--confirmations", "--allow-partial",
          "--chain", "--api-key", "--base-url", "--plan", "--simulator", "--quiet", "--retries"
        ]
      ) expect(help).toContain(flag)
    }), TIMEOUT)
})

describe("commands: secrets", () => {
  it("no made-up API key appears in any output", () => {
    expect(transcript.runs.length).toBeGreaterThan(0)
    expect(transcript.leaks([...Object.keys(keyPlans), envKey])).toEqual([])
  })
})
