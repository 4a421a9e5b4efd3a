/**
 * Decoded events through the library against the simulator: `Sources.events` with an ABI fetched by
 * `Events.fetchAbi` (a proxy followed to its implementation) equals the oracle's logs decoded by hand
 * (from/to from the topics, value from the data), keeps every log its ABI cannot decode, checks the
 * event before any request, and `Events.cachedAbi` fetches once then reads its cache file.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer, Redacted, Stream, SubscriptionRef } from "effect"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AbiEvent, AbiParameters, Hash, Hex } from "ox"
import * as Client from "../../src/ExplorerClient.js"
import * as Format from "../../src/sinks/Format.js"
import * as Simulator from "../../src/simulator/index.js"
import * as Events from "../../src/streams/Events.js"
import * as Progress from "../../src/streams/Progress.js"
import * as Sources from "../../src/streams/Sources.js"
import * as Streams from "../../src/streams/Streams.js"

const CHAIN = 1

const SimulatorLive = Simulator.layer({
  seed: 11,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: { chains: [CHAIN], busyWalletTransactions: 0, heavyContractLogs: 0 }
})

const ClientLive = Layer.unwrapEffect(
  Effect.map(Simulator.Simulator, (sim) =>
    Client.layer({
      baseUrl: sim.baseUrl,
      apiKey: Redacted.make(sim.demoKeys.standard),
      plan: "standard",
      defaultChainId: CHAIN,
      rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 }
    }))
).pipe(Layer.provide(NodeHttpClient.layerUndici))

const Live = Layer.provideMerge(Layer.merge(ClientLive, NodeContext.layer), SimulatorLive)

type Wire = Readonly<Record<string, unknown>>

/** The oracle's getLogs records of a contract (wire form: hex numbers). */
const oracleLogs = (sim: Simulator.Simulator.Service, address: string, topic0?: string) =>
  Effect.orDie(sim.oracle({
    chainId: CHAIN,
    module: "logs",
    action: "getLogs",
    params: { address, fromBlock: 0, toBlock: 99_999_999, ...(topic0 === undefined ? {} : { topic0 }) }
  }))

const hexNumber = (text: unknown): number => (text === "0x" ? 0 : Number(BigInt(text as string)))
/** The address in a 32-byte topic. */
const topicAddress = (topic: string): string => `0x${topic.slice(26)}`.toLowerCase()

