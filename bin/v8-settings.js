// V8 settings of the explorer-etl command line, applied on import, before any other module loads.
//
// An export allocates fast and keeps little: every page is parsed, checked, written and dropped within
// milliseconds, while the data it really holds stays near 20 MB whatever the size of the export. With
// its default settings V8 lets such garbage pile up (the young generation grows to 3 × 16 MB and the old
// one to several times what survived), so a long export's RSS would reach 250–400 MB. These two
// settings keep the young generation at its starting size and let the old one grow by only 25 % over
// what survived the last full collection: peak RSS stays under 150 MB for exports of any length (see
// bench/RESULTS.md), for some throughput on the CPU path, which rarely sets the pace behind a rate limit.
//
// Your own V8 settings win: when NODE_OPTIONS or the node command line already names either flag,
// nothing is changed. EXPLORER_ETL_V8_DEFAULTS=1 keeps V8's defaults.
import { setFlagsFromString } from "node:v8"

const flags = ["--semi-space-growth-factor=1", "--heap-growing-percent=25"]
const given = `${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`

if (process.env.EXPLORER_ETL_V8_DEFAULTS !== "1") {
  for (const flag of flags) {
    const name = flag.slice(2, flag.indexOf("="))
    // V8 takes both spellings of a flag name: heap-growing-percent and heap_growing_percent.
    if (!given.includes(name) && !given.includes(name.replaceAll("-", "_"))) setFlagsFromString(flag)
  }
}
