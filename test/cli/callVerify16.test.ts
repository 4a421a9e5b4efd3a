/**
 * `explorer-etl call contract checkverifystatus guid=…` as a subprocess against a simulator: every state
 * of a verification prints as JSON with its `_tag` and exits 0 (a pending or failed verification is an
 * answer, not a failure of the command), a GUID nobody submitted exits with InvalidInputError and the
 * server's words, and a blank GUID is refused before any request (on a paid-only chain with a free key,
 * as the source-code endpoints are open to free keys there).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Plan } from "../../src/Plan.js"
import type * as Simulator from "../../src/simulator/index.js"
import { failureOf, madeUpKey, requestsWith, startSimulator, succeeded, Transcript } from "./helpers.js"

const TIMEOUT = 240_000
const KEY = madeUpKey("verify16")
const keyPlans: Record<string, Plan> = { [KEY]: "free" }

const transcript = new Transcript()
let sim: Simulator.Simulator.Service
let close: () => Promise<void>

beforeAll(async () => {
  const started = await startSimulator({ keys: keyPlans, dataset: { chains: [1, 8453], busyWalletTransactions: 0, heavyContractLogs: 0 } })
  sim = started.sim
  close = started.close
})

afterAll(async () => {
  await close?.()
})

describe("explorer-etl call contract checkverifystatus …", () => {
  const api = () => ["--base-url", sim.baseUrl, "--api-key", KEY]

  it.live("passed, pending, failed and already verified print their state and exit 0", () =>
    Effect.gen(function*() {
      const g = sim.dataset.chain(1).verifications
      const state = (guid: string) =>
        Effect.map(transcript.cli(["call", "contract", "checkverifystatus", `guid=${guid}`, ...api()]), (r) => JSON.parse(succeeded(r).stdout))
      expect(yield* state(g.verified)).toEqual({ _tag: "Verified", result: "Pass - Verified" })
      expect(yield* state(g.pending)).toEqual({ _tag: "Pending", result: "Pending in queue" })
      expect(yield* state(g.failed)).toMatchObject({ _tag: "Failed", reason: expect.stringMatching(/^Unable to verify\. /) })
      expect(yield* state(g.alreadyVerified)).toEqual({ _tag: "AlreadyVerified", result: "Already Verified" })
      const onBase = yield* transcript.cli([
        "call", "contract", "checkverifystatus", `guid=${sim.dataset.chain(8453).verifications.verified}`, "--chain", "base", ...api()
      ])
      expect(JSON.parse(succeeded(onBase).stdout)).toMatchObject({ _tag: "Verified" })
    }), TIMEOUT)

  it.live("call contract verifysourcecode with the API's parameter names answers a GUID; its status is Pending, then Verified", () =>
    Effect.gen(function*() {
      const vault = sim.dataset.chain(1).unverifiedContract.address
      const submitted = yield* transcript.cli([
        "call", "contract", "verifysourcecode", `contractaddress=${vault}`, "sourceCode=contract Vault { function withdraw(uint256 amount) external {} }",
        "contractname=Vault", "compilerversion=v0.8.24+commit.e11b9ed9", "optimizationUsed=1", "runs=200", "constructorArguements=", ...api()
      ])
      const guid = JSON.parse(succeeded(submitted).stdout) as string
      expect(guid).toMatch(/^[a-z0-9]{50}$/)
      const state = () =>
        Effect.map(transcript.cli(["call", "contract", "checkverifystatus", `guid=${guid}`, ...api()]), (r) => JSON.parse(succeeded(r).stdout))
      expect(yield* state()).toEqual({ _tag: "Pending", result: "Pending in queue" })
      expect(yield* state()).toEqual({ _tag: "Verified", result: "Pass - Verified" })
      const abi = yield* transcript.cli(["call", "contract", "getabi", `address=${vault}`, ...api()])
      expect(JSON.parse(JSON.parse(succeeded(abi).stdout) as string)).toEqual([
        { inputs: [{ internalType: "uint256", name: "amount", type: "uint256" }], name: "withdraw", outputs: [], stateMutability: "nonpayable", type: "function" }
      ])
    }), TIMEOUT)

  it.live("a GUID nobody submitted: InvalidInputError with the server's words", () =>
    Effect.gen(function*() {
      const result = yield* transcript.cli(["call", "contract", "checkverifystatus", `guid=${"q".repeat(50)}`, ...api()])
      expect(failureOf(result, "InvalidInputError")).toContain("guid: Unknown UID")
    }), TIMEOUT)

  it.live("a blank or missing GUID is refused before any request", () =>
    Effect.gen(function*() {
      const before = yield* requestsWith(sim, KEY)
      const blank = yield* transcript.cli(["call", "contract", "checkverifystatus", "guid=", ...api()])
      expect(failureOf(blank, "InvalidInputError")).toContain("guid")
      const spaced = yield* transcript.cli(["call", "contract", "checkverifystatus", "guid=a b", ...api()])
      expect(failureOf(spaced, "InvalidInputError")).toContain("guid")
      const missing = yield* transcript.cli(["call", "contract", "checkverifystatus", ...api()])
      expect(failureOf(missing, "InvalidInputError")).toContain("guid")
      expect(yield* requestsWith(sim, KEY)).toBe(before)
    }), TIMEOUT)
})
