// V8 settings of the explorer-etl command line, applied on import, before any other module loads.
//
// An export allocates fast and keeps little: every page is parsed, checked, written and dropped within
// milliseconds, while the data it really holds stays near 20 MB whatever the size of the export. With
// its default settings V8 lets such garbage pile up (the young generation grows to 3 × 16 MB and the old
// one to several times what survived), so a long export's RSS would reach 250–400 MB. The first two
// settings keep the young generation at its starting size and let the old one grow by only 25 % over
// what survived the last full collection: peak RSS stays under 150 MB for exports of any length (see
// bench/RESULTS.md), for some throughput on the CPU path, which rarely sets the pace behind a rate limit.
//
// The third keeps WebAssembly on V8's baseline compiler (Liftoff). The HTTP client's parser (undici's
// llhttp) is WebAssembly, and V8 compiles it again with its optimizing compiler on a background thread
// once the first answers arrive: that compilation takes ~35 MB for a moment, the peak of every short
// export (a one-row export peaked at 148 MB with it, 113 MB without; a drained 1,000,000-row
// Streams.logs at 148–168 MB, 137–141 MB without). The baseline code parses answers as fast here
// (6 MB answers, 200 of them: the same CPU time within a run's noise), and the CLI runs no other
// WebAssembly of its own.
//
// Your own V8 settings win: when NODE_OPTIONS or the node command line already names a flag, that
// one is left as it is. EXPLORER_ETL_V8_DEFAULTS=1 keeps V8's defaults.
import { setFlagsFromString } from "node:v8"

const flags = ["--semi-space-growth-factor=1", "--heap-growing-percent=25", "--liftoff-only"]
const given = `${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`

const applied = []
if (process.env.EXPLORER_ETL_V8_DEFAULTS !== "1") {
  for (const flag of flags) {
    const name = flag.slice(2, flag.includes("=") ? flag.indexOf("=") : undefined)
    // V8 takes both spellings of a flag name: heap-growing-percent and heap_growing_percent.
    if (!given.includes(name) && !given.includes(name.replaceAll("-", "_"))) {
      setFlagsFromString(flag)
      applied.push(flag)
    }
  }
}
// V8 sets --semi-space-growth-factor back to 2 whenever a new isolate starts (a thread's: a decoding
// worker, tsx's module hooks): src/V8Flags.ts sets the flags again from here once the thread is up.
globalThis[Symbol.for("explorer-etl/v8-flags")] = applied
