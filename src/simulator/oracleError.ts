/**
 * The oracle's error: the query is one the server would refuse (with `reason`, the server's NOTOK
 * text), or the operation answers a single value rather than records.
 */
import * as Schema from "effect/Schema"

/**
 * The simulator's oracle cannot list records for this query.
 *
 * @since 0.1.0
 * @category errors
 */
export class SimulatorOracleError extends Schema.TaggedError<SimulatorOracleError>()("SimulatorOracleError", {
  query: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The simulator's oracle cannot answer ${this.query}: ${this.reason}`
  }
}
