/**
 * `explorer-etl call proxy <eth_*>` as a subprocess against a simulator: the proxy actions are named
 * operations (checked, decoded by their Schemas, bigints printed as strings), `boolean=true` asks for
 * whole transactions, and a JSON-RPC error exits with JsonRpcError and the node's words.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Plan } from "../../src/Plan.js"
import type * as Simulator from "../../src/simulator/index.js"
import { failureOf, madeUpKey, startSimulator, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const KEY = madeUpKey("proxy16")
const keyPlans: Record<string, Plan> = { [KEY]: "free" }

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>

beforeAll(async () => {
  const started = await startSimulator({ keys: keyPlans, dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 } })
  sim = started.sim
  close = started.close
})

afterAll(async () => {
  await close?.()
})

describe("explorer-etl call proxy …", () => {
  const api = () => ["--base-url", sim.baseUrl, "--api-key", KEY]

  it.live("eth_blockNumber and eth_getBlockByNumber boolean=true: decoded, whole transactions", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const latest = succeeded(yield* transcript.cli(["call", "proxy", "eth_blockNumber", ...api()]))
      expect(JSON.parse(latest.stdout)).toBe(c.latestBlock)
      const tx = (yield* Effect.orDie(sim.oracle({ chainId: 1, module: "account", action: "txlist", params: { address: c.wallets[0]?.address } })))
        .find((t) => t.from === c.wallets[0]?.address.toLowerCase())
      const tag = "0x" + Number(tx?.blockNumber).toString(16)
      const block = succeeded(yield* transcript.cli(["call", "proxy", "eth_getBlockByNumber", `tag=${tag}`, "boolean=true", ...api()]))
      const decoded = JSON.parse(block.stdout) as { number: number; gasLimit: string; transactions: ReadonlyArray<{ hash: string; value: string }> }
      expect(decoded.number).toBe(Number(tx?.blockNumber))
      expect(decoded.gasLimit).toMatch(/^\d+$/)
      expect(decoded.transactions.find((t) => t.hash === tx?.hash)?.value).toBe(tx?.value)
    }), TIMEOUT)

  it.live("eth_call of a reverting contract: JsonRpcError with the code and the node's message", () =>
    Effect.gen(function*() {
      const c = sim.dataset.chain(1)
      const result = yield* transcript.cli([
        "call", "proxy", "eth_call", `to=${c.unverifiedContract.address}`, "data=0x2e1a7d4d" + "0".repeat(63) + "1", ...api()
      ])
      expect(failureOf(result, "JsonRpcError")).toContain("JSON-RPC error 3: execution reverted: Vault: withdrawals are paused")
    }), TIMEOUT)

  it.live("a malformed parameter is refused before sending", () =>
    Effect.gen(function*() {
      const result = yield* transcript.cli(["call", "proxy", "eth_getBlockByNumber", "tag=0x10", "boolean=yes", ...api()])
      expect(failureOf(result, "InvalidInputError")).toContain("boolean")
    }), TIMEOUT)
})
