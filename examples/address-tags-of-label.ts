/**
 * Every address tag of a label (e.g. all addresses labelled "phish-hack"), printed and saved to JSONL.
 *
 *     npx tsx examples/address-tags-of-label.ts [outDir]
 *
 * Without an API key it runs on the embedded simulator, on its most used label. With
 * EXPLORER_API_KEY (or ETHERSCAN_API_KEY) it runs on the real API — exportaddresstags needs the
 * Pro Plus plan, set EXPLORER_PLAN=proplus — on EXAMPLE_LABEL (a label slug, default `phish-hack`)
 * of EXAMPLE_CHAIN (default 1).
 *
 * Writes `<outDir>/address-tags-<label>.jsonl` and its manifest (default outDir `out/examples`): one
 * line per tagged address with its name tag, labels, label slugs, url, notes, reputation and last
 * update time, as the API sends them.
 */
import { Chunk, Effect, Option, Stream } from "effect"
import { ExplorerClient, Exports, Schemas, Sources, Streams } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"
import type { DatasetDescription } from "explorer-etl/simulator"

/** The label slug that tags the most addresses of the simulator's chain 1. */
const busiestLabel = (data: DatasetDescription): string => {
  const counts = new Map<string, number>()
  for (const tag of data.chain(1).labels) for (const slug of tag.labelsSlug) counts.set(slug, (counts.get(slug) ?? 0) + 1)
  return [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best), ["phish-hack", 0])[0]
}

const program = Effect.gen(function*() {
  const outDir = process.argv[2] ?? "out/examples"
  const client = yield* ExplorerClient.ExplorerClient
  const demo = yield* Pipeline.DemoData
  const chainId = Option.isSome(demo) ? 1 : Number(process.env.EXAMPLE_CHAIN ?? 1)
  const label = Option.match(demo, { onSome: busiestLabel, onNone: () => process.env.EXAMPLE_LABEL ?? "phish-hack" })

  const tags = Chunk.toReadonlyArray(yield* Stream.runCollect(Streams.addressTags({ chainId, label })))

  console.log(`${tags.length} addresses labelled "${label}" on chain ${chainId}:`)
  for (const tag of tags.slice(0, 20)) {
    const note = tag.notes_1 === "" ? "" : `  — ${tag.notes_1}`
    console.log(`  ${tag.address}  ${tag.nametag || "(no name tag)"}  [${tag.labels.join(", ")}]${note}`)
  }
  if (tags.length > 20) console.log(`  … and ${tags.length - 20} more`)

  // The rows read above, already in memory, go into the file as a source of their own (not read twice).
  const source = Sources.fromStream({
    dataset: "addressTags",
    chainId,
    plan: client.plan,
    query: { label },
    schema: Schemas.AddressTag,
    rows: Stream.fromIterable(tags)
  })
  const summary = yield* Exports.toFile(source, { out: `${outDir}/address-tags-${label}.jsonl`, quiet: true })
  console.log(`wrote ${summary.manifest.rows} tags to ${summary.out}`)
})

Pipeline.runScript(program.pipe(Effect.provide(Pipeline.scriptLayer())))
