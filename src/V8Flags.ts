/**
 * The V8 flags the `explorer-etl` command set at its start (bin/v8-settings.js), set again. V8 sets
 * `--semi-space-growth-factor` back to 2 whenever it configures a new isolate's heap (its
 * `Heap::ConfigureHeap` raises the process-wide flag to at least 2, which is also why the flag given on
 * node's command line does nothing), and a thread with an isolate of its own is one: a decoding worker
 * (src/internal/workerPool.ts), and tsx's module hooks, which `module.register` runs on a thread of
 * their own (`explorer-etl run` of a `.ts` pipeline). The main thread's young generation, kept at its
 * starting size by that flag, then grew to V8's maximum, 2 × 16 MB: the CLI's peak RSS with one
 * decoding worker was 255–266 MB, 231–243 MB with the flags set again (transactions in 10,000-row
 * pages). They are set again once the thread is up, before anything else runs: at a worker's first
 * answer (the main thread reads it before the page's caller resumes) and once a `.ts` pipeline has
 * loaded through tsx's hooks.
 *
 * A program of a library user has its own flags: without the CLI's settings (nothing recorded) this
 * sets nothing.
 */
import { setFlagsFromString } from "node:v8"

/** Where bin/v8-settings.js records the flags it set. */
const KEY = Symbol.for("explorer-etl/v8-flags")

/** Sets again each flag bin/v8-settings.js set (none outside the CLI). */
export const restoreCliFlags = (): void => {
  const flags: unknown = (globalThis as Record<symbol, unknown>)[KEY]
  if (!Array.isArray(flags)) return
  for (const flag of flags) if (typeof flag === "string") setFlagsFromString(flag)
}
