/**
 * Crash safety for real: a child process exporting slowly is killed with SIGKILL after it has
 * committed a checkpoint and (normally) written more rows past it; resuming must end with a file byte-identical
 * to an uninterrupted export of the same source.
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Checkpoint from "../../src/sinks/Checkpoint.js"
import * as Exports from "../../src/Exports.js"
import { rowsBetween, syntheticSource } from "./fixtures/synthetic.js"

const childScript = fileURLToPath(new URL("./fixtures/export-child.ts", import.meta.url))

// The child needs ≥ 3 s (300 batches × 10 ms) to finish: far longer than it takes to reach a checkpoint
// (block 100 after ~0.5 s); a loaded machine only makes the child slower.
const toBlock = 600
const dataBytes = 3000
const blocksPerBatch = 2

const exited = (child: ChildProcess) =>
  Effect.async<number | null>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
  })

describe("SIGKILL mid-export", () => {
  it.scopedLive("resume ends with a file byte-identical to an uninterrupted export", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const folder = yield* fs.makeTempDirectoryScoped({ prefix: "sinks-kill-" })
      const killed = path.join(folder, "killed.csv")
      const temp = path.join(folder, ".killed.csv.partial")

      let stderr = ""
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const c = spawn(
            process.execPath,
            ["--import", "tsx", childScript, killed, String(toBlock), "10", "250", String(dataBytes), String(blocksPerBatch)],
            { stdio: ["ignore", "ignore", "pipe"] }
          )
          c.stderr?.on("data", (d: Buffer) => void (stderr += d.toString()))
          return c
        }),
        (c) => Effect.sync(() => void c.kill("SIGKILL"))
      )

      // Wait for a checkpoint of real progress with bytes written past it, then kill.
      const decodeState = Schema.decodeUnknownOption(Schema.parseJson(Checkpoint.State))
      const poll: Effect.Effect<Checkpoint.State, string> = Effect.gen(function*() {
        if (child.exitCode !== null) return yield* Effect.fail(`the child ended before it was killed: ${stderr}`)
        const text = yield* fs.readFileString(Checkpoint.statePath(killed)).pipe(Effect.option)
        const state = Option.flatMap(text, decodeState)
        const size = yield* fs.stat(temp).pipe(Effect.map((i) => Number(i.size)), Effect.option)
        if (Option.isSome(state) && state.value.phase === "writing") {
          const ct = state.value.completeThrough
          const unchecked = Option.isSome(size) && size.value > state.value.bytes
          // Normally rows past the checkpoint are on disk by block 100; a very slow machine may flush less
          // often, so past block 300 kill anyway (the torn-tail cut is also tested in-process).
          if ((ct >= 100 && unchecked) || ct >= 300) return state.value
        }
        return yield* Effect.sleep("10 millis").pipe(Effect.zipRight(poll))
      })
      yield* poll.pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => `no checkpoint in time: ${stderr}` }))
      child.kill("SIGKILL")
      yield* exited(child)
      expect(child.signalCode).toBe("SIGKILL")

      // Killed: no output file, a checkpoint of an unfinished export.
      expect(yield* fs.exists(killed)).toBe(false)
      const state = Option.getOrThrow(decodeState(yield* fs.readFileString(Checkpoint.statePath(killed))))
      expect(state.phase).toBe("writing")
      expect(state.completeThrough).toBeLessThan(toBlock)

      const source = syntheticSource(toBlock + 100, { toBlock, dataBytes, blocksPerBatch })
      const resumed = yield* Exports.toFile(source, { out: killed, resume: true, quiet: true })
      expect(resumed.mode).toBe("resumed")
      expect(resumed.rowsWritten).toBe(rowsBetween(state.completeThrough + 1, toBlock).length)

      const reference = path.join(folder, "reference.csv")
      const uninterrupted = yield* Exports.toFile(source, { out: reference, quiet: true })
      const a = yield* fs.readFile(killed)
      const b = yield* fs.readFile(reference)
      expect(a.byteLength).toBe(b.byteLength)
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true)
      expect(resumed.manifest.contentHash).toBe(uninterrupted.manifest.contentHash)
      expect(resumed.manifest.rows).toBe(rowsBetween(1, toBlock).length)
      expect(yield* fs.exists(temp)).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)), 60_000)
})
