/**
 * The density-shape data sets: each set holds the rows per block its shape claims (sparse, dense,
 * bursty, hot, window) at the size it claims (seconds of a plan's budget), the same rows on every build,
 * described without being built; and the simulator serves them exactly: an export of a set and a
 * collected `Streams.logs` of it hold exactly the oracle's rows, on exactly the blocks the data set
 * lays out.
 */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Redacted, Schema, Stream } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import * as Client from "../../src/ExplorerClient.js"
import * as Exports from "../../src/Exports.js"
import * as Schemas from "../../src/schemas/index.js"
import { Dataset } from "../../src/simulator/dataset.js"
import * as Simulator from "../../src/simulator/index.js"
import { buildShape, type ShapePlanned, shapePlans, shapeSizes } from "../../src/simulator/shapes.js"
import * as Sources from "../../src/streams/Sources.js"
import * as Streams from "../../src/streams/Streams.js"

const SEED = 5
const chain = new Dataset(SEED, { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 }).chain(1)
const planned = [...chain.shapePlans().values()]
const rates = { free: 3, standard: 10, professional: 30 } as const

/** (block, rows) of every non-empty block, ascending. */
const blocksOf = (rows: Int32Array): Array<readonly [number, number]> => {
  const out: Array<[number, number]> = []
  for (let i = 0; i < rows.length; i++) {
    const last = out[out.length - 1]
    if (last !== undefined && last[0] === rows[i]) last[1]++
    else out.push([rows[i] as number, 1])
  }
  return out
}

/** Runs of consecutive non-empty blocks: [first block, blocks, rows]. */
const runsOf = (blocks: ReadonlyArray<readonly [number, number]>): Array<[number, number, number]> => {
  const runs: Array<[number, number, number]> = []
  for (const [b, n] of blocks) {
    const last = runs[runs.length - 1]
    if (last !== undefined && last[0] + last[1] === b) {
      last[1]++
      last[2] += n
    } else runs.push([b, 1, n])
  }
  return runs
}

