/**
 * What a process holds before it exports anything: RSS and V8 heap after Node starts, then after each
 * layer of modules an explorer-etl program loads (the `effect` index, the `@effect/platform-node` index,
 * explorer-etl itself). Run compiled (dist/bench/modules.js) with plain node.
 */
import { emit, round, rssMb } from "./lib.js"

const heapMb = (): number => process.memoryUsage().heapUsed / 1024 / 1024

const main = async () => {
  const steps: Array<{ readonly step: string; readonly rssMb: number; readonly heapMb: number }> = []
  const mark = (step: string) => steps.push({ step, rssMb: round(rssMb(), 1), heapMb: round(heapMb(), 1) })
  mark("node")
  await import("effect")
  mark("+ effect (index: every module)")
  await import("@effect/platform-node")
  mark("+ @effect/platform-node (index)")
  await import("../src/index.js")
  mark("+ explorer-etl")
  return { steps }
}

main().then(emit, (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
