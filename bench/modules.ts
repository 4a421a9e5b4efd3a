/**
 * What a process holds before it exports anything: RSS and V8 heap after Node starts, after explorer-etl
 * loads (its modules import the Effect packages module by module: `effect/Effect`, `effect/Schema`, …),
 * and after the `effect` and `@effect/platform-node` indexes, which load every module of both packages
 * (what `import { Effect } from "effect"` in a program of your own adds). Run compiled
 * (bench/.compiled/bench/modules.js) with plain node.
 */
import { emit, round, rssMb } from "./lib.js"

const heapMb = (): number => process.memoryUsage().heapUsed / 1024 / 1024

const main = async () => {
  const steps: Array<{ readonly step: string; readonly rssMb: number; readonly heapMb: number }> = []
  const mark = (step: string) => steps.push({ step, rssMb: round(rssMb(), 1), heapMb: round(heapMb(), 1) })
  mark("node")
  await import("../src/index.js")
  mark("+ explorer-etl (deep imports of the Effect modules it uses)")
  await import("effect")
  mark("+ the effect index (every module)")
  await import("@effect/platform-node")
  mark("+ the @effect/platform-node index (every module)")
  return { steps }
}

main().then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
