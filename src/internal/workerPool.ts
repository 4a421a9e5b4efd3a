/**
 * The client's decoding workers: a pool of worker threads (node:worker_threads) that turn a list
 * answer's bytes into a file's lines (linesWorker.ts), so that parsing, checking and encoding a page
 * take cores other than the main thread's, which keeps the network, the limiter, the cursor and the
 * writes. The bytes go to a worker and the lines come back as transferred buffers, never copied by
 * structured clone. A job goes to the worker with the fewest jobs; each caller waits for its own page,
 * so the pages stay in the order the engine asks for them. The pools are the process's, one per size
 * ({@link shared}: every client and export of the process that asks for that many workers shares it);
 * workers start at the first job that finds none free and stop once the pool has been idle for
 * {@link IDLE_MILLIS}; an idle worker never keeps the process alive.
 */
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { restoreCliFlags } from "../V8Flags.js"

/** What the main thread asks of a worker: one answer's bytes, the operation and the file's encoding. */
export interface Job {
  readonly id: number
  readonly operation: string
  /** The name of the file schema among the exports of `Schemas`. */
  readonly schema: string
  readonly format: "csv" | "jsonl"
  readonly formulaGuard: boolean | undefined
  readonly body: ArrayBuffer
}

/** What a worker answers: the lines, or the bytes back for the main thread to read. */
export type Reply =
  | {
    readonly id: number
    readonly _tag: "Lines"
    /** The lines' UTF-8 bytes (the first `used` bytes of the buffer). */
    readonly bytes: ArrayBuffer
    readonly used: number
    /** Uint32Array: where each line ends in `bytes`. */
    readonly ends: ArrayBuffer
    /** Float64Array: the block of each line. */
    readonly blocks: ArrayBuffer
  }
  | { readonly id: number; readonly _tag: "ReadOnMain"; readonly body: ArrayBuffer; readonly defect?: string }

/** A page's lines as a worker made them. */
export interface Lines {
  readonly bytes: Uint8Array
  readonly ends: Uint32Array
  readonly blocks: Float64Array
}

/** What a job came to: the lines, the bytes to read on the main thread, or the worker lost. */
export type Outcome =
  | { readonly _tag: "Lines"; readonly lines: Lines }
  | { readonly _tag: "ReadOnMain"; readonly body: Uint8Array }
  | { readonly _tag: "WorkerLost"; readonly detail: string }

/** How long a pool with no job waits before it stops its workers. */
export const IDLE_MILLIS = 30_000

/**
 * How a worker is started: the script linesWorker.js beside this module (dist/, the CLI, the package);
 * from the sources (tsx, vitest) its .ts twin, imported once tsx's loader is registered in the worker
 * (a loader given to a worker with `--import` does not load its first module on Node 20).
 */