/** The claims of each shape, on the rows per block of one built set. */
const checkShape = (p: ShapePlanned, rows: Int32Array) => {
  const span = p.toBlock - p.fromBlock + 1
  const blocks = blocksOf(rows)
  const counts = blocks.map(([, n]) => n)
  const between = (lo: number, hi: number) => counts.every((n) => n >= lo && n <= hi)
  switch (p.shape) {
    case "sparse": {
      // 1 log per 20 blocks unless the chain is too short for it; a Poisson process: few blocks of 3+.
      expect(rows.length / span).toBeLessThanOrEqual(Math.max(0.05, p.rows / 20_000_000) + 1e-9)
      expect(counts.filter((n) => n > 2).length / blocks.length).toBeLessThan(0.02)
      expect(counts.reduce((a, b) => Math.max(a, b), 0)).toBeLessThanOrEqual(p.maxRowsPerBlock)
      // Spread end to end: every tenth of the range holds between 5% and 15% of the rows.
      for (let k = 0; k < 10; k++) {
        const lo = p.fromBlock + Math.floor((span * k) / 10)
        const hi = p.fromBlock + Math.floor((span * (k + 1)) / 10)
        const inTenth = counts.filter((_, j) => (blocks[j]?.[0] as number) >= lo && (blocks[j]?.[0] as number) < hi).reduce((a, b) => a + b, 0)
        expect(inTenth / rows.length).toBeGreaterThan(0.05)
        expect(inTenth / rows.length).toBeLessThan(0.15)
      }
      break
    }
    case "dense":
      // Every block of the range, 5–35 logs (mean 20).
      expect(blocks.length).toBe(span)
      expect(between(5, 35)).toBe(true)
      expect(Math.abs(rows.length / span - 20)).toBeLessThan(1)
      break
    case "bursty": {
      // Quiet blocks of 1–3 logs (2% of the rows), burst blocks of 100..cap in runs of at most 12.
      expect(counts.every((n) => (n >= 1 && n <= 3) || (n >= 100 && n <= p.maxRowsPerBlock))).toBe(true)
      const quiet = counts.filter((n) => n <= 3).reduce((a, b) => a + b, 0)
      expect(Math.abs(quiet / rows.length - 0.02)).toBeLessThan(0.002)
      const burstRuns = runsOf(blocks.filter(([, n]) => n >= 100))
      expect(burstRuns.every(([, len]) => len <= 12)).toBe(true)
      expect(burstRuns.length).toBeGreaterThan(0)
      // About 1 log per 10 blocks where the chain is long enough.
      if (span < 20_000_000) expect(rows.length / span).toBeCloseTo(0.1, 2)
      break
    }
    case "hot": {
      // One run of consecutive blocks of 50–150 logs holds 90% of the rows; around it single logs.
      const hot = runsOf(blocks.filter(([, n]) => n > 1))
      expect(hot.length).toBe(1)
      const [start, len, inHot] = hot[0] as [number, number, number]
      expect(Math.abs(inHot / rows.length - 0.9)).toBeLessThan(0.001)
      expect(blocks.filter(([b]) => b >= start && b < start + len).every(([, n]) => n >= 50 && n <= 150)).toBe(true)
      const quietSpan = span - len
      expect((rows.length - inHot) / quietSpan).toBeLessThanOrEqual(Math.max(0.0101, (rows.length - inHot) / 19_000_000))
      // The hot range is inside the quiet one: quiet logs on both sides.
      expect(blocks.some(([b]) => b < start)).toBe(true)
      expect(blocks.some(([b]) => b >= start + len)).toBe(true)
      break
    }
    case "window": {
      // Blocks of 900..cap logs (cap 1,500, or 999 under the free plan's 1,000-row window), 1–40 blocks apart.
      expect(p.maxRowsPerBlock).toBe(p.plan === "free" ? 999 : 1_500)
      expect(between(900, p.maxRowsPerBlock)).toBe(true)
      for (let j = 1; j < blocks.length; j++) {
        const gap = (blocks[j]?.[0] as number) - (blocks[j - 1]?.[0] as number)
        expect(gap >= 1 && gap <= 40).toBe(true)
      }
      break
    }
  }
}

describe("density-shape data sets", () => {
  it("lists every shape × plan × size, each at about its seconds of the plan's budget", () => {
    const names = chain.describe().shapes.map((s) => s.name)
    expect(names).toHaveLength(5 * 3 * 4)
    expect(names).toContain("bursty-standard-5s")
    for (const s of chain.describe().shapes) {
      const ideal = shapeSizes[s.size] * rates[s.plan] * 1_000
      expect(Math.abs(s.rows - ideal) / ideal).toBeLessThan(0.002)
      expect(s.fromBlock).toBeLessThanOrEqual(s.toBlock)
      expect(s.toBlock).toBeLessThan(chain.profile.latestBlock)
    }
    expect(new Set(chain.describe().shapes.map((s) => s.address)).size).toBe(60)
  })

  // Every set of 2 s, 5 s and 30 s, and the 5 min sets of the free plan (the biggest take seconds to build).
  const checked = planned.filter((p) => p.size !== "5m" || p.plan === "free")
  it.each(checked.map((p) => [p.name, p] as const))("%s has the density its shape claims", (_name, p) => {
    const rows = buildShape(p)
    expect(rows.length).toBe(p.rows)
    for (let i = 1; i < rows.length; i++) if ((rows[i] as number) < (rows[i - 1] as number)) throw new Error(`not sorted at ${i}`)
    expect(rows[0]).toBeGreaterThanOrEqual(p.fromBlock)
    expect(rows[rows.length - 1]).toBeLessThanOrEqual(p.toBlock)
    checkShape(p, rows)
  })

  it("builds the same rows every time, and other rows for another seed", () => {
    for (const name of ["bursty-standard-5s", "hot-free-2s", "sparse-professional-2s"]) {
      const p = planned.find((x) => x.name === name) as ShapePlanned
      expect(buildShape(p)).toEqual(buildShape({ ...p }))
      const other = new Dataset(SEED + 1, { chains: [1] }).chain(1).shapePlans()
      const q = [...other.values()].find((x) => x.name === name) as ShapePlanned
      expect(q.address).not.toBe(p.address)
      expect(buildShape(q)).not.toEqual(buildShape(p))
    }
  })

  it("describes the sets without building them", () => {
    const fresh = new Dataset(SEED, { chains: [1] }).chain(1)
    expect(fresh.describe().shapes).toHaveLength(60)
    expect((fresh as unknown as { shapeCache: Map<string, unknown> }).shapeCache.size).toBe(0)
  })

  it("a shape's plan sizes scale with the plan's rate", () => {
    for (const plan of shapePlans) {
      const s = chain.describe().shapes.find((x) => x.name === `dense-${plan}-2s`)
      expect(s?.rows).toBe(2 * rates[plan] * 1_000)
    }
  })
})