const erc20Abi = [
  { type: "event", name: "Transfer", anonymous: false, inputs: [{ name: "from", type: "address", indexed: true }, { name: "to", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] },
  { type: "event", name: "Approval", anonymous: false, inputs: [{ name: "owner", type: "address", indexed: true }, { name: "spender", type: "address", indexed: true }, { name: "value", type: "uint256", indexed: false }] }
]

layer(Live, { timeout: "120 seconds", excludeTestServices: true })("events", (it) => {
  it.effect("an ERC-20's Transfer events, ABI fetched through its proxy, equal the oracle's Transfer logs decoded by hand", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const token = sim.dataset.chain(CHAIN).proxyToken
      const fetched = yield* Events.fetchAbi({ address: token.address })
      expect(fetched.implementation).toBe(token.implementation.toLowerCase())
      const source = yield* Sources.events({ address: token.address, abi: fetched.abi, event: "Transfer" })
      expect(source.query).toMatchObject({ event: "Transfer(address indexed from, address indexed to, uint256 value)" })
      const rows = yield* Stream.runCollect(Streams.fromSource(source)).pipe(Effect.map((c) => [...c]))
      const expected = (yield* oracleLogs(sim, token.address, Simulator.TRANSFER_TOPIC)) as ReadonlyArray<Wire>
      const twoIndexed = expected.filter((l) => (l.topics as ReadonlyArray<string>).length === 3)
      expect(twoIndexed.length).toBeGreaterThan(4)
      // The ERC-721-shaped Transfer (three indexed topics) has the same topic0: kept, not decoded.
      expect(expected.length).toBe(twoIndexed.length + 1)
      expect(rows.length).toBe(expected.length)
      expect(rows.filter((r) => r.event === "Transfer").map((r) => ({
        blockNumber: r.blockNumber,
        logIndex: r.logIndex,
        transactionHash: r.transactionHash,
        from: r.from,
        to: r.to,
        value: r.value
      }))).toEqual(twoIndexed.map((l) => {
        const topics = l.topics as ReadonlyArray<string>
        return {
          blockNumber: hexNumber(l.blockNumber),
          logIndex: hexNumber(l.logIndex),
          transactionHash: l.transactionHash,
          from: topicAddress(topics[1] as string),
          to: topicAddress(topics[2] as string),
          value: BigInt(l.data as string)
        }
      }))
      const odd = rows.filter((r) => r.event === "")
      expect(odd).toHaveLength(1)
      expect(odd[0]?.topics).toHaveLength(4)
      expect(odd[0]?.data).toBe("0x")
      expect(yield* source.counts).toEqual({ decoded: twoIndexed.length, undecoded: 1 })
    }))

  it.effect("without an event every log is kept: the ABI's events decoded into args, the others raw with an empty event", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const token = sim.dataset.chain(CHAIN).proxyToken
      const { abi } = yield* Events.fetchAbi({ address: token.address })
      const source = yield* Sources.events({ address: token.address, abi })
      const progress = yield* Progress.make("events", CHAIN)
      const rows = yield* Stream.runCollect(Streams.fromSource(source, { progress })).pipe(Effect.map((c) => [...c]))
      const expected = (yield* oracleLogs(sim, token.address)) as ReadonlyArray<Wire>
      expect(rows.map((r) => [r.transactionHash, r.logIndex])).toEqual(expected.map((l) => [l.transactionHash, hexNumber(l.logIndex)]))
      const names = rows.map((r) => r.event)
      expect(new Set(names)).toEqual(new Set(["Upgraded", "Transfer", "Approval", ""]))
      const upgraded = rows.find((r) => r.event === "Upgraded")
      expect(upgraded?.args).toEqual({ implementation: token.implementation.toLowerCase() })
      const approval = rows.find((r) => r.event === "Approval")
      expect(approval?.args).toMatchObject({ value: (10n ** 24n).toString() })
      expect(approval?.topics).toBeUndefined()
      const raw = rows.filter((r) => r.event === "")
      expect(raw.map((r) => (r.topics as ReadonlyArray<string>)[0])).toEqual([Simulator.TRANSFER_TOPIC, "0x62e78cea01bee320cd4e420270b5ea74000d11b0c9f74754ebdbfc544b05a258"])
      const p = yield* SubscriptionRef.get(progress)
      expect(p).toMatchObject({ decodedRows: rows.length - 2, undecodedRows: 2 })
    }))

  it.effect("the decoder as a Stream operator: logs of another standard read with an ERC-20 ABI are kept undecoded", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const punks = sim.dataset.chain(CHAIN).erc721[0]?.address as string
      const decoder = yield* Events.decoder(JSON.stringify(erc20Abi), { event: "Transfer" })
      const rows = yield* Streams.logs({ address: punks, topic0: decoder.topic0 }).pipe(Events.decodeLogs(decoder), Stream.runCollect)
      expect(rows.length).toBeGreaterThan(0)
      expect([...rows].every((r) => r.event === "" && (r.topics as ReadonlyArray<string>).length === 4)).toBe(true)
    }))

  it.effect("an unknown event is refused before any request, with the closest name", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const before = yield* sim.stats
      const error = yield* Effect.flip(Sources.events({ address: sim.dataset.chain(CHAIN).erc20[0]?.address, abi: erc20Abi, event: "Transfr" }))
      expect(error._tag).toBe("InvalidInputError")
      expect(error.message).toContain("did you mean Transfer?")
      expect(error.message).toContain("Approval, Transfer")
      expect((yield* sim.stats).requests).toBe(before.requests)
    }))

  it.effect("a full signature needs no ABI; a topic0 other than its own is refused", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const susd = sim.dataset.chain(CHAIN).erc20[0]?.address as string
      const source = yield* Sources.events({ address: susd, abi: [], event: "Transfer(address indexed src, address indexed dst, uint256 wad)", toBlock: sim.dataset.chain(CHAIN).activity.toBlock })
      const rows = yield* Stream.runCollect(Streams.fromSource(source))
      const expected = yield* oracleLogs(sim, susd, Simulator.TRANSFER_TOPIC)
      expect(rows.length).toBe(expected.length)
      expect([...rows].every((r) => r.event === "Transfer" && typeof r.wad === "bigint" && typeof r.src === "string")).toBe(true)
      const error = yield* Effect.flip(Sources.events({ address: susd, abi: erc20Abi, event: "Transfer", topic0: Simulator.APPROVAL_TOPIC }))
      expect(error.message).toContain("topic0")
    }))

  it.effect("cachedAbi fetches once, then reads its file", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const dir = mkdtempSync(join(tmpdir(), "abi-cache-"))
      try {
        const token = sim.dataset.chain(CHAIN).proxyToken
        const first = yield* Events.cachedAbi({ address: token.address, dir })
        expect(readdirSync(join(dir, String(CHAIN)))).toEqual([`${token.address.toLowerCase()}.json`])
        const before = yield* sim.stats
        const second = yield* Events.cachedAbi({ address: token.address, dir })
        expect((yield* sim.stats).requests).toBe(before.requests)
        expect(second).toEqual(first)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})

