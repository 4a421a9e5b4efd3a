/**
 * The progress display of an export on stderr: rows, rows/s, calls, calls/s against the plan's rate,
 * block position, and a percentage and an ETA when the fraction done is known. A retry prints a line of
 * its own (`notice`, `retryLine`). On a TTY one line is redrawn in place (`\r`, erase to end of line) four times a second; on a
 * pipe or a log file a plain line is printed every few seconds. `quiet` prints nothing at all. A
 * one-line summary ends every successful export:
 *
 *     wrote 12,345 rows to out.csv (complete, blocks 100..2,000) in 4.2 s, 17 calls
 *
 * The writer is injectable (`ProgressOutput`) so tests and embedding apps can capture it.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import type { RetryNotice } from "../Config.js"

/**
 * Where progress goes: a text writer, and whether it is a terminal (redraw in place) or not.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressOutput {
  readonly isTTY: boolean
  /** The terminal's width: a TTY line is cut to it, since a wrapped line cannot be redrawn with `\r`. */
  readonly columns?: number | undefined
  readonly write: (text: string) => void
}

/**
 * The process's stderr.
 *
 * @since 0.1.0
 * @category outputs
 */
export const stderr: ProgressOutput = {
  get isTTY() {
    return process.stderr.isTTY === true
  },
  get columns() {
    return process.stderr.columns
  },
  write: (text) => {
    process.stderr.write(text)
  }
}

/**
 * The process's stderr as plain lines, even on a terminal: for several exports at once (a pipeline's),
 * which cannot each redraw one terminal line.
 *
 * @since 0.1.0
 * @category outputs
 */
export const plainStderr: ProgressOutput = { isTTY: false, write: (text) => void process.stderr.write(text) }

/**
 * What one progress line shows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  /** E.g. `logs chain 1`. */
  readonly label: string
  /** Rows written by this run. */
  readonly rows: number
  /** Requests sent, retries included. */
  readonly calls: number
  /** Of those, retries (shown apart when any). */
  readonly retries?: number | undefined
  readonly elapsedMs: number
  /**
   * Rows per second now (e.g. over the last seconds); default: `rows` over `elapsedMs`, the run's
   * average.
   */
  readonly rowsPerSecond?: number | undefined
  /** Calls per second now; default: `calls` over `elapsedMs`. */
  readonly callsPerSecond?: number | undefined
  /** The plan's calls per second for this key, shown beside the rate (`4.8/5 calls/s`). */
  readonly callsPerSecondLimit?: number | undefined
  /** Fraction of the block range done, 0..1 (block-ordered exports). */
  readonly fraction?: number | undefined
  /** Every row up to this block is written. */
  readonly block?: number | undefined
  /** Block ranges being read at once (partitioned exports); shown when more than one. */
  readonly partitions?: number | undefined
}

/**
 * A whole number with thousands separators (`12,345`), the same on every locale.
 *
 * @since 0.1.0
 * @category formatting
 */
export const count = (n: number): string => Math.round(n).toLocaleString("en-US")

/**
 * A count and its noun: `1 row`, `1,234 rows`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? "" : "s"}`

/**
 * A count of retries: `1 retry`, `3 retries`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const retries = (n: number): string => `${count(n)} ${n === 1 ? "retry" : "retries"}`

/**
 * A duration for people: `850 ms`, `4.2 s`, `3 min 05 s`, `2 h 07 min`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const duration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  if (s < 60) return `${s.toFixed(1)} s`
  const total = Math.round(s)
  if (total < 3600) return `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, "0")} s`
  const minutes = Math.round(total / 60)
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

/**
 * Rates are shown once this much of the export has passed: before, two calls in the first 0.3 s would
 * read as 7.6 calls/s, past any plan's rate.
 *
 * @since 0.1.0
 * @category constants
 */
export const ratesAfterMs = 3_000

/**
 * The window the display's rates are measured over: the last 10 seconds, not the run's average.
 *
 * @since 0.1.0
 * @category constants
 */
export const rateWindowMs = 10_000

/** A rate for people: `4.8`, `12`, `1,250`. */
const rate = (perSecond: number): string => perSecond < 10 ? perSecond.toFixed(1) : count(perSecond)

/**
 * One progress line (without line ending): label, rows, rows/s, calls and calls/s (against the plan's
 * rate when known), block, and — only when the fraction done is known — percent and ETA:
 *
 *     logs chain 1 · 12,345 rows · 2,469 rows/s · 17 calls · 3.4/5 calls/s · block 19,000,000 · 42.0% · ETA 6.9 s
 *
 * @since 0.1.0
 * @category formatting
 */
