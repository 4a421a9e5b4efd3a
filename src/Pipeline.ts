/**
 * Ready pipelines: a named, documented, incremental export job over a small config of targets, as a
 * plain value that both `explorer-etl run <file>` and `npx tsx <file>` execute.
 *
 * Every export of a pipeline runs with `resume: true`, so the first run writes everything and each
 * later run appends only the new blocks (block-ordered data sets) or rewrites the file atomically
 * (lists such as holders). Without an API key the pipeline runs against the embedded simulator, on
 * targets the pipeline picks from the simulator's data set (`demoConfig`).
 *
 * This entry gathers the runner: the pipeline definition and the ways to run one, the Node runner of
 * pipeline files and scripts, and the one choice between the embedded simulator and an explorer API.
 *
 * @example
 * // pipelines/my-pipeline.ts
 * export default Pipeline.make({
 *   name: "my-pipeline",
 *   description: "USDT transfers",
 *   config: Schema.Struct({ chainId: Schema.Number, token: Schema.String }),
 *   configFile: new URL("./my-pipeline.config.json", import.meta.url),
 *   demoConfig: (data) => ({ chainId: 1, token: data.chain(1).erc20[0].address }),
 *   run: (config, ctx) => Effect.all([ctx.export("transfers.csv", Sources.erc20Transfers({ ... }))])
 * })
 * Pipeline.main(pipeline, import.meta.url)
 *
 * @module explorer-etl/pipeline
 * @since 0.1.0
 */
export * from "./runner/Pipeline.js"
export * from "./runner/ExplorerLayer.js"
export * from "./runner/NodeRunner.js"
export { DemoData } from "./runner/DemoData.js"