describe("the decoder", () => {
  const maker = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01"
  const other = "0x00000000000000000000000000000000000000Aa"
  const order = AbiEvent.from(
    "event Order(address indexed maker, string indexed tag, int24 tick, bool ok, bytes payload, string note, uint256[] amounts, (address token, uint128 amount) leg, uint8, uint64 blockNumber)"
  )
  const nonIndexed = order.inputs.filter((i) => !("indexed" in i && i.indexed === true))
  const log = {
    address: "0x1111111111111111111111111111111111111111",
    topics: [AbiEvent.getSelector(order), `0x${"0".repeat(24)}${maker.slice(2).toLowerCase()}`, Hash.keccak256(Hex.fromString("spring"))],
    data: AbiParameters.encode(nonIndexed, [-5, true, "0xdeadbeef", "=hi, there", [1n, 2n], { token: other, amount: 3n }, 7, 9n] as never),
    blockNumber: 10,
    timeStamp: 1_700_000_000,
    transactionHash: `0x${"ab".repeat(32)}`,
    logIndex: 4
  }

  it.effect("one typed column per argument: exact integers, lower-case addresses, JSON values, hashes of indexed dynamic values", () =>
    Effect.gen(function*() {
      const decoder = yield* Events.decoder([order], { event: "Order" })
      expect(decoder.arguments.map((a) => a.column)).toEqual(["maker", "tag", "tick", "ok", "payload", "note", "amounts", "leg", "arg8", "arg9"])
      const row = decoder.decode(log)
      expect(row).toEqual({
        blockNumber: 10,
        timeStamp: 1_700_000_000,
        transactionHash: log.transactionHash,
        logIndex: 4,
        address: log.address,
        event: "Order",
        maker: maker.toLowerCase(),
        tag: Hash.keccak256(Hex.fromString("spring")),
        tick: -5n,
        ok: true,
        payload: "0xdeadbeef",
        note: "=hi, there",
        amounts: ["1", "2"],
        leg: { token: other.toLowerCase(), amount: "3" },
        arg8: 7n,
        arg9: 9n
      })
      const csv = yield* Format.encoder(decoder.schema, { format: "csv" })
      expect(csv.header).toBe(
        "blockNumber,timeStamp,transactionHash,logIndex,address,event,maker,tag,tick,ok,payload,note,amounts,leg,arg8,arg9,topic0,topic1,topic2,topic3,data\n"
      )
      const line = yield* csv.encode([row])
      expect(line).toContain(`,${Hash.keccak256(Hex.fromString("spring"))},-5,true,0xdeadbeef,"'=hi, there","[""1"",""2""]","{""token"":""${other.toLowerCase()}"",""amount"":""3""}",7,9,,,,,\n`)
      const jsonl = yield* Format.encoder(decoder.schema, { format: "jsonl" })
      expect(JSON.parse(yield* jsonl.encode([row]))).toMatchObject({ tick: "-5", ok: true, amounts: ["1", "2"], leg: { amount: "3" }, arg8: "7" })
    }))

  it.effect("a log whose topics or data do not fit the event is kept raw, never dropped", () =>
    Effect.gen(function*() {
      const decoder = yield* Events.decoder([order])
      const cut = { ...log, data: log.data.slice(0, 66) }
      const extra = { ...log, topics: [...log.topics, `0x${"0".repeat(64)}`] }
      const unknown = { ...log, topics: [`0x${"1".repeat(64)}`] }
      for (const bad of [cut, extra, unknown]) {
        expect(decoder.decode(bad)).toEqual({ ...decoder.decode({ ...bad, topics: [] }), topics: bad.topics, data: bad.data })
        expect(decoder.decode(bad).event).toBe("")
      }
      expect(decoder.decode(log)).toMatchObject({ event: "Order", args: { tick: "-5", arg8: "7", leg: { amount: "3" } } })
    }))

  it.effect("an overloaded name asks for the full signature; an ABI that is not one is refused", () =>
    Effect.gen(function*() {
      const twice = [AbiEvent.from("event Moved(address a)"), AbiEvent.from("event Moved(address a, uint256 b)")]
      const error = yield* Effect.flip(Events.decoder(twice, { event: "Moved" }))
      expect(error.message).toContain(`"Moved(address a, uint256 b)"`)
      const chosen = yield* Events.decoder(twice, { event: "Moved(address a, uint256 b)" })
      expect(chosen.arguments.map((a) => a.column)).toEqual(["a", "b"])
      expect((yield* Effect.flip(Events.decoder("{not json"))).message).toContain("not JSON")
      // A merged ABI listing one event twice (a proxy's and its implementation's) is not ambiguous.
      const merged = yield* Events.decoder([...twice.slice(0, 1), ...twice.slice(0, 1)], { event: "Moved" })
      expect(merged.signature).toBe("Moved(address a)")
      // ERC-20 and ERC-721 Transfer in one ABI: each log decodes by the one its topics fit.
      const both = yield* Events.decoder([
        AbiEvent.from("event Transfer(address indexed from, address indexed to, uint256 value)"),
        AbiEvent.from("event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)")
      ])
      const transfer = { ...log, topics: [AbiEvent.getSelector("event Transfer(address indexed from, address indexed to, uint256 value)"), log.topics[1] as string, log.topics[1] as string] }
      expect(both.decode({ ...transfer, data: `0x${"0".repeat(63)}5` }).args).toMatchObject({ value: "5" })
      expect(both.decode({ ...transfer, topics: [...transfer.topics, `0x${"0".repeat(63)}7`], data: "0x" }).args).toMatchObject({ tokenId: "7" })
    }))

  it.effect("an event chosen by its topic0: the ABI's event of that selector; none, or two, are refused", () =>
    Effect.gen(function*() {
      const transferTopic = AbiEvent.getSelector("event Transfer(address indexed from, address indexed to, uint256 value)")
      const byTopic = yield* Events.decoder(erc20Abi, { event: transferTopic.toUpperCase().replace("0X", "0x") })
      expect(byTopic.signature).toBe("Transfer(address indexed from, address indexed to, uint256 value)")
      expect(byTopic.topic0).toBe(transferTopic.toLowerCase())
      expect(byTopic.arguments.map((a) => a.column)).toEqual(["from", "to", "value"])
      const none = yield* Effect.flip(Events.decoder(erc20Abi, { event: `0x${"ab".repeat(32)}` }))
      expect(none.message).toContain("no event of topic0")
      const both = [
        AbiEvent.from("event Transfer(address indexed from, address indexed to, uint256 value)"),
        AbiEvent.from("event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)")
      ]
      expect((yield* Effect.flip(Events.decoder(both, { event: transferTopic }))).message).toContain("give the full signature")
    }))
})
