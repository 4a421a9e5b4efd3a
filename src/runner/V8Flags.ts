/**
 * The V8 flags the `explorer-etl` command set at its start (bin/v8-settings.js), set again. Starting a
 * thread with an isolate of its own sets V8's flags back to those of the command line — a decoding
 * worker (src/internal/workerPool.ts), and tsx's module hooks, which `module.register` runs on a thread
 * of their own (`explorer-etl run` of a `.ts` pipeline) — and the main thread's young generation, kept
 * at its starting size by `--semi-space-growth-factor=1`, then grew to V8's maximum, 2 × 16 MB: the
 * CLI's peak RSS with one decoding worker was 255–266 MB, 231–243 MB with the flags set again, once the
 * thread is up (transactions in 10,000-row pages). Measured: set again right after `new Worker` they
 * were still reset; once the worker is online, they hold.
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
