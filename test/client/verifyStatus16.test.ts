/**
 * contract/checkverifystatus (issue 16) through the client: every state of a verification is a value to
 * branch on — the pending, failed and already-verified answers come with status "0" and must be neither
 * an error nor retried —, an unknown GUID is an InvalidInputError, and a malformed GUID is refused before
 * any request reaches the simulator.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Schemas from "../../src/schemas/index.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Texts from "../../src/simulator/texts.js"
import { proplusOnSimulator } from "./helpers.js"

const TestLayer = proplusOnSimulator(
  Simulator.layer({ seed: 43, dataset: { chains: [1, 8453], busyWalletTransactions: 0, heavyContractLogs: 0 } })
)

const verifyCalls = (sim: Simulator.SimulatorService) =>
  Effect.map(sim.stats, (s) => s.byOperation["contract/checkverifystatus"] ?? 0)

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("checkverifystatus through the client", (it) => {
  it.effect("each state of a verification is a value: Verified, Pending, Failed with the reason, AlreadyVerified; one request each", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const g = sim.dataset.chain(1).verifications
      const before = yield* client.stats
      const calls = yield* verifyCalls(sim)
      expect(yield* client.checkverifystatus({ guid: g.verified })).toEqual({ _tag: "Verified", result: "Pass - Verified" })
      expect(yield* client.checkverifystatus({ guid: g.pending })).toEqual({ _tag: "Pending", result: "Pending in queue" })
      expect(yield* client.checkverifystatus({ guid: g.failed })).toEqual({
        _tag: "Failed",
        reason: "Unable to verify. Compiled contract deployment bytecode does NOT match the transaction deployment bytecode.",
        result: Texts.VERIFY_FAILED
      })
      expect(yield* client.checkverifystatus({ guid: g.alreadyVerified })).toEqual({ _tag: "AlreadyVerified", result: "Already Verified" })
      const after = yield* client.stats
      // status "0" answers were not taken for failures: no retry, one request per call
      expect(after.requests - before.requests).toBe(4)
      expect(after.retries - before.retries).toBe(0)
      expect((yield* verifyCalls(sim)) - calls).toBe(4)
    }))

  it.effect("every verified contract of the data set has a passed verification; GUIDs are 50 letters and digits", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const verified = [c.verifiedContract, c.proxyContract, c.erc20[0], c.erc721[0], c.erc1155[0], c.heavyContract, c.factory]
      for (const contract of verified) {
        const guid = c.verificationGuidOf(contract?.address ?? "")
        expect(guid, contract?.name).toMatch(/^[a-z0-9]{50}$/)
        expect((yield* client.checkverifystatus({ guid: guid ?? "" }))._tag).toBe("Verified")
      }
      expect(c.verificationGuidOf(c.verifiedContract.address)).toBe(c.verifications.verified)
      expect(c.verificationGuidOf(c.unverifiedContract.address)).toBeUndefined()
      for (const guid of Object.values(c.verifications)) expect(guid).toMatch(/^[a-z0-9]{50}$/)
    }))

  it.effect("a GUID nobody submitted: InvalidInputError on guid with the server's words, not retried", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const calls = yield* verifyCalls(sim)
      const error = yield* Effect.flip(client.checkverifystatus({ guid: "x".repeat(50) }))
      expect(error._tag).toBe("InvalidInputError")
      expect(error).toMatchObject({ parameter: "guid", detail: Texts.UNKNOWN_UID, module: "contract", action: "checkverifystatus" })
      expect((yield* verifyCalls(sim)) - calls).toBe(1)
      // another chain's GUID is unknown here too
      const onBase = yield* Effect.flip(client.checkverifystatus({ chainId: 8453, guid: sim.dataset.chain(1).verifications.verified }))
      expect(onBase._tag).toBe("InvalidInputError")
    }))

  it.effect("an empty, blank, spaced or over-long GUID is refused before sending: no request reaches the simulator", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const calls = yield* verifyCalls(sim)
      const requests = (yield* client.stats).requests
      for (const guid of ["", "   ", "abc def", " " + "a".repeat(50), "a".repeat(101)]) {
        const error = yield* Effect.flip(client.checkverifystatus({ guid }))
        expect(error._tag, JSON.stringify(guid)).toBe("InvalidInputError")
        expect(error).toMatchObject({ parameter: "guid" })
      }
      const missing = yield* Effect.flip(client.checkverifystatus({} as unknown as { guid: string }))
      expect(missing).toMatchObject({ _tag: "InvalidInputError", parameter: "guid" })
      expect((yield* client.stats).requests).toBe(requests)
      expect(yield* verifyCalls(sim)).toBe(calls)
    }))

  it.effect("a free key may poll on a paid-only chain, as source-code endpoints are open on every chain", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const free = Client.make({ apiKey: Redacted.make(sim.demoKeys.free), plan: "free", baseUrl: sim.baseUrl })
      const status = yield* Effect.flatMap(free, (client) =>
        client.checkverifystatus({ chainId: 8453, guid: sim.dataset.chain(8453).verifications.pending })).pipe(Effect.scoped)
      expect(status._tag).toBe("Pending")
    }))

  it.effect("the request escape hatch classifies the same answers alike (status 0 'Pending in queue' is a result)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const status = yield* client.request({
        module: "contract",
        action: "checkverifystatus",
        params: { guid: sim.dataset.chain(1).verifications.pending },
        schema: Schemas.VerifyStatus
      })
      expect(status._tag).toBe("Pending")
    }))
})

// VerifyStatus read on its own: the texts hardhat-verify, foundry and Etherscan's docs know, round-tripped
describe("VerifyStatus", () => {
  const decode = Schema.decodeUnknownSync(Schemas.VerifyStatus)
  const encode = Schema.encodeSync(Schemas.VerifyStatus)

  it("reads every known text and writes it back as sent", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Pending in queue", "Pending"],
      ["Pass - Verified", "Verified"],
      ["Fail - Unable to verify", "Failed"],
      ["Fail - Unable to verify. Please check if the correct constructor argument was entered.", "Failed"],
      ["Already Verified", "AlreadyVerified"],
      ["Contract source code already verified", "AlreadyVerified"]
    ]
    for (const [text, tag] of cases) {
      const status = decode(text)
      expect(status._tag, text).toBe(tag)
      expect(encode(status)).toBe(text)
    }
    expect(decode("Fail - Unable to verify")).toEqual({ _tag: "Failed", reason: "Unable to verify", result: "Fail - Unable to verify" })
  })

  it("refuses a text it does not know instead of guessing", () => {
    expect(() => decode("Unknown UID")).toThrow(/not a verification status/)
    expect(() => decode("")).toThrow()
  })
})
