/**
 * The Node runner of pipeline files and example scripts (`npx tsx pipelines/x.ts`): is this module the
 * script node started, run a pipeline as a script, run a script's program with Node's file system and
 * report its failure as the CLI does.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { pathToFileURL } from "node:url"
import { DemoData } from "./DemoData.js"
import { scriptLayer } from "./ExplorerLayer.js"
import { describeSummary, loadConfig, type Pipeline, run } from "./Pipeline.js"
import { report } from "./Report.js"

/**
 * Whether the module at `importMetaUrl` is the script node was started with.
 *
 * @since 0.1.0
 * @category utils
 */
export const isMain = (importMetaUrl: string): boolean =>
  process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === importMetaUrl

/**
 * Runs a pipeline file as a script (`npx tsx pipelines/x.ts [outDir]`): on the simulator unless a key
 * is set, printing one line per file written.
 *
 * @since 0.1.0
 * @category running
 */
export const main = <C, I>(pipeline: Pipeline<C, I>, importMetaUrl: string): void => {
  if (!isMain(importMetaUrl)) return
  const outDir = process.argv[2] ?? "out"
  const program = Effect.gen(function*() {
    const demo = yield* DemoData
    const config = Option.isSome(demo)
      ? pipeline.demoConfig(demo.value)
      : yield* loadConfig(pipeline, {})
    const summaries = yield* run(pipeline, config, { outDir })
    for (const s of summaries) {
      yield* Effect.sync(() => process.stdout.write(`${describeSummary(s)}\n`))
    }
  })
  runScript(program.pipe(Effect.provide(scriptLayer())))
}

/**
 * Runs a script's program with Node's file system, reporting a failure as one stderr line
 * `error <ErrorTag>: <message>` with a non-zero exit code (as the CLI does).
 *
 * @since 0.1.0
 * @category running
 */
export const runScript = <A, E>(program: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>): void => {
  NodeRuntime.runMain(report(program.pipe(Effect.provide(NodeContext.layer))), { disableErrorReporting: true })
}
