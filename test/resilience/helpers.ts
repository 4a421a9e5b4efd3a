/**
 * Shared pieces of the fault-injection suites: made-up API keys (registered on the simulator with the
 * `keys` option, so the "no key anywhere" checks look for keys nobody else uses), a seeded RNG, the
 * planted rows, the client of a test, and the file an export must produce according to the oracle.
 */
import { Effect, Redacted, Schema } from "effect"
import * as Client from "../../src/ExplorerClient.js"
import type * as Plan from "../../src/Plan.js"
import * as Format from "../../src/sinks/Format.js"
import type * as Simulator from "../../src/simulator/index.js"

/** Made-up keys of the fault suites, one per plan they use (34 characters of [A-Z0-9], like real keys). */
export const keys = {
  free: "FAULTFREE7Q2W9E4R8T1Y6U3I5O0PAS1DF",
  standard: "FAULTSTD9K3J5H7G2F4D6S8A1Z3X5C7VB2",
  proplus: "FAULTPPLUS4M6N8B1V3C5X7Z9L2K4J6HG3"
} as const satisfies Partial<Record<Plan.Plan, string>>

/** Every key of {@link keys}, for the leak checks. */
export const allKeys: ReadonlyArray<string> = Object.values(keys)

/** The simulator's `keys` option registering {@link keys}. */
export const simulatorKeys: Readonly<Record<string, Plan.Plan>> = Object.fromEntries(
  Object.entries(keys).map(([plan, key]) => [key, plan as Plan.Plan])
)

/** mulberry32: a small seeded RNG in [0, 1). */
export const rng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Rows per block for a planted scenario: `blocks` blocks after `from` with gaps, each holding 1..`max`
 * rows (from a seeded RNG), and `dense` blocks of exactly that many rows appended.
 */
export const plantedBlocks = (
  seed: number,
  from: number,
  blocks: number,
  max: number,
  dense: ReadonlyArray<number> = []
): ReadonlyArray<readonly [number, number]> => {
  const next = rng(seed)
  const out: Array<readonly [number, number]> = []
  let block = from
  for (let i = 0; i < blocks; i++) {
    block += 1 + Math.floor(next() * 40)
    out.push([block, 1 + Math.floor(next() * max)])
    if (i === Math.floor(blocks / 2)) for (const n of dense) out.push([++block, n])
  }
  return out
}

/** Total rows of a scenario. */
export const rowsOf = (rowsPerBlock: ReadonlyArray<readonly [number, number]>): number =>
  rowsPerBlock.reduce((n, [, count]) => n + count, 0)

/**
 * The client of a fault test: a made-up key of the plan, fast retries (the schedule, not the wait, is
 * under test), no client-side rate limit worth the name (the simulator's windows are off; its forced
 * rate-limit answers are the faults), and a short pause after a rate-limit answer.
 */
export const clientLayer = (sim: Simulator.Simulator.Service, plan: keyof typeof keys) =>
  Client.layer({
    baseUrl: sim.baseUrl,
    apiKey: Redacted.make(keys[plan]),
    plan,
    retry: { baseDelay: "5 millis", maxDelay: "50 millis", times: 10 },
    rate: { callsPerSecond: 1_000, throttledPerSecond: 1_000, rateLimitPause: "20 millis" }
  })

/**
 * The file a perfect export writes: the oracle's wire records decoded with the API's record schema (as
 * the client decodes them), then written by the sinks' encoder with the file schema.
 */
export const expectedFile = <A, I>(
  records: ReadonlyArray<unknown>,
  wire: Schema.Schema.AnyNoContext,
  file: Schema.Schema<A, I, never>,
  format: Format.FileFormat
) =>
  Effect.gen(function*() {
    // The wire schema decodes to the records the file schema writes (Log → LogFileRow: the same values).
    const rows = (yield* Schema.decodeUnknown(Schema.Array(wire), { onExcessProperty: "preserve" })(records)) as ReadonlyArray<A>
    const encoder = yield* Format.encoder(file, { format })
    return encoder.header + (yield* encoder.encode(rows))
  })