export const line = (s: Snapshot): string => {
  const parts = [s.label, `${count(s.rows)} rows`]
  // No rate before a few seconds of data (see `ratesAfterMs`).
  const rated = s.elapsedMs >= ratesAfterMs
  const rowsPerSecond = !rated ? undefined : s.rowsPerSecond ?? (s.rows * 1000) / s.elapsedMs
  if (rowsPerSecond !== undefined) parts.push(`${count(rowsPerSecond)} rows/s`)
  parts.push(`${count(s.calls)} calls${s.retries === undefined || s.retries === 0 ? "" : ` (${retries(s.retries)})`}`)
  const callsPerSecond = !rated ? undefined : s.callsPerSecond ?? (s.calls * 1000) / s.elapsedMs
  if (callsPerSecond !== undefined) {
    parts.push(
      s.callsPerSecondLimit === undefined
        ? `${rate(callsPerSecond)} calls/s`
        : `${rate(callsPerSecond)}/${Number.isInteger(s.callsPerSecondLimit) ? count(s.callsPerSecondLimit) : rate(s.callsPerSecondLimit)} calls/s`
    )
  }
  if (s.partitions !== undefined && s.partitions > 1) parts.push(`${count(s.partitions)} ranges`)
  // A block below 0 means no block is done yet.
  if (s.block !== undefined && s.block >= 0) parts.push(`block ${count(s.block)}`)
  if (s.fraction !== undefined) {
    parts.push(`${(s.fraction * 100).toFixed(1)}%`)
    if (s.fraction > 0 && s.fraction < 1 && s.elapsedMs > 0) {
      parts.push(`ETA ${duration((s.elapsedMs * (1 - s.fraction)) / s.fraction)}`)
    }
  }
  return parts.join(" · ")
}

/**
 * A line among the progress (a retry): on a TTY the progress line is erased first; its next redraw brings it back.
 *
 * @since 0.1.0
 * @category formatting
 */
export const notice = (output: ProgressOutput, text: string): void => {
  output.write(output.isTTY ? `\r\x1b[K${text}\n` : `${text}\n`)
}

/**
 * The line of one retry: `retry 2/6 in 1.0 s: connection refused (account/txlist, TransportError)`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const retryLine = (n: RetryNotice): string =>
  `retry ${n.retry}/${n.of} in ${duration(Duration.toMillis(n.delay))}: ${n.error.detail.replace(/\s*\n\s*/g, " ")} ` +
  `(${n.module}/${n.action}, ${n.error._tag})`

/**
 * What the reporter needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReporterOptions {
  readonly output?: ProgressOutput | undefined
  readonly quiet?: boolean | undefined
  /** Reads the current progress. */
  readonly snapshot: Effect.Effect<Snapshot>
  /** Interval of the plain lines when the output is not a TTY (default 5 seconds). */
  readonly every?: Duration.DurationInput | undefined
}

/**
 * A running progress display.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reporter {
  /** Stops the display, erases the TTY line, and prints the summary line (unless quiet). */
  readonly finish: (summary: string) => Effect.Effect<void>
}

/** How often a TTY line is redrawn. */
const ttyEvery = Duration.millis(250)

/**
 * Starts the display in the scope. If the scope closes without `finish` (a failed export), the TTY line
 * is erased so the error prints on a clean line.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (options: ReporterOptions): Effect.Effect<Reporter, never, Scope.Scope> =>
  Effect.gen(function*() {
    const output = options.output ?? stderr
    if (options.quiet === true) return { finish: () => Effect.void }
    const tty = output.isTTY
    let drawn = false
    // What the display saw lately: its rates are measured over the last `rateWindowMs` (the run's
    // average until that much has passed), so a fast start or a pause long ago does not bend them.
    const samples: Array<{ readonly t: number; readonly rows: number; readonly calls: number }> = []
    const withRates = (s: Snapshot): Snapshot => {
      if (s.rowsPerSecond !== undefined || s.callsPerSecond !== undefined) return s
      samples.push({ t: s.elapsedMs, rows: s.rows, calls: s.calls })
      // Keep the newest sample at least a window old, and every one after it.
      while (samples.length > 1 && s.elapsedMs - (samples[1] as (typeof samples)[number]).t >= rateWindowMs) samples.shift()
      const first = samples[0] as (typeof samples)[number]
      const span = s.elapsedMs - first.t
      return span < rateWindowMs
        ? s
        : { ...s, rowsPerSecond: ((s.rows - first.rows) * 1000) / span, callsPerSecond: ((s.calls - first.calls) * 1000) / span }
    }
    const erase = Effect.sync(() => {
      if (drawn) output.write("\r\x1b[K")
      drawn = false
    })
    const draw = Effect.flatMap(Effect.map(options.snapshot, withRates), (s) =>
      Effect.sync(() => {
        if (tty) {
          const width = output.columns
          const text = line(s)
          output.write(`\r${width !== undefined && width > 1 && text.length >= width ? text.slice(0, width - 1) : text}\x1b[K`)
          drawn = true
        } else {
          output.write(`${line(s)}\n`)
        }
      }))
    const loop = tty
      ? Effect.forever(Effect.zipRight(draw, Effect.sleep(ttyEvery)))
      : Effect.forever(Effect.zipRight(Effect.sleep(options.every ?? Duration.seconds(5)), draw))
    const fiber = yield* Effect.forkScoped(loop)
    yield* Effect.addFinalizer(() => Fiber.interrupt(fiber).pipe(Effect.zipRight(erase)))
    return {
      finish: (summary) =>
        Fiber.interrupt(fiber).pipe(
          Effect.zipRight(erase),
          Effect.zipRight(Effect.sync(() => output.write(`${summary}\n`)))
        )
    }
  })
