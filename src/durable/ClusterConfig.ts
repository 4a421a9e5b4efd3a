/**
 * The settings every runner and submitter of a cluster must share: how long a silent runner keeps its
 * shards, how often messages are read from the database, and the shard groups (runs and exports; the
 * schedules' ticks). As `@effect/cluster`'s `ShardingConfig`, one place for them.
 */
import * as Duration from "effect/Duration"

/**
 * How long a runner that stopped refreshing (killed, its machine gone) keeps its shards: a runner's
 * registration and shard locks expire 15 s after its last refresh, then the others take its shards
 * (`@effect/cluster`'s default is 35 s). It refreshes them every 5 s, so a live runner loses them only
 * if it cannot reach the database, or its event loop stalls, for over 10 s (an export gives its event
 * loop back every few milliseconds); one that cannot reach the database stops its entities before its
 * locks expire (`@effect/cluster` refreshes at most a third of the expiry apart for that).
 */
export const SHARD_LOCK_EXPIRATION = Duration.seconds(15)
export const SHARD_LOCK_REFRESH = Duration.seconds(5)

/** The shard lock expiry, in seconds: a lock file of a runner silent that long is taken over. */
export const RUNNER_EXPIRY_SECONDS = Math.ceil(Duration.toSeconds(SHARD_LOCK_EXPIRATION))

// A runner stopped (Ctrl-C) interrupts its exports at once: they commit their last checkpoint, and
// the runner that takes their shards continues them (the default waits up to 15 s). Messages not
// delivered at once (a workflow resumed when its child ends, a tick or a wake-up due) are read from
// the database every second, not every 10 s: a run's exports follow each other without a pause of
// up to 10 s between them (one query a second per runner). A runner gone is replaced after 15 s
// (`SHARD_LOCK_EXPIRATION`): every runner and submitter of a cluster must use the same settings.
export const shardingConfig = {
  entityTerminationTimeout: 0,
  entityMessagePollInterval: Duration.seconds(1),
  shardLockExpiration: SHARD_LOCK_EXPIRATION,
  shardLockRefreshInterval: SHARD_LOCK_REFRESH
}

/** The shard group of runs and exports (`@effect/cluster`'s default). */
export const DEFAULT_SHARD_GROUP = "default"

/**
 * The shard group of the schedules' ticks (`ClusterCron`'s entity and singleton): taken only by the
 * runners given a schedule, so a tick never lands on a runner that has none. Sorts after "default",
 * whose PostgreSQL lock numbers stay those of runners that know one group.
 */
export const SCHEDULE_SHARD_GROUP = "explorer-etl-every"
