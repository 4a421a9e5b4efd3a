/**
 * A pipeline run shared by several runner processes through PostgreSQL (cluster mode):
 * `explorer-etl runner <pipeline> --cluster postgres://…` on each machine, then
 * `explorer-etl run <pipeline> --cluster postgres://…` to submit a run and print its result.
 *
 * This module gathers the cluster's public names; each concept is a module of its own, as in
 * `@effect/cluster`: `ClusterWorkflows` (the workflows and their bodies), `ClusterRunner` (a runner's
 * layer), `ClusterClient` (submitting a run and waiting for it), `ClusterSchedule` (runs on a cron),
 * `ScheduleRegistry` (the schedules' tables and their SQL locks), `ClusterConfig` (the settings every
 * process of a cluster shares) and `ClusterStorage` (PostgreSQL, and the race to create its tables).
 *
 * The engine is `@effect/cluster`'s `ClusterWorkflowEngine` on socket runners (`NodeClusterSocket`),
 * their messages, replies and shard locks in PostgreSQL (`SqlMessageStorage`, `SqlRunnerStorage` on
 * `@effect/sql-pg`). A run is two workflows:
 * - `explorer-etl/run/<pipeline>`: the run (key: pipeline, config hash, run time, output folder). Its
 *   body runs the pipeline; every `context.export(file, …)` is a child workflow, and once all of them
 *   ended the `commit` activity moves the staged files in place (as the embedded run does);
 * - `explorer-etl/export/<pipeline>`: one export, keyed by the run's key and the file, so its
 *   execution id — the entity the cluster shards — differs per file and the exports of a run spread
 *   over the runners' shards. Its body runs the pipeline again only to find the source of its file
 *   (`ClusterWorkflows`, `findExport`). Its `plan <file>` activity asks for the chain's head and reads the
 *   range's first page into the stage (`Export.plan`); the blocks after it are cut into parts, each
 *   a child workflow (below) of about `--part-rows` rows, unless fewer than two parts' worth are
 *   expected there (by the first page's density). Its last activity, `export <file>`, checks the
 *   parts' spools and merges them into the staged file, reading the blocks left uncut itself
 *   (`Exports.assemble`): the file, manifest and checkpoint a plain export writes. An export that is
 *   not read in parts (data sets read whole, sources of one's own, an export continuing its own
 *   checkpoint: the plan says `Whole`) is written by that activity alone, as the embedded run does;
 * - `explorer-etl/part/<pipeline>`: one part of an export, keyed by the run's key, the file and the
 *   part's number, so the parts of one export spread over the runners too. Its activity, `part <file>
 *   <from>..<to>`, reads its blocks into a spool beside the staged file (`Export.writePart`), a runner
 *   reading at most `PARTS_AT_ONCE` parts at once, and prints `<runner> part <N> of <file>: …`.
 *   A part keeps no checkpoint: one cut short (its runner killed) is read again whole.
 *
 * Every runner must load the same pipeline module and reach the same output folder at the same
 * absolute path (one machine, or a shared filesystem); the files a run publishes are byte-identical
 * to those of `Pipeline.run`. The lock files of a runner's exports name it (`Lock.ClusterRunner`): a
 * runner of another machine takes them over once that runner's heartbeat is older than the shard
 * locks' expiry (`ClusterWorkflows`, `clusterRunner`), when its exports have moved.
 *
 * Each runner's client has its own key and plan; the calls of one key, from every runner, share one
 * budget in the database (`KeyBudget`), calls per UTC day included: once the key's day is spent, an
 * export waits (durably, `DurableClock`) until the next 00:00 UTC plus a minute and continues from its
 * checkpoint, as in `PipelineRun`; its runner prints `<runner> <file>: waiting for the daily cap until
 * <time> UTC …`, and `explorer-etl status --cluster` shows the wait.
 *
 * Schedules (`explorer-etl runner … --every "<cron>"`, `scheduleLayer`) belong to the runners:
 * every runner given the same schedule registers the same `ClusterCron` (its name made of pipeline,
 * cron, config hash and absolute output folder), in a shard group of its own that only runners with
 * a schedule take. The rules:
 * - one firing per tick across the runners: a tick is a persisted message to the entity named by the
 *   tick's ISO time, delivered once (up to `entityMessagePollInterval`, 1 s, after its time); its run
 *   is the `Run` workflow whose run time is the tick's, so a tick delivered again (its runner stopped
 *   mid-run) is the same run;
 * - a tick due while every runner was down fires once when one comes back within
 *   `MISSED_TICK_WINDOW` (1 day, `ClusterCron`'s `skipIfOlderThan` default): the first tick
 *   missed, one run for all the ticks of that time (runs are incremental); later, none;
 * - no overlapping runs: `ClusterCron` plans the next tick when a run ends (ticks passed meanwhile are
 *   skipped); the one meeting it cannot rule out — the missed tick's run still running when the tick
 *   planned by a returning runner's singleton comes — is ruled out by a row per schedule
 *   (`explorer_etl_schedule_runs`): that tick is skipped;
 * - one schedule per cluster: a tick landing on a runner without its schedule is failed there
 *   ("Entity type … not registered", after `entityRegistrationTimeout`) and the schedule stops until
 *   its singleton starts again; so a runner started with a schedule other than a live runner's is
 *   refused (`explorer_etl_schedules`, a row per runner with a schedule). Runners without a schedule
 *   take no ticks and run the scheduled runs' exports as any run's. (Two `ClusterCron`s of one name and
 *   different crons, which the name rules out here, would plan each next tick by the cron of the
 *   runner that ran the previous one.)
 */
export { ClusterRun, MAX_PARTS, PART_ROWS, PARTS_AT_ONCE, workflows, workflowsLayer } from "./ClusterWorkflows.js"
export { type RunnerOptions, runnerLayer } from "./ClusterRunner.js"
export { run } from "./ClusterClient.js"
export { SCHEDULE_SHARD_GROUP } from "./ClusterConfig.js"
export { checkSchedule, MISSED_TICK_WINDOW, type RunSchedule, scheduleLayer, scheduleName } from "./ClusterSchedule.js"
