/**
 * The embedded simulator's data set, when a program runs on it (`Option.none()` on the real API).
 * Pipelines and examples use it to pick targets that have data on the simulator.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
import * as Context from "effect/Context"
import type * as Option from "effect/Option"
import type { DatasetDescription } from "../simulator/dataset.js"

/**
 * The simulator's data set description, or none on the real API.
 *
 * @since 0.1.0
 * @category services
 */
export class DemoData extends Context.Tag("explorer-etl/DemoData")<DemoData, Option.Option<DatasetDescription>>() {}
