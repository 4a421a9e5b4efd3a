/**
 * token-activity — one ERC-20 token: its metadata, every holder, its largest holders and every
 * transfer since a block, kept up to date run after run.
 *
 * Files, in `<outDir>/token-activity/`, each with its `<file>.manifest.json` (rows, completeness,
 * block range, sha256):
 * - `token.jsonl`       the tokeninfo row: name, symbol, decimals (`divisor`), total supply, links,
 *                       price (one throttled call; a one-row export rather than a loose JSON file, so it
 *                       is written atomically, has a manifest and shows up in the run's summary).
 *                       Rewritten at every run.
 * - `holders.csv`       every holder with its raw quantity (tokenholderlist). A list longer than the
 *                       plan's result window (10,000 rows on paid plans) ends at the window: the file
 *                       holds the first rows, the manifest says `truncated` and why, the run goes on.
 *                       Rewritten at every run.
 * - `top-holders.csv`   the `topHolders` largest holders, quantities already divided by the decimals
 *                       (topholders, one throttled call). Rewritten at every run.
 * - `transfers.csv`     every ERC-20 transfer of the token from `fromBlock` on (tokentx), in block
 *                       order. Incremental: a later run appends only the blocks that are new since.
 *
 * Config (`pipelines/token-activity.config.json`, or `--config <file>`):
 * - `chainId`     the chain (default 1);
 * - `token`       the token contract address;
 * - `fromBlock`   first block of `transfers.csv` (default 0; it is part of the file's identity: change
 *                 it and run without the old files);
 * - `topHolders`  how many top holders to keep, 1..1000 (default 100);
 * - `decimals`    `true` to add amounts people can read (default `false`): `holders.csv` gains
 *                 `TokenHolderQuantityScaled`, `top-holders.csv` the same column (the server's value by
 *                 the same policy), `transfers.csv` `valueScaled` and `timeStampIso` — exact decimal
 *                 strings scaled by the token's decimals (`Sources.withDecimals`, docs/behaviour.md, "Readable
 *                 amounts"). It changes the files' columns, so a file written without it is refused
 *                 by the next run (StateMismatch): turn it on in a fresh folder, or remove the old files.
 *
 * Run once (embedded simulator without a key; the real API with EXPLORER_API_KEY or ETHERSCAN_API_KEY,
 * plan from EXPLORER_PLAN — tokeninfo, tokenholderlist and topholders need a PRO plan):
 *     npx tsx pipelines/token-activity.ts [outDir]
 *     explorer-etl run pipelines/token-activity.ts --plan standard [--out-dir out]
 * Run every hour, each run incremental:
 *     explorer-etl run pipelines/token-activity.ts --plan standard --every "0 * * * *"
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type ExplorerClient, type ExplorerError, Schemas, Sources } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

/** The targets of token-activity. */
export const TokenActivityConfig = Schema.Struct({
  chainId: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1 }),
  token: Schemas.Address,
  fromBlock: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  topHolders: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 1_000)), { default: () => 100 }),
  decimals: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
/** @see TokenActivityConfig */
export type TokenActivityConfig = typeof TokenActivityConfig.Type

/** The token-activity pipeline. */
const pipeline = Pipeline.make({
  name: "token-activity",
  description: "a token's metadata, holders, top holders and ERC-20 transfers",
  config: TokenActivityConfig,
  configFile: new URL("./token-activity.config.json", import.meta.url),
  // The airdropped token: 1,212 holders and 1,408 transfers on the simulator.
  demoConfig: (data) => {
    const chain = data.chain(1)
    return { chainId: 1, token: chain.airdropToken.address, fromBlock: chain.activity.fromBlock, topHolders: 25, decimals: false }
  },
  run: (config, context) => {
    const { chainId, token } = config
    /** The source, with scaled amounts when the config asks for them. */
    const readable = <A, I>(source: Effect.Effect<Sources.Source<A, I>, ExplorerError.StreamError, ExplorerClient.ExplorerClient>) =>
      config.decimals ? Effect.flatMap(source, (s) => Sources.withDecimals(s)) : source
    return Effect.all([
      context.export(
        "token.jsonl",
        Pipeline.oneCall({
          dataset: "tokenInfo",
          operation: "tokeninfo",
          chainId,
          query: { contractAddress: token },
          schema: Schemas.TokenInfo,
          fetch: (client, chainId) => client.tokeninfo({ chainId, contractAddress: token })
        })
      ),
      context.export("holders.csv", readable(Sources.tokenHolders({ chainId, contractAddress: token })), { allowPartial: true }),
      context.export("top-holders.csv", readable(Sources.topHolders({ chainId, contractAddress: token, limit: config.topHolders }))),
      context.export("transfers.csv", readable(Sources.erc20Transfers({ chainId, contractAddress: token, fromBlock: config.fromBlock })))
    ])
  }
})

export default pipeline

Pipeline.main(pipeline, import.meta.url)
