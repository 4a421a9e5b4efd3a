/**
 * `explorer-etl demo [--out-dir DIR]`: the main job on the embedded simulator — start it in-process,
 * run every ready pipeline against it (Pro Plus demo key, so every operation is allowed), write their
 * files (default ./out) and print what was written. No key, no network.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ExplorerConfig from "../Config.js"
import { DemoData } from "../runner/DemoData.js"
import * as Pipeline from "../Pipeline.js"
import * as Environment from "./Environment.js"
import { printSummaries } from "./RunCommand.js"

/**
 * The ready pipelines, compiled (dist/pipelines, from pipelines/ by tsconfig.pipelines.json): the demo
 * needs no TypeScript loader. They import "explorer-etl" as a user's own pipelines do.
 */
const readyPipelines = new URL("../pipelines/index.js", import.meta.url)

const outDir = Options.text("out-dir").pipe(Options.withDefault("out"), Options.withDescription("output folder (default ./out)"))

/** `explorer-etl demo …` */
export const demoCommand = Command.make("demo", { outDir }, (a) =>
  Effect.gen(function*() {
    const demo = yield* DemoData
    if (Option.isNone(demo)) return
    const pipelines = (yield* Effect.promise(() => import(readyPipelines.href) as Promise<Record<string, unknown>>))
      .pipelines as ReadonlyArray<Pipeline.AnyPipeline>
    yield* Console.log(`explorer-etl demo: ${pipelines.length} pipelines on the embedded simulator, writing to ${a.outDir}/`)
    for (const pipeline of pipelines) {
      yield* Console.log(`\n# ${pipeline.name}: ${pipeline.description}`)
      // The per-file progress lines would repeat the list below: the demo prints the list only.
      const summaries = yield* Pipeline.run(pipeline, pipeline.demoConfig(demo.value), { outDir: a.outDir, quiet: true })
      yield* printSummaries(summaries)
    }
  }).pipe(
    Effect.provide(
      Environment.clientLayer({
        chain: 1,
        apiKey: Option.none(),
        baseUrl: "https://api.etherscan.io",
        plan: Option.some("proplus"),
        simulator: true,
        quiet: true,
        callsPerDay: Option.none(),
        retries: ExplorerConfig.DEFAULT_RETRY.times,
        timeout: Duration.toSeconds(ExplorerConfig.DEFAULT_REQUEST_TIMEOUT)
      })
    ),
    Effect.provide(NodeContext.layer)
  )).pipe(Command.withDescription("run the ready pipelines against the embedded simulator and write their files"))