// ---- served exactly ---------------------------------------------------------------------------------------

const SimulatorLive = Simulator.layer({
  seed: SEED,
  enforceRateLimits: false,
  dailyCaps: false,
  dataset: { chains: [1], busyWalletTransactions: 0, heavyContractLogs: 0 }
})

const canonical = (record: unknown): string =>
  JSON.stringify(record, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v)

const toWire = Schema.encodeSync(Schemas.Log as unknown as Schema.Schema<unknown, unknown>)

/** Every free-plan set at 2 s, and a standard set whose blocks hold more than a page (up to 1,500 logs). */
const served = [...planned.filter((p) => p.plan === "free" && p.size === "2s").map((p) => p.name), "window-standard-2s"]

layer(Layer.mergeAll(SimulatorLive, NodeContext.layer), { timeout: "120 seconds", excludeTestServices: true })((it) => {
  describe("the simulator serves each shape exactly", () => {
    for (const name of served) {
      it.effect(`${name}: export and Stream hold the oracle's rows, on the data set's blocks`, () =>
        Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const s = sim.dataset.chain(1).shapes.find((x) => x.name === name)
          if (s === undefined) throw new Error(`no set ${name}`)
          const ClientLive = Client.layer({
            apiKey: Redacted.make(sim.demoKeys.professional ?? ""),
            baseUrl: sim.baseUrl,
            plan: "professional",
            rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000 }
          }).pipe(Layer.provide(NodeHttpClient.layerUndici))
          const query = { chainId: 1, address: s.address, fromBlock: s.fromBlock, toBlock: s.toBlock }
          const oracle = yield* sim.oracle({
            chainId: 1,
            module: "logs",
            action: "getLogs",
            params: { address: s.address, fromblock: s.fromBlock, toblock: s.toBlock }
          })
          expect(oracle).toHaveLength(s.rows)
          // The oracle's blocks are the data set's own layout.
          const p = planned.find((x) => x.name === name) as ShapePlanned
          const layout = buildShape(p)
          expect(oracle.map((r) => Number.parseInt(String((r as { blockNumber: string }).blockNumber), 16))).toEqual([...layout])

          const dir = mkdtempSync(path.join(tmpdir(), "explorer-etl-shapes-"))
          try {
            const out = path.join(dir, `${name}.jsonl`)
            const { fileRows, streamRows } = yield* Effect.gen(function*() {
              const source = yield* Sources.logs(query)
              const summary = yield* Exports.toFile(source, { out, quiet: true })
              expect(summary.rowsWritten).toBe(s.rows)
              const decode = Schema.decodeUnknownSync(Schema.parseJson(source.schema as unknown as Schema.Schema<unknown, unknown>))
              const fileRows = readFileSync(out, "utf8").split("\n").filter((l) => l !== "").map((l) => canonical(toWire(decode(l))))
              const streamRows = Chunk.toReadonlyArray(yield* Stream.runCollect(Streams.logs(query))).map((r) => canonical(toWire(r)))
              return { fileRows, streamRows }
            }).pipe(Effect.provide(ClientLive))
            const expected = oracle.map(canonical)
            expect(fileRows).toEqual(expected)
            expect(streamRows).toEqual(expected)
          } finally {
            rmSync(dir, { recursive: true, force: true })
          }
        }))
    }
  })
})
