/**
 * A runner of a pipeline's runs in this process: listens for the other runners, takes its share of the
 * shards (and of a schedule's ticks when given one), and runs the workflows of the shards it owns.
 */
import * as ClusterWorkflowEngine from "@effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ExplorerClient } from "../ExplorerClient.js"
import * as Pipeline from "../Pipeline.js"
import * as KeyBudget from "./KeyBudget.js"
import * as ClusterConfig from "./ClusterConfig.js"
import * as ClusterStorage from "./ClusterStorage.js"
import * as ClusterWorkflows from "./ClusterWorkflows.js"
import * as ClusterSchedule from "./ClusterSchedule.js"

/** Where a runner listens (and the address other runners reach it at). */
export interface RunnerOptions {
  /** `postgres://…`: the database every runner and submitter of the cluster shares. */
  readonly url: string
  readonly host: string
  readonly port: number
  /**
   * Rows of a part when this runner plans an export (default {@link ClusterWorkflows.PART_ROWS}): an export is cut into
   * parts of about this many rows, at most {@link ClusterWorkflows.MAX_PARTS}, when at least two parts' worth are
   * expected after its first page; else one runner reads it whole.
   */
  readonly partRows?: number | undefined
}

/**
 * A runner of `pipeline`'s runs in this process: listens on `host:port` for the other runners,
 * takes its share of the shards, and runs the workflows of the shards it owns until interrupted,
 * calling the API with `client`, whose key's budget it shares with the other runners (`KeyBudget`).
 * With `schedule`, it also takes its share of that schedule's ticks ({@link ClusterSchedule.scheduleLayer}); the
 * schedule's `config` may need what `client` provides besides the client (the CLI's `DemoData`).
 *
 * @example
 * yield* Layer.launch(Cluster.runnerLayer(pipeline, { url, host: "127.0.0.1", port: 34431 }, clientLayer))
 */
export const runnerLayer = <C, I, E, RC = never, EC = never>(
  pipeline: Pipeline.Pipeline<C, I>,
  options: RunnerOptions,
  client: Layer.Layer<ExplorerClient | RC, E>,
  schedule?: ClusterSchedule.RunSchedule<C, EC, RC> | undefined
) => {
  const runner = `${options.host}:${options.port}`
  return Layer.mergeAll(
    ClusterWorkflows.workflowsLayer(pipeline, runner, options.partRows),
    schedule === undefined ? Layer.empty : ClusterSchedule.scheduleLayer(pipeline, schedule, runner)
  ).pipe(
    // The runner's client keeps its key's budget with every other runner's (`KeyBudget`).
    Layer.provide(Layer.provide(client, KeyBudget.layer)),
    Layer.provide(NodeContext.layer),
    Layer.provideMerge(ClusterWorkflowEngine.layer),
    Layer.provideMerge(NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        ...ClusterConfig.shardingConfig,
        // The same groups in every runner (PostgreSQL's shard locks are numbered by their order);
        // the schedules' group is served only by the runners given one.
        availableShardGroups: [ClusterConfig.DEFAULT_SHARD_GROUP, ClusterConfig.SCHEDULE_SHARD_GROUP],
        assignedShardGroups: schedule === undefined ? [ClusterConfig.DEFAULT_SHARD_GROUP] : [ClusterConfig.DEFAULT_SHARD_GROUP, ClusterConfig.SCHEDULE_SHARD_GROUP],
        runnerAddress: Option.some(RunnerAddress.make(options.host, options.port))
      }
    })),
    Layer.provide(ClusterStorage.storage(options.url)),
    ClusterStorage.retryingSchemaRace
  )
}
