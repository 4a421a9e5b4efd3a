/**
 * Records of the `contract` module: verified source and ABI, contract creations, the status of a
 * source-code verification.
 *
 * @example
 * import { Schema } from "effect"
 * import { ContractSource } from "explorer-etl"
 * Schema.decodeUnknown(Schema.Array(ContractSource))(envelope.result)
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AddressField, BooleanFromDigit, DecimalInt, EmptyAsNull, HashField } from "./common.js"

/**
 * The one row of `contract/getsourcecode`. An unverified contract still answers status `"1"` with this row:
 * `ABI` is then the text `"Contract source code not verified"` and nearly every other field is `""`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContractSource = Schema.Struct({
  /**
   * The source as verified, in one of several forms: plain text (single file or flattened), a JSON object of
   * files (`{"A.sol":{"content":…}}`), or Solidity standard-JSON input wrapped in an extra pair of braces
   * (`{{ … }}`); Vyper text for Vyper contracts. `""` when unverified.
   */
  SourceCode: Schema.String,
  /** The ABI as a JSON *string*, or `"Contract source code not verified"`. */
  ABI: Schema.String,
  ContractName: Schema.String,
  /** `"v0.8.9+commit.e5eed63a"`, `"vyper:0.2.12"`, … (`""` when unverified). */
  CompilerVersion: Schema.String,
  /** `"solc"`, `"solc-j"`, `"vyper"`; only in newer answers. */
  CompilerType: Schema.optional(Schema.String),
  /** Optimizer on (`"1"`) or off (`"0"`); `null` when unverified (the server sends `""`). */
  OptimizationUsed: EmptyAsNull(BooleanFromDigit),
  /** Optimizer runs; `null` when unverified. */
  Runs: EmptyAsNull(DecimalInt),
  /** ABI-encoded constructor arguments, hex **without** `0x`, `""` when none. */
  ConstructorArguments: Schema.String,
  /** `"Default"`, `"paris"`, … as sent. */
  EVMVersion: Schema.String,
  /** Linked libraries (`"Name:0xaddress"` list), `""` when none. */
  Library: Schema.String,
  /** Main file name; in the current docs only. */
  ContractFileName: Schema.optional(Schema.String),
  /** SPDX-ish license name, `"None"`, `"Unknown"`, or `""`. */
  LicenseType: Schema.String,
  /** Whether Etherscan flags the contract as a proxy. */
  Proxy: BooleanFromDigit,
  /** Implementation behind a proxy; `null` when none (the server sends `""`). */
  Implementation: EmptyAsNull(AddressField),
  /** Metadata hash URL (`"ipfs://…"`, `"bzzr://…"`), `""` when none. */
  SwarmSource: Schema.String,
  /** Address of a similar verified contract the source was matched from; only in newer answers. */
  SimilarMatch: Schema.optional(Schema.String)
}).annotations({ identifier: "ContractSource" })
/**
 * The type of the values of the `ContractSource` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ContractSource = typeof ContractSource.Type
/**
 * Wire form of {@link ContractSource}.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace ContractSource {
  /**
   * The record exactly as the server sends it.
   *
   * @since 0.1.0
   * @category models
   */
  export type Encoded = typeof ContractSource.Encoded
}

/**
 * The `result` of `contract/getabi`: the ABI as a JSON text, kept as the string the server sent (parse it
 * with `JSON.parse` or `Schema.parseJson` where needed). An unverified contract is an error answer
 * (status `"0"`), not a value of this schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AbiJson = Schema.String.annotations({ identifier: "AbiJson" })
/**
 * The type of the values of the `AbiJson` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type AbiJson = typeof AbiJson.Type

/**
 * One row of `contract/getcontractcreation`: who created a contract, in which transaction. Recorded
 * answers have the first three fields; the current docs add the block, its time, the factory (for a
 * contract created by another contract) and the creation bytecode.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContractCreation = Schema.Struct({
  contractAddress: AddressField,
  /** The account that sent the creating transaction. */
  contractCreator: AddressField,
  txHash: HashField,
  blockNumber: Schema.optional(DecimalInt),
  /** Unix seconds. */
  timestamp: Schema.optional(DecimalInt),
  /** The creating contract, `""` for a creation by an account. */
  contractFactory: Schema.optional(Schema.String),
  creationBytecode: Schema.optional(Schema.String)
}).annotations({ identifier: "ContractCreation" })
/**
 * The type of the values of the `ContractCreation` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ContractCreation = typeof ContractCreation.Type

/**
 * A verification still waiting for its turn: `"Pending in queue"` (the service answers it with status `"0"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerificationPending = Schema.TaggedStruct("Pending", {
  /** The server's text, as sent. */
  result: Schema.String
}).annotations({ identifier: "VerificationPending" })

