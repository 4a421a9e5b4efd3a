/**
 * wallet-history — everything about chosen wallets: normal and internal transactions, ERC-20,
 * ERC-721 and ERC-1155 transfers, and what they hold now (ERC-20 balances, NFTs). Kept up to date
 * run after run.
 *
 * Files, in `<outDir>/wallet-history/<wallet name>/`, each with its `<file>.manifest.json`:
 * - `transactions.csv`           normal transactions (txlist), from `fromBlock` on, in block order;
 * - `internal-transactions.csv`  internal transactions (txlistinternal);
 * - `erc20-transfers.csv`        ERC-20 transfers in and out (tokentx);
 * - `erc721-transfers.csv`       ERC-721 transfers (tokennfttx);
 * - `erc1155-transfers.csv`      ERC-1155 transfers (token1155tx);
 *   (these five are incremental: a later run appends only the blocks that are new since)
 * - `token-balances.csv`         current ERC-20 balances, raw quantities with decimals and price
 *                                (addresstokenbalance, PRO, throttled); rewritten at every run;
 * - `nft-holdings.csv`           current NFT holdings: ERC-721 counts, ERC-1155 amounts
 *                                (addresstokennftbalance, PRO, throttled); rewritten at every run.
 *
 * Config (`pipelines/wallet-history.config.json`, or `--config <file>`):
 * - `chainId`    the chain (default 1);
 * - `fromBlock`  first block of the history files (default 0);
 * - `wallets`    a list of `{ name, address, fromBlock? }`: a folder name (letters, digits, `.`, `_`,
 *                `-`; unique), the wallet's address, and a first block of its own.
 *
 * Run once (embedded simulator without a key; the real API with EXPLORER_API_KEY or ETHERSCAN_API_KEY,
 * plan from EXPLORER_PLAN — the two holdings files need a PRO plan):
 *     npx tsx pipelines/wallet-history.ts [outDir]
 *     explorer-etl run pipelines/wallet-history.ts --plan standard [--out-dir out]
 * Run every hour, each run incremental:
 *     explorer-etl run pipelines/wallet-history.ts --plan standard --every "0 * * * *"
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Schemas, Sources } from "explorer-etl"
import * as Pipeline from "explorer-etl/pipeline"

/** One wallet: its files go to the folder `name`. */
export const Wallet = Schema.Struct({
  name: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { message: () => "must be a folder name (letters, digits, . _ -)" })
  ),
  address: Schemas.Address,
  fromBlock: Schema.optional(Schema.NonNegativeInt)
})
/** @see Wallet */
export type Wallet = typeof Wallet.Type

/** The targets of wallet-history. */
export const WalletHistoryConfig = Schema.Struct({
  chainId: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1 }),
  fromBlock: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  wallets: Schema.Array(Wallet).pipe(
    Schema.minItems(1),
    Schema.filter((wallets) =>
      new Set(wallets.map((w) => w.name.toLowerCase())).size === wallets.length || "every wallet needs its own name"
    )
  )
})
/** @see WalletHistoryConfig */
export type WalletHistoryConfig = typeof WalletHistoryConfig.Type

/** The wallet-history pipeline. */
const pipeline = Pipeline.make({
  name: "wallet-history",
  description: "transactions, internal transactions, token transfers and holdings of chosen wallets",
  config: WalletHistoryConfig,
  configFile: new URL("./wallet-history.config.json", import.meta.url),
  // Two of the simulator's regular wallets: a few hundred rows of every kind, tokens and NFTs held.
  demoConfig: (data) => ({
    chainId: 1,
    fromBlock: 0,
    wallets: data.chain(1).wallets.slice(0, 2).map((w) => ({ name: w.name, address: w.address }))
  }),
  run: (config, context) =>
    Effect.map(
      Effect.forEach(config.wallets, (wallet) => {
        const chainId = config.chainId
        const address = wallet.address
        const range = { chainId, address, fromBlock: wallet.fromBlock ?? config.fromBlock }
        const file = (name: string) => `${wallet.name}/${name}`
        return Effect.all([
          context.export(file("transactions.csv"), Sources.transactions(range)),
          context.export(file("internal-transactions.csv"), Sources.internalTransactions(range)),
          context.export(file("erc20-transfers.csv"), Sources.erc20Transfers(range)),
          context.export(file("erc721-transfers.csv"), Sources.erc721Transfers(range)),
          context.export(file("erc1155-transfers.csv"), Sources.erc1155Transfers(range)),
          context.export(file("token-balances.csv"), Sources.tokenBalances({ chainId, address })),
          context.export(file("nft-holdings.csv"), Sources.nftHoldings({ chainId, address }))
        ])
      }, { concurrency: context.concurrency }),
      (perWallet) => perWallet.flat()
    )
})

export default pipeline

Pipeline.main(pipeline, import.meta.url)
