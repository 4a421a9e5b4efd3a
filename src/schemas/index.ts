/**
 * The record schemas of explorer-etl, one module per data group. Every record is a `Schema.Struct` whose
 * encoded side is the server's JSON and whose decoded side has useful types (see common.ts); the fast path
 * of record lists (fastPath.ts) decodes, encodes and transcodes them several times faster.
 *
 * @example
 * import { Schema } from "effect"
 * import { Schemas } from "explorer-etl"
 *
 * const transfers = Schema.decodeUnknown(Schema.Array(Schemas.Erc20Transfer))(envelope.result)
 *
 * @since 0.1.0
 * @category modules
 * @module
 */
export * from "./account.js"
export * from "./block.js"
export * from "./common.js"
export * from "./contract.js"
export * from "./envelope.js"
export * from "./gastracker.js"
export {
  decodeRecords,
  encodeRecords,
  type FastPathOptions,
  plainTextFields,
  recordsFastPath,
  transcodeRecords
} from "./fastPath.js"
export * from "./inputs.js"
export * from "./logs.js"
export * from "./nametag.js"
// the tag files read and written (csv-parse, csv-stringify) outside schemas/, reached here as before
export * from "../TagFiles.js"
export * from "./proxy.js"
export * from "./stats.js"
export * from "./token.js"
export * from "./transaction.js"
