/**
 * The streams of a registry's data sets, by name: what `Streams.<name>` is for the library's (a file of
 * its own: the registry's index cannot load `Streams`, which loads `Sources`, which loads the index).
 */
import type * as Effect from "effect/Effect"
import type { ExplorerClient } from "../../ExplorerClient.js"
import type { StreamError } from "../../ExplorerError.js"
import type { Source } from "../Sources.js"
import { fromSourceFunction } from "../Streams.js"
import type { Registry, StreamOf } from "./index.js"

/** Each data set's stream function, by name. */
export const streamsOf = <R extends Registry>(registry: R): { readonly [K in keyof R]: StreamOf<R[K]["source"]> } =>
  Object.fromEntries(
    Object.entries(registry).map(([name, dataset]) => [
      name,
      fromSourceFunction(dataset.source as (query: unknown) => Effect.Effect<Source<unknown, unknown>, StreamError, ExplorerClient>)
    ])
  ) as { readonly [K in keyof R]: StreamOf<R[K]["source"]> }
