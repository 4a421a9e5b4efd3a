/**
 * The streams of a registry's data sets, by name: what `Streams.<name>` is for the library's (a file of
 * its own: the registry's index cannot load `Streams`, which loads `Sources`, which loads the index).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ExplorerClient } from "../../ExplorerClient.js"
import type { StreamError } from "../../ExplorerError.js"
import type { SpillingStreamOptions, Source, StreamOptions } from "../Sources.js"
import { fromSource, type StreamFunction } from "../Streams.js"
import type { Registry, StreamOf } from "./index.js"

/** A stream function from a source function: the source made, then read whole. */
export const streamOf = <Q, A, I>(make: (query: Q) => Effect.Effect<Source<A, I>, StreamError, ExplorerClient>): StreamFunction<Q, A> =>
  // Typed by `StreamFunction`'s overloads: with a spill, a `SinkError` and a `FileSystem` too.
  ((query: Q, options?: StreamOptions) =>
    Stream.unwrap(Effect.map(make(query), (source) => fromSource(source, options as SpillingStreamOptions)))) as StreamFunction<Q, A>

/** Each data set's stream function, by name. */
export const streamsOf = <R extends Registry>(registry: R): { readonly [K in keyof R]: StreamOf<R[K]["source"]> } =>
  Object.fromEntries(
    Object.entries(registry).map(([name, dataset]) => [
      name,
      streamOf(dataset.source as (query: unknown) => Effect.Effect<Source<unknown, unknown>, StreamError, ExplorerClient>)
    ])
  ) as { readonly [K in keyof R]: StreamOf<R[K]["source"]> }