const spawn = (): Worker => {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./linesWorker.js", import.meta.url), { resourceLimits: LIMITS })
  const require = createRequire(import.meta.url)
  const manifest = require.resolve("tsx/package.json")
  const exportsOf = (require(manifest) as { exports: Record<string, { import: { default: string } }> }).exports
  const api = pathToFileURL(join(dirname(manifest), (exportsOf["./esm/api"] as { import: { default: string } }).import.default)).href
  const script = new URL("./linesWorker.ts", import.meta.url).href
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script)}) })`, {
    eval: true,
    resourceLimits: LIMITS
  })
}

/**
 * A worker's young generation capped at 4 MB: its garbage (a page's parsed slices, each dead once its
 * lines are written) is collected sooner; the CLI's peak RSS with one worker was 11 MB lower than with
 * V8's default for a worker (measured on 10,000-row pages; 2 and 8 MB did no better).
 */
const LIMITS = { maxYoungGenerationSizeMb: 4 }

interface Slot {
  readonly worker: Worker
  readonly waiting: Map<number, (outcome: Outcome) => void>
}

/** A pool of decoding workers. */
export interface Pool {
  readonly size: number
  /** Decodes one answer's bytes in a worker: `body`'s buffer is transferred (detached here), so it must be the caller's own. */
  readonly decode: (job: Omit<Job, "id" | "body">, body: Uint8Array) => Effect.Effect<Outcome>
}

/** A pool of `size` workers, started as jobs need them, stopped when idle. */
export const make = (size: number): Pool => {
  const slots: Array<Slot | undefined> = new Array(size).fill(undefined)
  let nextId = 0
  let busy = 0
  let idleTimer: ReturnType<typeof setTimeout> | undefined

  const stopAll = () => {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]
      if (slot === undefined) continue
      slots[i] = undefined
      for (const resume of slot.waiting.values()) resume({ _tag: "WorkerLost", detail: "the decoding worker was stopped" })
      slot.waiting.clear()
      void slot.worker.terminate()
    }
  }

  const start = (index: number): Slot => {
    const worker = spawn()
    worker.unref()
    // Its isolate's start set V8's young-generation growth back: the CLI's flags are set again
    // (src/V8Flags.ts) once it is up, or at its first answer if that comes first (before the page's
    // caller goes on), or when it is lost.
    let flagsRestored = false
    const restoreOnce = () => {
      if (flagsRestored) return
      flagsRestored = true
      restoreCliFlags()
    }
    worker.once("online", restoreOnce)
    const slot: Slot = { worker, waiting: new Map() }
    const lose = (detail: string) => {
      restoreOnce()
      if (slots[index] === slot) slots[index] = undefined
      for (const resume of slot.waiting.values()) resume({ _tag: "WorkerLost", detail })
      slot.waiting.clear()
    }
    worker.on("message", (reply: Reply) => {
      restoreOnce()
      const resume = slot.waiting.get(reply.id)
      if (resume === undefined) return
      slot.waiting.delete(reply.id)
      resume(
        reply._tag === "Lines"
          ? {
            _tag: "Lines",
            lines: { bytes: new Uint8Array(reply.bytes, 0, reply.used), ends: new Uint32Array(reply.ends), blocks: new Float64Array(reply.blocks) }
          }
          : { _tag: "ReadOnMain", body: new Uint8Array(reply.body) }
      )
    })
    worker.on("error", (error) => lose(`the decoding worker failed: ${error.message}`))
    worker.on("exit", (code) => lose(`the decoding worker exited (code ${code})`))
    slots[index] = slot
    return slot
  }

  /** The slot with the fewest jobs waiting, started if need be. */
  const pick = (): Slot => {
    let best = -1
    let fewest = Infinity
    for (let i = 0; i < slots.length; i++) {
      const n = slots[i]?.waiting.size ?? 0
      if (n < fewest) {
        fewest = n
        best = i
      }
    }
    const slot = slots[best] ?? start(best)
    // A worker started while others work holds the process as they do.
    if (busy > 0) slot.worker.ref()
    return slot
  }

  /** Counts a job in or out: workers hold the process only while jobs wait; idle, they stop in a while. */
  const track = (delta: 1 | -1) => {
    busy += delta
    if (delta === 1 && busy === 1) {
      if (idleTimer !== undefined) clearTimeout(idleTimer)
      idleTimer = undefined
      for (const slot of slots) slot?.worker.ref()
    }
    if (busy === 0) {
      for (const slot of slots) slot?.worker.unref()
      idleTimer = setTimeout(stopAll, IDLE_MILLIS)
      idleTimer.unref()
    }
  }

  const decode = (job: Omit<Job, "id" | "body">, body: Uint8Array): Effect.Effect<Outcome> =>
    Effect.async<Outcome>((resume) => {
      const slot = pick()
      const id = nextId++
      // The worker gets exactly the body's bytes (a view of part of a buffer is copied first).
      const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer
        ? body.buffer
        : body.slice().buffer
      track(1)
      let done = false
      slot.waiting.set(id, (outcome) => {
        if (done) return
        done = true
        track(-1)
        resume(Effect.succeed(outcome))
      })
      slot.worker.postMessage({ ...job, id, body: own } satisfies Job, [own])
      // Interrupted: the answer is dropped when it comes.
      return Effect.sync(() => {
        if (done) return
        done = true
        slot.waiting.delete(id)
        track(-1)
      })
    })

  return { size, decode }
}

const pools = new Map<number, Pool>()

/** The process's pool of `size` workers (made at first use). */
export const shared = (size: number): Pool => {
  let pool = pools.get(size)
  if (pool === undefined) pools.set(size, pool = make(size))
  return pool
}
