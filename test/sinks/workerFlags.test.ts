/**
 * The CLI's V8 settings (bin/v8-settings.js) hold once another thread has started in its process. A
 * new isolate's start sets V8's young-generation growth factor back to 2, and the main thread's young
 * generation, which `--semi-space-growth-factor=1` keeps at its starting size, grew to V8's maximum
 * (32 MB): with a decoding worker the CLI's peak RSS was 255–266 MB, 231–243 MB with the flags set
 * again (src/V8Flags.ts); tsx's module hooks, on a thread of their own, did the same to every
 * `explorer-etl run` of a `.ts` pipeline. Each case makes garbage of which a little survives, the kind
 * that makes V8 grow a young generation, once the thread is up; with V8's defaults
 * (EXPLORER_ETL_V8_DEFAULTS=1) the same garbage does grow it, so each test can fail.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..", "..")
// Inside the checkout (git-ignored), where the probes' imports resolve ("effect", "explorer-etl").
const dir = mkdtempSync(join(root, ".tmp-worker-flags-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const bin = join(root, "bin", "explorer-etl.js")
// dist/ as the CLI runs it (the bin rebuilds it when a source is newer).
beforeAll(() => void execFileSync(process.execPath, [bin, "--version"], { cwd: root, timeout: 300_000 }), 300_000)

/** Garbage of which a little survives, then the young generation's size, as a module's source. */
const garbage = `
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? Number.NaN
const kept = []
const garbage = () => {
  for (let i = 0; i < 2_000_000; i++) {
    const a = new Array(100).fill(i)
    if (i % 50 === 0) kept.push(a)
    if (kept.length > 20_000) kept.splice(0, 10_000)
  }
}
`

interface Sizes {
  readonly before: number
  readonly after: number
}

describe("the CLI's V8 settings once another thread started", () => {
  // (The decoding workers set them again too, src/internal/workerPool.ts: a probe of a pool alone did not
  // make the main thread's young generation grow reliably without it, so no test stands on it.)
  it("explorer-etl run of a .ts pipeline (tsx's hooks thread): the young generation keeps its starting size", () => {
    const folder = join(dir, "pipeline")
    mkdirSync(folder)
    const sizes = join(folder, "sizes.json")
    writeFileSync(join(folder, "probe.config.json"), "{}\n")
    writeFileSync(join(folder, "probe.ts"), `
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Pipeline from "explorer-etl/pipeline"
import { writeFileSync } from "node:fs"
import { getHeapSpaceStatistics } from "node:v8"
${garbage}
export default Pipeline.make({
  name: "probe",
  description: "the young generation's size, before and after garbage",
  config: Schema.Struct({}),
  configFile: new URL("./probe.config.json", import.meta.url),
  demoConfig: () => ({}),
  run: () => Effect.sync(() => {
    const before = newSpace()
    garbage()
    writeFileSync(${JSON.stringify(sizes)}, JSON.stringify({ before, after: newSpace() }))
    return []
  })
})
`)
    const run = (env: Readonly<Record<string, string>>): Sizes => {
      rmSync(sizes, { force: true })
      execFileSync(process.execPath, [bin, "run", join(folder, "probe.ts"), "--simulator", "--no-durable", "--out-dir", join(folder, "out")], {
        cwd: root,
        env: { ...process.env, ...env, NO_COLOR: "1" },
        encoding: "utf8",
        timeout: 120_000
      })
      return JSON.parse(readFileSync(sizes, "utf8")) as Sizes
    }
    const held = run({})
    expect(held.after).toBe(held.before)
    // With V8's defaults the CLI's own work has grown it already, the pipeline's garbage or not.
    const defaults = run({ EXPLORER_ETL_V8_DEFAULTS: "1" })
    expect(defaults.after).toBeGreaterThan(held.after)
  }, 300_000)
})
