/**
 * Verifying a contract through the client against the simulator: verifysourcecode (a POST form) answers
 * a GUID, checkverifystatus says "Pending in queue" first and then "Pass - Verified" (or the bytecode
 * mismatch of a source that does not declare the named contract), and getsourcecode / getabi show the
 * contract verified afterwards; verifyproxycontract and checkproxyverification; ethsupply2 and
 * getblocktxnscount, which agree with ethsupply, the proxy module, txlistinternal and getLogs.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import * as Errors from "../../src/ExplorerError.js"
import * as Simulator from "../../src/simulator/index.js"
import { proplusOnSimulator } from "./helpers.js"

const TestLayer = proplusOnSimulator(
  Simulator.layer({ seed: 61, dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 } })
)

const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
const COMPILER = "v0.8.24+commit.e11b9ed9"

/** A source declaring `Vault`, padded past what a URL may carry (so only a POST body can take it). */
const vaultSource = "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.24;\n\n" + "// padding\n".repeat(6_000) +
  "contract Vault {\n    event Paused(address indexed account);\n" +
  "    function withdraw(uint256 amount) external {}\n    function balanceOf(address owner) external view returns (uint256) {}\n}\n"

layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("verification through the client", (it) => {
  it.effect("verifysourcecode → GUID → Pending, then Failed or Verified; getsourcecode and getabi show the verified source", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const vault = c.unverifiedContract.address
      expect(Errors.isNotVerified(yield* Effect.flip(client.getabi({ address: vault })))).toBe(true)
      expect((yield* client.getsourcecode({ address: vault }))[0]?.ABI).toBe("Contract source code not verified")

      // a source that does not declare the contract it names fails, after its turn in the queue
      const bad = yield* client.verifysourcecode({ contractAddress: vault, sourceCode: vaultSource, contractName: "Treasury", compilerVersion: COMPILER })
      expect(bad).toMatch(/^[a-z0-9]{50}$/)
      expect((yield* client.checkverifystatus({ guid: bad }))._tag).toBe("Pending")
      const failed = yield* client.checkverifystatus({ guid: bad })
      expect(failed).toMatchObject({ _tag: "Failed", reason: expect.stringMatching(/^Unable to verify/) })
      expect(Errors.isNotVerified(yield* Effect.flip(client.getabi({ address: vault })))).toBe(true)

      const guid = yield* client.verifysourcecode({
        contractAddress: vault,
        sourceCode: vaultSource,
        codeFormat: "solidity-single-file",
        contractName: "Vault",
        compilerVersion: COMPILER,
        optimizationUsed: 1,
        runs: 200,
        licenseType: "MIT"
      })
      expect(guid).not.toBe(bad)
      expect((yield* client.checkverifystatus({ guid }))._tag).toBe("Pending")
      expect((yield* client.checkverifystatus({ guid }))._tag).toBe("Verified")
      expect((yield* client.checkverifystatus({ guid }))._tag).toBe("Verified")

      const [source] = yield* client.getsourcecode({ address: vault })
      expect(source).toMatchObject({ ContractName: "Vault", CompilerVersion: COMPILER, SourceCode: vaultSource, Runs: 200, LicenseType: "MIT" })
      const abi = JSON.parse(yield* client.getabi({ address: vault })) as ReadonlyArray<{ readonly name: string; readonly type: string }>
      expect(abi.map((i) => `${i.type} ${i.name}`).sort()).toEqual(["event Paused", "function balanceOf", "function withdraw"])

      // verified now: a second submission is refused, as is one for an address without code
      const again = yield* Effect.flip(client.verifysourcecode({ contractAddress: vault, sourceCode: vaultSource, contractName: "Vault", compilerVersion: COMPILER }))
      expect(again).toMatchObject({ _tag: "NotOkError", detail: "Contract source code already verified" })
      const wallet = c.wallets[0]?.address ?? ""
      const noCode = yield* Effect.flip(client.verifysourcecode({ contractAddress: wallet, sourceCode: vaultSource, contractName: "Vault", compilerVersion: COMPILER }))
      expect(noCode).toMatchObject({ _tag: "NotOkError", detail: `Unable to locate ContractCode at ${wallet.toLowerCase()}` })
    }))

  it.effect("verifyproxycontract → GUID → checkproxyverification names the implementation, or says why not", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const proxy = c.proxyContract.address.toLowerCase()
      const implementation = (yield* client.getsourcecode({ address: proxy }))[0]?.Implementation ?? ""
      expect(implementation).toMatch(/^0x[0-9a-f]{40}$/)

      const guid = yield* client.verifyproxycontract({ address: proxy })
      expect(yield* client.checkproxyverification({ guid })).toBe(
        `The proxy's (${proxy}) implementation contract is found at ${implementation} and is successfully updated.`
      )
      const wrong = yield* client.verifyproxycontract({ address: proxy, expectedImplementation: c.erc20[0]?.address ?? "" })
      expect(yield* Effect.flip(client.checkproxyverification({ guid: wrong }))).toMatchObject({
        _tag: "NotOkError",
        detail: "A corresponding implementation contract was unfortunately not detected for the proxy address."
      })
      const wallet = (c.wallets[1]?.address ?? "").toLowerCase()
      const unverified = yield* client.verifyproxycontract({ address: wallet })
      expect(yield* Effect.flip(client.checkproxyverification({ guid: unverified }))).toMatchObject({
        _tag: "NotOkError",
        detail: `The proxy contract at ${wallet} does not seem to be verified. Please verify and publish the contract source before proceeding with this proxy verification.`
      })
      expect(yield* Effect.flip(client.checkproxyverification({ guid: "x".repeat(50) }))).toMatchObject({ _tag: "InvalidInputError" })
    }))

  it.effect("ethsupply2 holds ethsupply's supply and its parts", () =>
    Effect.gen(function*() {
      const client = yield* Client.ExplorerClient
      const supply = yield* client.ethsupply()
      const parts = yield* client.ethsupply2()
      expect(parts.EthSupply).toBe(supply)
      for (const part of [parts.Eth2Staking, parts.BurntFees, parts.WithdrawnTotal]) {
        expect(part).toBeGreaterThan(0n)
        expect(part).toBeLessThan(supply)
      }
    }))

  it.effect("getblocktxnscount agrees with the block's transactions, their internal transactions and the token transfers of getLogs", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* Client.ExplorerClient
      const c = sim.dataset.chain(1)
      const standardOf = new Map<string, "erc20" | "erc721" | "erc1155">([
        ...c.erc20.map((t) => [t.address.toLowerCase(), "erc20"] as const),
        ...c.erc721.map((t) => [t.address.toLowerCase(), "erc721"] as const),
        ...c.erc1155.map((t) => [t.address.toLowerCase(), "erc1155"] as const)
      ])
      const blocks = [...new Set((yield* client.txlist({ address: c.deployer.address })).map((t) => t.blockNumber))].slice(0, 12)
      let transfers = 0
      for (const b of blocks) {
        const counts = yield* client.getblocktxnscount({ blockNo: b })
        const hex = "0x" + b.toString(16)
        expect(counts.block).toBe(b)
        expect(counts.txsCount).toBe(yield* client.eth_getBlockTransactionCountByNumber({ tag: hex }))
        const block = yield* client.eth_getBlockByNumber({ tag: hex })
        let internal = 0
        for (const h of block?.transactions ?? []) {
          internal += (yield* client.txlistinternal({ txHash: typeof h === "string" ? h : h.hash })).length
        }
        expect(counts.internalTxsCount).toBe(internal)
        const logs = yield* client.getLogs({ topic0: TRANSFER, fromBlock: b, toBlock: b })
        const single = yield* client.getLogs({ topic0: "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62", fromBlock: b, toBlock: b })
        const count = (s: string) => [...logs, ...single].filter((l) => standardOf.get(l.address.toLowerCase()) === s).length
        expect([counts.erc20TransfersCount, counts.erc721TransfersCount, counts.erc1155TransfersCount]).toEqual([count("erc20"), count("erc721"), count("erc1155")])
        transfers += counts.erc20TransfersCount + counts.erc721TransfersCount + counts.erc1155TransfersCount
      }
      // the deployer's blocks mint tokens: the walk saw transfers
      expect(transfers).toBeGreaterThan(0)
    }))
})
