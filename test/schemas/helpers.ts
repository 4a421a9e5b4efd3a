/** Small helpers of the schema suites: decode, encode, and whether either fails. */
import { Either, Schema } from "effect"

export const decode = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownEither(schema)
export const ok = <A, I>(schema: Schema.Schema<A, I>, input: unknown): A => Schema.decodeUnknownSync(schema)(input)
export const fails = <A, I>(schema: Schema.Schema<A, I>, input: unknown): boolean => Either.isLeft(decode(schema)(input))
export const encodes = <A, I>(schema: Schema.Schema<A, I>, value: A): I => Schema.encodeSync(schema)(value)
export const encodeFails = <A, I>(schema: Schema.Schema<A, I>, value: A): boolean =>
  Either.isLeft(Schema.encodeEither(schema)(value))
