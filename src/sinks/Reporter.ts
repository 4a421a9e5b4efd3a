/**
 * The progress display of an export on stderr: rows, rows/s, calls, block position as a percentage and
 * an ETA. On a TTY one line is redrawn in place (`\r`, erase to end of line) four times a second; on a
 * pipe or a log file a plain line is printed every few seconds. `quiet` prints nothing at all. A
 * one-line summary ends every successful export:
 *
 *     wrote 12,345 rows to out.csv (complete, blocks 100..2,000) in 4.2 s, 17 calls
 *
 * The writer is injectable (`ProgressOutput`) so tests and embedding apps can capture it.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"

/** Where progress goes: a text writer, and whether it is a terminal (redraw in place) or not. */
export interface ProgressOutput {
  readonly isTTY: boolean
  /** The terminal's width: a TTY line is cut to it, since a wrapped line cannot be redrawn with `\r`. */
  readonly columns?: number | undefined
  readonly write: (text: string) => void
}

/** The process's stderr. */
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

/** What one progress line shows. */
export interface Snapshot {
  /** E.g. `logs chain 1`. */
  readonly label: string
  /** Rows written by this run. */
  readonly rows: number
  readonly calls: number
  readonly elapsedMs: number
  /** Fraction of the block range done, 0..1 (block-ordered exports). */
  readonly fraction?: number | undefined
  /** Every row up to this block is written. */
  readonly block?: number | undefined
}

/** A whole number with thousands separators (`12,345`), the same on every locale. */
export const count = (n: number): string => Math.round(n).toLocaleString("en-US")

/** A duration for people: `850 ms`, `4.2 s`, `3 min 05 s`, `2 h 07 min`. */
export const duration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  if (s < 60) return `${s.toFixed(1)} s`
  const total = Math.round(s)
  if (total < 3600) return `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, "0")} s`
  const minutes = Math.round(total / 60)
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

/** One progress line (without line ending). */
export const line = (s: Snapshot): string => {
  const parts = [s.label, `${count(s.rows)} rows`]
  if (s.elapsedMs > 0) parts.push(`${count((s.rows * 1000) / s.elapsedMs)} rows/s`)
  parts.push(`${count(s.calls)} calls`)
  if (s.block !== undefined) parts.push(`block ${count(s.block)}`)
  if (s.fraction !== undefined) {
    parts.push(`${(s.fraction * 100).toFixed(1)}%`)
    if (s.fraction > 0 && s.fraction < 1 && s.elapsedMs > 0) {
      parts.push(`ETA ${duration((s.elapsedMs * (1 - s.fraction)) / s.fraction)}`)
    }
  }
  return parts.join(" · ")
}

/** What the reporter needs. */
export interface ReporterOptions {
  readonly output?: ProgressOutput | undefined
  readonly quiet?: boolean | undefined
  /** Reads the current progress. */
  readonly snapshot: Effect.Effect<Snapshot>
  /** Interval of the plain lines when the output is not a TTY (default 5 seconds). */
  readonly every?: Duration.DurationInput | undefined
}

/** A running progress display. */
export interface Reporter {
  /** Stops the display, erases the TTY line, and prints the summary line (unless quiet). */
  readonly finish: (summary: string) => Effect.Effect<void>
}

/** How often a TTY line is redrawn. */
const ttyEvery = Duration.millis(250)

/**
 * Starts the display in the scope. If the scope closes without `finish` (a failed export), the TTY line
 * is erased so the error prints on a clean line.
 */
export const start = (options: ReporterOptions): Effect.Effect<Reporter, never, Scope.Scope> =>
  Effect.gen(function*() {
    const output = options.output ?? stderr
    if (options.quiet === true) return { finish: () => Effect.void }
    const tty = output.isTTY
    let drawn = false
    const erase = Effect.sync(() => {
      if (drawn) output.write("\r\x1b[K")
      drawn = false
    })
    const draw = Effect.flatMap(options.snapshot, (s) =>
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
