/**
 * A process that submits a run to the cluster and waits for its result, running nothing itself: the
 * CLI's `run --cluster`, and the runner whose shard holds a schedule's tick.
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Pipeline from "../Pipeline.js"
import { prepare, type RunOptions } from "./internal/staged.js"
import * as Status from "./Status.js"
import * as ClusterConfig from "./ClusterConfig.js"
import * as ClusterStorage from "./ClusterStorage.js"
import * as ClusterWorkflows from "./ClusterWorkflows.js"

/** How often a submitting process asks for the result of its run. */
const POLL_MILLIS = 500

/**
 * Submits `run` (or finds it: the same key is the same workflow execution) and waits for its result.
 * Sent without waiting on the request (`discard`), then its result polled: the waiting process stopping
 * (Ctrl-C) then sends the run nothing, whatever the engine would make of an interrupted request. Once
 * it ended, the database forgets the runs before the last `keepRuns` of each pipeline (default 100:
 * `Status.prune`; failing that, the next run's end tries again).
 */
export const awaitRun = (pipelineName: string, run: ClusterWorkflows.ClusterRun, keepRuns?: number) =>
  Effect.gen(function*() {
    const { Run } = ClusterWorkflows.workflows(pipelineName)
    const executionId = yield* Run.execute(run, { discard: true })
    while (true) {
      const result = yield* Run.poll(executionId)
      if (result !== undefined && result._tag === "Complete") {
        yield* Effect.ignore(Status.prune(keepRuns))
        return yield* result.exit
      }
      yield* Effect.sleep(Duration.millis(POLL_MILLIS))
    }
  })

/** The engine of a process that submits runs and waits for them, and runs nothing itself. */
const clientLayer = (url: string) =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provideMerge(NodeClusterSocket.layer({ clientOnly: true, storage: "sql", shardingConfig: ClusterConfig.shardingConfig })),
    Layer.provideMerge(ClusterStorage.storage(url)),
    ClusterStorage.retryingSchemaRace
  )

/**
 * Submits a run of `pipeline` to the cluster at `url` and waits for its result: the same summaries
 * (and files) as `Pipeline.run`. A run interrupted or killed here keeps going on the runners; the same
 * command started again waits for the same run (`<outDir>/<pipeline>/.durable/run.json`).
 *
 * @example
 * const summaries = yield* Cluster.run(pipeline, config, "postgres://…", { outDir: "/shared/out" })
 */
export const run = <C, I>(
  pipeline: Pipeline.Pipeline<C, I>,
  config: C,
  url: string,
  options: RunOptions = {}
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const relativeOut = path.join(options.outDir ?? "out", pipeline.name)
    const outDir = path.resolve(relativeOut)
    const runFile = path.join(outDir, ".durable", "run.json")
    const prepared = yield* prepare(pipeline, config, options, runFile)
    const ended = fs.remove(runFile).pipe(Effect.ignore)
    const summaries = yield* awaitRun(pipeline.name, {
      ...prepared.key,
      outDir,
      config: JSON.stringify(prepared.encodedConfig),
      confirmations: prepared.confirmations,
      concurrency: prepared.concurrency,
      quiet: options.quiet ?? false
    }, options.keepRuns).pipe(
      Effect.tap(() => ended),
      Effect.tapError(() => ended),
      Effect.provide(clientLayer(url))
    )
    // The paths as the user wrote the output folder, as `Pipeline.run` reports them.
    const asWritten = (file: string) => path.join(relativeOut, path.relative(outDir, file))
    return summaries.map((s) => ({ ...s, out: asWritten(s.out), manifestPath: asWritten(s.manifestPath) }))
  }).pipe(Effect.scoped)
