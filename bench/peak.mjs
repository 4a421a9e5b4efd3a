// Imported (node --import) by the bench into a process it measures: at exit, the process's peak RSS
// (VmHWM) goes to the file BENCH_PEAK_FILE names. How the bench reads the real CLI's peak, which prints
// nothing of it.
import { appendFileSync, readFileSync } from "node:fs"

const file = process.env.BENCH_PEAK_FILE
if (file !== undefined) {
  process.on("exit", () => {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? Number.NaN)
    appendFileSync(file, `${kb / 1024}\n`)
  })
}