/**
 * The submitted source matched: `"Pass - Verified"` (status `"1"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerificationPassed = Schema.TaggedStruct("Verified", {
  /** The server's text, as sent. */
  result: Schema.String
}).annotations({ identifier: "VerificationPassed" })

/**
 * The submitted source did not match, e.g. `"Fail - Unable to verify. Compiled contract deployment bytecode
 * does NOT match the transaction deployment bytecode."` (status `"0"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerificationFailed = Schema.TaggedStruct("Failed", {
  /** Why, as the server says it after `"Fail - "` (`"Unable to verify. …"`). */
  reason: Schema.String,
  /** The server's text, as sent. */
  result: Schema.String
}).annotations({ identifier: "VerificationFailed" })

/**
 * The contract was verified already (by an earlier submission, or matched from a similar contract):
 * `"Already Verified"` or `"Contract source code already verified"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerificationAlreadyDone = Schema.TaggedStruct("AlreadyVerified", {
  /** The server's text, as sent. */
  result: Schema.String
}).annotations({ identifier: "VerificationAlreadyDone" })

/**
 * What a verification's status is, one case per answer of `contract/checkverifystatus`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerificationState = Schema.Union(VerificationPending, VerificationPassed, VerificationFailed, VerificationAlreadyDone)

const PENDING = /^pending in queue/i
const PASSED = /^pass - verified/i
const ALREADY = /^(already verified|contract source code already verified)/i
const FAILED = /^fail - /i

/**
 * The `result` of `contract/checkverifystatus`: the server's text read as a {@link VerificationState} to
 * branch on by `_tag` — `Pending` (poll again later), `Verified`, `Failed` (with the server's `reason`),
 * `AlreadyVerified`. The service answers the pending, failed and already-verified texts with status `"0"`
 * and `"NOTOK"`: the client reads them as results, not as errors. Any other text does not decode (the
 * client's DecodeError), so a new answer of the service is noticed rather than guessed at. Encodes back to
 * the text as sent.
 *
 * @example
 * const status = yield* client.checkverifystatus({ guid })
 * if (status._tag === "Pending") yield* Effect.sleep("5 seconds")
 * if (status._tag === "Failed") console.error(status.reason)
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerifyStatus: Schema.Schema<VerificationState, string> = Schema.transformOrFail(Schema.String, VerificationState, {
  strict: true,
  decode: (text, _, ast) => {
    const result = text.trim()
    if (PENDING.test(result)) return ParseResult.succeed(VerificationPending.make({ result: text }))
    if (PASSED.test(result)) return ParseResult.succeed(VerificationPassed.make({ result: text }))
    if (ALREADY.test(result)) return ParseResult.succeed(VerificationAlreadyDone.make({ result: text }))
    if (FAILED.test(result)) return ParseResult.succeed(VerificationFailed.make({ reason: result.replace(FAILED, ""), result: text }))
    return ParseResult.fail(new ParseResult.Type(ast, text, `not a verification status: ${JSON.stringify(text)}`))
  },
  encode: (state) => ParseResult.succeed(state.result)
}).annotations({ identifier: "VerifyStatus" })
/**
 * The type of the values of the `VerificationState` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type VerificationState = typeof VerificationState.Type
/**
 * The type of the values of the `VerifyStatus` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type VerifyStatus = VerificationState

/**
 * Whether a text is one of the verification statuses (what the classifier keeps as a result on status "0").
 *
 * @since 0.1.0
 * @category guards
 */
export const isVerifyStatusText = (text: string): boolean => {
  const t = text.trim()
  return PENDING.test(t) || PASSED.test(t) || ALREADY.test(t) || FAILED.test(t)
}

/**
 * The `result` of `contract/verifysourcecode` and `contract/verifyproxycontract`: the GUID of the
 * submission, to poll with `checkverifystatus` (a source) or `checkproxyverification` (a proxy).
 *
 * @since 0.1.0
 * @category schemas
 */
export const VerificationGuid = Schema.String.pipe(Schema.pattern(/^\S+$/)).annotations({ identifier: "VerificationGuid" })
/**
 * The type of the values of the `VerificationGuid` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type VerificationGuid = typeof VerificationGuid.Type

/**
 * The `result` of `contract/checkproxyverification` when the proxy's implementation was found (status
 * "1"): the server's sentence, e.g. "The proxy's (0x…) implementation contract is found at 0x… and is
 * successfully updated." A proxy that is not verified, or without an implementation, is a NOTOK answer
 * (the client's NotOkError, with the server's words).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProxyVerification = Schema.String.annotations({ identifier: "ProxyVerification" })
/**
 * The type of the values of the `ProxyVerification` schema (its decoded side).
 *
 * @since 0.1.0
 * @category models
 */
export type ProxyVerification = typeof ProxyVerification.Type
