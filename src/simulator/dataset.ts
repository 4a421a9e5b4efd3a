/**
 * The simulator's data set: per chain, the regular world (world.ts), the big row sets of the busy
 * wallet and the heavy contract (synthetic.ts, built on first use), the scenario rows of the
 * options, and the indexes the query engine reads. Also the public description of the well-known
 * entities (`sim.dataset.chain(1).erc20[0].address` …).
 */
import * as Chain from "../Chain.js"
import { addressHex, hashString, mix32 } from "./hash.js"
import type { DatasetOptions, Scenario, ScenarioKind } from "./options.js"
import {
  ACTIVITY_SPAN,
  blockHash,
  type ChainProfile,
  chainRoot,
  DEFAULT_CHAINS,
  entityAddress,
  profileOf,
  timestampOf
} from "./profiles.js"
import { proposerNames, STAKER, stakerValidators, withdrawnBy } from "./blocks.js"
import { buildShape, planShapes, shapeRef, type ShapePlanned, type ShapeRef } from "./shapes.js"
import { ensNames } from "./ens.js"
import { Mining } from "./mining.js"
import { Submissions } from "./submissions.js"
import { makeVerifications, noVerifications, type VerificationGuids, type Verifications } from "./verifications.js"
import type { ChainView, InternalTx, Log, NormalTx, TokenMeta, TokenTransfer } from "./rows.js"
import { arrayLogSource, arraySource, type LogSource, type RowSource, upperBound } from "./rowIndex.js"
import {
  addressPool,
  type BlockPlan,
  blocksFromPairs,
  generateBlocks,
  internalSource,
  maxPerBlock,
  planBlocks,
  SWAP_TOPIC,
  swapLogSource,
  transferLogSource,
  transferSource,
  walletTxSource
} from "./synthetic.js"
import {
  balanceAt,
  buildWorld,
  ERC1155_DEF,
  ERC20_DEFS,
  ERC721_DEF,
  EXTRA_ERC20_DEFS,
  type Funding,
  names,
  type Verified,
  WALLET_COUNT,
  type World
} from "./world.js"

// ---- public description ---------------------------------------------------------------------------


/**
 * An account whose key is public (the first of Hardhat's and Anvil's development accounts), holding
 * 10,000 of the native coin from genesis on every populated chain: the one sender whose transactions
 * a test can sign and the simulator accepts (eth_sendRawTransaction checks the sender's balance).
 *
 * @since 0.1.0
 * @category constants
 */
export const DEV_ACCOUNT = {
  address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  balance: 10_000n * 10n ** 18n
} as const

/**
 * A named entity of the data set.
 *
 * @since 0.1.0
 * @category models
 */
export interface EntityRef {
  readonly name: string
  readonly address: string
}

/**
 * A token contract of the data set.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenRef extends EntityRef {
  readonly tokenName: string
  readonly symbol: string
  readonly decimals: number
  readonly standard: "erc20" | "erc721" | "erc1155"
}

/**
 * A block holding more rows of one entity than a page (or a free window) holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface DenseBlockRef {
  readonly block: number
  readonly rows: number
}

/**
 * A name tag of the data set (nametag/getaddresstag, exportaddresstags).
 *
 * @since 0.1.0
 * @category models
 */
export interface LabelRef {
  readonly address: string
  readonly nametag: string
  readonly labels: ReadonlyArray<string>
  readonly labelsSlug: ReadonlyArray<string>
  readonly url: string
  readonly shortdescription: string
  readonly notes: string
  readonly reputation: number
  readonly lastupdatedtimestamp: number
}

/**
 * The well-known entities and shape of one chain's data set.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChainDataset {
  readonly chainId: number
  readonly name: string
  readonly latestBlock: number
  readonly blockTimeSeconds: number
  /** Unix seconds of a block (the same in every row). */
  readonly timestampOf: (block: number) => number
  /** Blocks of the regular activity (funding, deployments, transfers…); the big sets span it too. */
  readonly activity: { readonly fromBlock: number; readonly toBlock: number }
  /** The exchange hot wallet: GENESIS allocation, funds every EOA (fundedby). */
  readonly funder: EntityRef
  /** Deploys every contract (creation transactions with `to` ""). */
  readonly deployer: EntityRef
  /** Ten EOAs with native, ERC-20, ERC-721, ERC-1155 activity, swaps, failed calls, creations. */
  readonly wallets: ReadonlyArray<EntityRef>
  /** A wallet with `busyWalletTransactions` txs; its dense block holds 1,500 txs (> free window 1,000). */
  readonly busyWallet: EntityRef & { readonly transactions: number; readonly denseBlock: DenseBlockRef | undefined }
  /** A pool contract with `heavyContractLogs` Swap logs; its dense block holds 1,500 logs (> one 1,000-log page). */
  readonly heavyContract: EntityRef & {
    readonly logs: number
    readonly topic0: string
    readonly denseBlock: DenseBlockRef | undefined
  }
  /** The heavy contract's dense block number (convenience). */
  readonly denseBlock: number | undefined
  readonly erc20: ReadonlyArray<TokenRef>
  readonly erc721: ReadonlyArray<TokenRef>
  readonly erc1155: ReadonlyArray<TokenRef>
  /** The SGOV token: airdropped to 1,200 addresses, so its holder list spans several pages. */
  readonly airdropToken: TokenRef
  /** A verified contract (the swap router; source, ABI). */
  readonly verifiedContract: EntityRef
  /** An unverified contract (the vault: deposits, failing withdrawals). */
  readonly unverifiedContract: EntityRef
  /** A verified proxy whose implementation is the router. */
  readonly proxyContract: EntityRef
  /**
   * GUIDs for checkverifystatus: the router's passed verification, a pending and a failed submission for
   * the vault, a second submission of the router ("Already Verified"). Any other GUID answers "Unknown UID".
   */
  readonly verifications: VerificationGuids
  /** The GUID of the verification a verified contract passed ("Pass - Verified"); `undefined` for others. */
  readonly verificationGuidOf: (address: string) => string | undefined
  /** An ERC-20 of 0 decimals (verified; transfers to wallets 0..3 and from wallet 0 to 1). */
  readonly wholeToken: TokenRef
  /**
   * An ERC-20 of 24 decimals behind an upgradeable proxy (getsourcecode says Proxy, its implementation
   * verified apart): its logs mix Transfer, Approval and the proxy's Upgraded with logs its ABI cannot
   * decode (a Transfer with 3 indexed topics, a Paused event no ABI declares).
   */
  readonly proxyToken: TokenRef & { readonly implementation: string }
  /** A factory whose calls create contracts through internal "create2" traces. */
  readonly factory: EntityRef
  /** Name tags of this chain. */
  readonly labels: ReadonlyArray<LabelRef>
  /** The four builders that propose (`miner`) almost every block: a builder's getminedblocks is endless. */
  readonly builders: ReadonlyArray<EntityRef>
  /** A solo validator proposing about one block in a thousand of the activity (a short getminedblocks). */
  readonly soloValidator: EntityRef
  /** The withdrawal address of 16 validators, swept about every 5,000 blocks of the activity (txsBeaconWithdrawal). */
  readonly staker: EntityRef & { readonly validators: ReadonlyArray<number> }
  /** The tokens that scenario transfer rows name (tokentx/tokennfttx/token1155tx scenarios). */
  readonly scenarioTokens: { readonly erc20: string; readonly erc721: string; readonly erc1155: string }
  /**
   * Contracts whose Transfer logs have a named density shape (sparse, dense, bursty, hot, window) at
   * sizes of 2 s, 5 s, 30 s and 5 min of the free, standard and professional plans' budgets, e.g.
   * `bursty-standard-5s`: query getLogs with the set's address over its block range. Built on first query.
   */
  readonly shapes: ReadonlyArray<ShapeRef>
  /**
   * ENS names of the data set (mainnet and Sepolia only, where ENS lives): each resolves to its address
   * through the registry and resolver eth_call answers, and the address's reverse record names it back
   * (ethers' `resolveName` / `lookupAddress`).
   */
  readonly ensNames: ReadonlyArray<{ readonly name: string; readonly address: string }>
}

/**
 * The whole data set's description.
 *
 * @since 0.1.0
 * @category models
 */
export interface DatasetDescription {
  readonly seed: number
  /** Chains with a populated data set; every other served chain answers empty lists. */
  readonly chainIds: ReadonlyArray<number>
  /** Well-known entities of a populated chain (throws for a chain without a populated data set). */
  readonly chain: (chainId: number) => ChainDataset
}

// ---- defaults ---------------------------------------------------------------------------------------

/**
 * Default size of each busy wallet's txlist.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_BUSY_WALLET_TRANSACTIONS = 5_000
/**
 * Default number of logs of each heavy contract.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_HEAVY_CONTRACT_LOGS = 20_000
/**
 * Rows of the dense blocks (busy wallet txs, heavy contract logs).
 *
 * @since 0.1.0
 * @category constants
 */
export const DENSE_ROWS = 1_500

const LABEL_TIME = 1_721_899_658

const makeLabels = (addr: (name: string) => string): ReadonlyArray<LabelRef> => {
  const l = (
    name: string,
    nametag: string,
    labels: ReadonlyArray<string>,
    url: string,
    shortdescription: string,
    offset: number,
    notes = "",
    reputation = 0
  ): LabelRef => ({
    address: addr(name),
    nametag,
    labels,
    labelsSlug: labels.map((x) => x.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")),
    url,
    shortdescription,
    notes,
    reputation,
    lastupdatedtimestamp: LABEL_TIME + offset
  })
  return [
    l(names.funder, "Sim Exchange: Hot Wallet 1", ["Exchange", "Sim Exchange"], "https://exchange.example", "", 0),
    l(names.deployer, "Sim Labs: Deployer", ["Sim Labs"], "https://simlabs.example", "", 11),
    l(names.router, "SimSwap: Router", ["DEX", "SimSwap"], "https://simswap.example", "Swap router", 23),
    l(names.factory, "SimSwap: Factory", ["DEX", "SimSwap"], "https://simswap.example", "", 31),
    l(names.heavy, "SimSwap: WSETH-SUSD Pool", ["DEX", "SimSwap", "Liquidity Pool"], "https://simswap.example", "", 47),
    l(names.erc20("SUSD"), "Simulated USD: SUSD Token", ["Token Contract", "Stablecoin"], "https://simusd.example", "", 53),
    l(names.erc20("WSETH"), "Wrapped Sim Ether: WSETH Token", ["Token Contract"], "", "", 61),
    l(names.erc20("SGOV"), "Sim Governance: SGOV Token", ["Token Contract", "Governance"], "", "", 67),
    l(names.busyWallet, "Sim Bot 1", ["MEV Bot"], "", "", 79),
    l(names.vault, "Fake_Phishing1", ["Phish / Hack"], "", "", 83, "Reported for phishing; do not send funds.", 2)
  ]
}

// ---- per-chain data -----------------------------------------------------------------------------------

interface ScenarioSet {
  readonly scenario: Scenario
  readonly id: number
  readonly address: string
  readonly blocks: Int32Array
}

/** A holder of a token (tokenholderlist / topholders). */
export interface Holder {
  readonly address: string
  readonly quantity: bigint
  readonly contract: boolean
}

/** How a contract was created: by an account's transaction, or by a factory inside one. */
export interface Creation {
  readonly block: number
  /** The account that sent the creating transaction. */
  readonly creator: string
  readonly txHash: string
  /** The creating contract, "" for a creation by an account. */
  readonly factory: string
  readonly bytecode: string
}

/** One addresstokenbalance / addresstokennftbalance row. */
export interface Holding {
  readonly token: string
  readonly name: string
  readonly symbol: string
  readonly quantity: bigint
  readonly decimals: number
  readonly priceUsd: string
}

const EMPTY_HISTORY_WORLD: World = {
  txs: [], internals: [], logs: [], txByAddress: new Map(), internalByAddress: new Map(), internalByHash: new Map(),
  logsByAddress: new Map(),
  transfersByAddress: { erc20: new Map(), erc721: new Map(), erc1155: new Map() },
  transfersByToken: { erc20: new Map(), erc721: new Map(), erc1155: new Map() },
  nativeHistory: new Map(), tokenHistory: new Map(), tokens: new Map(), erc20Defs: new Map(), totalSupply: new Map(),
  funding: new Map(), contracts: new Set(), verified: new Map(), maxTxIndex: 0, maxLogIndex: 0, activityStart: 0,
  activityEnd: 0
}

const lazy = <A>(f: () => A): (() => A) => {
  let done = false
  let value: A | undefined
  return () => {
    if (!done) {
      value = f()
      done = true
    }
    return value as A
  }
}

/** The data of one chain, built lazily. */
export class ChainData {
  readonly root: number
  readonly profile: ChainProfile
  readonly view: ChainView
  readonly addr: (name: string) => string
  readonly busyAddress: string
  readonly heavyAddress: string
  readonly scenarioTokens: Readonly<Record<TokenMeta["standard"], TokenMeta>>
  readonly labels: ReadonlyArray<LabelRef>
  private readonly scenarioSets: ReadonlyArray<ScenarioSet>
  private readonly busyPlan: BlockPlan | undefined
  private readonly heavyPlan: BlockPlan | undefined

  constructor(
    readonly seed: number,
    readonly chainId: number,
    readonly populated: boolean,
    busyTransactions: number,
    heavyLogs: number,
    scenarios: ReadonlyArray<readonly [number, Scenario]>
  ) {
    this.root = chainRoot(seed, chainId)
    const profile = profileOf(chainId)
    this.profile = profile
    const root = this.root
    // A direct-mapped cache of block hashes: rows of one block are served together.
    const cachedBlocks = new Int32Array(1024).fill(-1)
    const cachedHashes: Array<string> = new Array(1024).fill("")
    const head = () => this.head()
    this.view = {
      // the head: the data set's latest block, or the last one mined since (confirmations count from it)
      get latestBlock() {
        return head()
      },
      timestampOf: (b) => timestampOf(profile, b),
      blockHashOf: (b) => {
        const slot = b & 1023
        if (cachedBlocks[slot] === b) return cachedHashes[slot] as string
        const h = blockHash(root, b)
        cachedBlocks[slot] = b
        cachedHashes[slot] = h
        return h
      }
    }
    this.addr = (name) => entityAddress(seed, chainId, name)
    this.busyAddress = this.addr(names.busyWallet)
    this.heavyAddress = this.addr(names.heavy)
    this.labels = populated ? makeLabels(this.addr) : []
    const from = profile.latestBlock - ACTIVITY_SPAN + 2_000
    const to = profile.latestBlock - 10
    const span = to - from
    this.busyPlan = populated && busyTransactions > 0
      ? planBlocks(busyTransactions, from, to, from + Math.floor(span * 0.37) + (mix32(root ^ 1) % 997), busyTransactions >= 2 * DENSE_ROWS ? DENSE_ROWS : 0)
      : undefined
    this.heavyPlan = populated && heavyLogs > 0
      ? planBlocks(heavyLogs, from, to, from + Math.floor(span * 0.61) + (mix32(root ^ 2) % 991), heavyLogs >= 2 * DENSE_ROWS ? DENSE_ROWS : 0)
      : undefined
    const scenarioToken = (standard: TokenMeta["standard"], name: string, symbol: string, decimals: number): TokenMeta => ({
      address: this.addr(`scenario-${standard}`),
      name,
      symbol,
      decimals,
      standard
    })
    this.scenarioTokens = {
      erc20: scenarioToken("erc20", "Scenario Token", "SCN", 18),
      erc721: scenarioToken("erc721", "Scenario NFT", "SCNFT", 0),
      erc1155: scenarioToken("erc1155", "Scenario Items", "SCITM", 0)
    }
    this.scenarioSets = scenarios.map(([index, scenario]) => ({
      scenario,
      id: mix32(hashString(`scenario:${index}`) ^ root),
      address: scenario.address.toLowerCase(),
      blocks: blocksFromPairs(scenario.rowsPerBlock)
    }))
  }

  /** The regular world (empty on chains without a populated data set). */
  readonly world = lazy(() => (this.populated ? buildWorld(this.seed, this.profile) : EMPTY_HISTORY_WORLD))

  /** Raw transactions accepted by eth_sendRawTransaction and not mined: hash → the pending transaction's JSON. */
  readonly pendingTxs = lazy(() => new Map<string, string>())

  /** The blocks mined after the data set's latest one, and the pool they are mined from (mining.ts). */
  readonly mining = lazy(() => new Mining(this.profile.latestBlock, this.profile.blockTime * 1000))

  /** The latest block: the data set's, or the last one mined since. */
  head(): number {
    return this.mining().head()
  }

  /** Verifications submitted while the simulator runs (verifysourcecode, verifyproxycontract). */
  readonly submissions = lazy(() => new Submissions(this.root))

  /** Source-code verifications and their GUIDs (checkverifystatus); none on a chain without data. */
  readonly verifications = lazy((): Verifications =>
    this.populated
      ? makeVerifications(this.root, this.world().verified.keys(), { router: this.addr(names.router), vault: this.addr(names.vault) })
      : noVerifications
  )

  /** Dense block and size of the busy wallet / heavy contract. */
  get busyInfo() {
    return this.busyPlan
  }
  get heavyInfo() {
    return this.heavyPlan
  }

  /** Lane bases: [txLane, logLane] for the busy wallet, heavy contract and each scenario set. */
  private readonly lanes = lazy(() => {
    const w = this.world()
    let tx = w.maxTxIndex + 1
    let log = w.maxLogIndex + 1
    const laneMax = (p: BlockPlan | undefined) => (p === undefined ? 0 : Math.max(p.cap, p.dense?.rows ?? 0))
    const busy = tx
    tx += laneMax(this.busyPlan)
    const heavyTx = tx
    const heavyLog = log
    tx += laneMax(this.heavyPlan)
    log += laneMax(this.heavyPlan)
    const scenario = new Map<ScenarioSet, readonly [number, number]>()
    for (const s of this.scenarioSets) {
      scenario.set(s, [tx, log])
      const m = maxPerBlock(s.blocks)
      tx += m
      if (s.scenario.kind === "logs" || s.scenario.kind === "mixedLogs" || s.scenario.kind === "tokentx" || s.scenario.kind === "tokennfttx" || s.scenario.kind === "token1155tx") log += m
    }
    // The shape sets share one lane above all others: they are served by address only, never together.
    return { busy, heavyTx, heavyLog, scenario, shape: [tx, log] as const }
  })

  private ctx() {
    return { root: this.root, profile: this.profile }
  }

  /** The density-shape sets of this chain, laid out (rows built on first query), by address. */
  readonly shapePlans = lazy((): ReadonlyMap<string, ShapePlanned> =>
    this.populated
      ? new Map(
        planShapes(this.profile.latestBlock, (name) => this.addr(name), (name) => mix32(hashString(`shape:${name}`) ^ this.root))
          .map((p) => [p.address, p] as const)
      )
      : new Map()
  )

  private readonly shapeCache = new Map<string, LogSource>()
  /** The log source of a density-shape set, built on its first query. */
  shapeSource(address: string): LogSource | undefined {
    const hit = this.shapeCache.get(address)
    if (hit !== undefined) return hit
    const p = this.shapePlans().get(address)
    if (p === undefined) return undefined
    const [txLane, logLane] = this.lanes().shape
    const src = transferLogSource(this.ctx(), p.seed, p.address, buildShape(p), txLane, logLane)
    this.shapeCache.set(address, src)
    return src
  }

  /** The busy wallet's synthetic transactions (undefined when the knob is 0 or the chain is empty). */
  readonly busy = lazy(() => {
    const p = this.busyPlan
    if (p === undefined) return undefined
    const blocks = generateBlocks(p, mix32(this.root ^ 0xb05e))
    return walletTxSource(this.ctx(), mix32(this.root ^ 0xb05f), this.busyAddress, blocks, this.lanes().busy, p.dense?.block ?? -1)
  })

  /** Prefix sums of the busy wallet's native balance changes. */
  private readonly busyPrefix = lazy(() => {
    const b = this.busy()
    if (b === undefined) return []
    const out: Array<bigint> = []
    let sum = 0n
    for (let i = 0; i < b.blocks.length; i++) {
      sum += b.nativeDelta(i)
      out.push(sum)
    }
    return out
  })

  /** The heavy contract's synthetic Swap logs. */
  readonly heavy = lazy((): LogSource | undefined => {
    const p = this.heavyPlan
    if (p === undefined) return undefined
    const blocks = generateBlocks(p, mix32(this.root ^ 0x4ea7))
    const routers = [this.addr(names.router), ...addressPool(this.root, 0x2047e2, 7)]
    const l = this.lanes()
    return swapLogSource(this.ctx(), mix32(this.root ^ 0x4ea8), this.heavyAddress, routers, blocks, l.heavyTx, l.heavyLog)
  })

  private readonly scenarioSources = lazy(() => {
    const l = this.lanes()
    const ctx = this.ctx()
    const txs = new Map<string, Array<RowSource<NormalTx>>>()
    const internals: Array<[string, RowSource<InternalTx>]> = []
    const logs: Array<[string, LogSource]> = []
    const transfers: Array<[string, RowSource<TokenTransfer>]> = []
    const holders = new Map<string, Array<ScenarioSet>>()
    const balances = new Map<string, Array<ScenarioSet>>()
    const nftBalances = new Map<string, Array<ScenarioSet>>()
    const add = <A>(m: Map<string, Array<A>>, k: string, v: A) => {
      const a = m.get(k)
      if (a === undefined) m.set(k, [v])
      else a.push(v)
    }
    for (const s of this.scenarioSets) {
      const [txLane, logLane] = l.scenario.get(s) ?? [0, 0]
      const kind: ScenarioKind = s.scenario.kind
      switch (kind) {
        case "txlist":
          add(txs, s.address, walletTxSource(ctx, s.id, s.address, s.blocks, txLane, -1))
          break
        case "txlistinternal":
          internals.push([s.address, internalSource(ctx, s.id, s.address, s.blocks, txLane)])
          break
        case "logs":
          logs.push([s.address, transferLogSource(ctx, s.id, s.address, s.blocks, txLane, logLane)])
          break
        case "mixedLogs":
          logs.push([s.address, transferLogSource(ctx, s.id, s.address, s.blocks, txLane, logLane, true)])
          break
        case "tokentx":
          transfers.push([s.address, transferSource(ctx, s.id, s.address, this.scenarioTokens.erc20, s.blocks, txLane, logLane)])
          break
        case "tokennfttx":
          transfers.push([s.address, transferSource(ctx, s.id, s.address, this.scenarioTokens.erc721, s.blocks, txLane, logLane)])
          break
        case "token1155tx":
          transfers.push([s.address, transferSource(ctx, s.id, s.address, this.scenarioTokens.erc1155, s.blocks, txLane, logLane)])
          break
        case "tokenholderlist":
          add(holders, s.address, s)
          break
        case "addresstokenbalance":
          add(balances, s.address, s)
          break
        case "addresstokennftbalance":
          add(nftBalances, s.address, s)
          break
      }
    }
    return { txs, internals, logs, transfers, holders, balances, nftBalances }
  })

  private readonly cache = new Map<string, RowSource<unknown>>()
  private cached<R>(key: string, rows: ReadonlyArray<R> | undefined, blockOf: (r: R) => number): RowSource<R> | undefined {
    if (rows === undefined || rows.length === 0) return undefined
    let s = this.cache.get(key) as RowSource<R> | undefined
    if (s === undefined) {
      s = arraySource(rows, blockOf)
      this.cache.set(key, s as RowSource<unknown>)
    }
    return s
  }
  private readonly logCache = new Map<string, LogSource>()
  private cachedLogs(key: string, rows: ReadonlyArray<Log> | undefined): LogSource | undefined {
    if (rows === undefined || rows.length === 0) return undefined
    let s = this.logCache.get(key)
    if (s === undefined) {
      s = arrayLogSource(rows)
      this.logCache.set(key, s)
    }
    return s
  }

  /** txlist sources of an address, in lane order. */
  txSources(address: string): ReadonlyArray<RowSource<NormalTx>> {
    const out: Array<RowSource<NormalTx>> = []
    const w = this.cached(`tx:${address}`, this.world().txByAddress.get(address), (t) => t.block)
    if (w !== undefined) out.push(w)
    if (address === this.busyAddress) {
      const b = this.busy()
      if (b !== undefined) out.push(b)
    }
    out.push(...(this.scenarioSources().txs.get(address) ?? []))
    const mined = this.mining().source(address)
    if (mined !== undefined) out.push(mined)
    return out
  }

  /** txlistinternal sources of an address, or of the whole chain (block-range variant). */
  internalSources(address: string | undefined): ReadonlyArray<RowSource<InternalTx>> {
    const out: Array<RowSource<InternalTx>> = []
    const rows = address === undefined ? this.world().internals : this.world().internalByAddress.get(address)
    const w = this.cached(`int:${address ?? "*"}`, rows, (t) => t.block)
    if (w !== undefined) out.push(w)
    for (const [owner, src] of this.scenarioSources().internals) if (address === undefined || owner === address) out.push(src)
    return out
  }

  private readonly scenarioInternalByHash = lazy(() => {
    const m = new Map<string, Array<InternalTx>>()
    for (const [, src] of this.scenarioSources().internals) {
      for (let i = 0; i < src.blocks.length; i++) {
        const t = src.get(i)
        const a = m.get(t.hash)
        if (a === undefined) m.set(t.hash, [t])
        else a.push(t)
      }
    }
    return m
  })

  private readonly txIndex = lazy(() => {
    const m = new Map<string, NormalTx>()
    for (const t of this.world().txs) m.set(t.hash, t)
    return m
  })

  /** A normal transaction of the regular activity by hash (the busy wallet's and scenario rows aside). */
  txByHash(hash: string): NormalTx | undefined {
    return this.txIndex().get(hash) ?? this.mining().tx(hash)
  }

  private readonly blockIndex = lazy(() => {
    const m = new Map<number, Array<NormalTx>>()
    for (const t of this.world().txs) {
      if (t.genesis) continue
      const a = m.get(t.block)
      if (a === undefined) m.set(t.block, [t])
      else a.push(t)
    }
    for (const a of m.values()) a.sort((x, y) => x.index - y.index)
    return m
  })

  /** The regular activity's transactions of one block, by transactionIndex (the proxy module's blocks). */
  txsInBlock(block: number): ReadonlyArray<NormalTx> {
    return block > this.profile.latestBlock ? this.mining().txsIn(block) : this.blockIndex().get(block) ?? []
  }

  private readonly logsByTx = lazy(() => {
    const m = new Map<string, Array<Log>>()
    for (const l of this.world().logs) {
      const a = m.get(l.txHash)
      if (a === undefined) m.set(l.txHash, [l])
      else a.push(l)
    }
    return m
  })

  /** The logs of one transaction of the regular activity (its receipt's logs). */
  logsOfTx(hash: string): ReadonlyArray<Log> {
    return this.logsByTx().get(hash) ?? []
  }

  /** How many transactions `address` sent up to the end of `block` (eth_getTransactionCount). */
  nonceAt(address: string, block: number): number {
    let n = 0
    for (const t of this.world().txByAddress.get(address) ?? []) if (t.from === address && !t.genesis && t.block <= block) n++
    return n + this.mining().sent(address, block)
  }

  private readonly creations = lazy(() => {
    const m = new Map<string, Creation>()
    const w = this.world()
    for (const t of w.txs) {
      if (t.contractAddress !== "" && !t.isError) {
        m.set(t.contractAddress, { block: t.block, creator: t.from, txHash: t.hash, factory: "", bytecode: t.input })
      }
    }
    for (const t of w.internals) {
      if (t.contractAddress === "" || t.isError || m.has(t.contractAddress)) continue
      const parent = this.txByHash(t.hash)
      m.set(t.contractAddress, {
        block: t.block,
        creator: parent?.from ?? t.from,
        txHash: t.hash,
        factory: t.from,
        bytecode: "0x60806040" + t.contractAddress.slice(2) + "0033"
      })
    }
    return m
  })

  /** The block a contract of the regular activity was created in, if it is one. */
  createdAt(address: string): number | undefined {
    return this.creations().get(address)?.block
  }

  /** How a contract of the regular activity was created (getcontractcreation), if it is one. */
  creationOf(address: string): Creation | undefined {
    return this.creations().get(address)
  }

  /** A token's raw total supply at the end of `block`: the sum of its holders' balances then. */
  totalSupplyAt(token: string, block: number): bigint {
    let sum = 0n
    for (const h of this.world().tokenHistory.get(token)?.values() ?? []) sum += balanceAt(h, block)
    return sum
  }

  /** Internal transactions of one parent transaction. */
  internalByHash(hash: string): ReadonlyArray<InternalTx> {
    return this.world().internalByHash.get(hash) ?? this.scenarioInternalByHash().get(hash) ?? []
  }

  /**
   * Token transfer sources of a standard for `address` (a participant) and/or `contract` (the token),
   * and a row test when both are given.
   */
  transferSources(
    standard: TokenMeta["standard"],
    address: string | undefined,
    contract: string | undefined
  ): { readonly sources: ReadonlyArray<RowSource<TokenTransfer>>; readonly test?: (s: number, i: number) => boolean } {
    const w = this.world()
    const out: Array<RowSource<TokenTransfer>> = []
    const scenarioToken = this.scenarioTokens[standard].address
    const scen = this.scenarioSources().transfers.filter(([, src]) => src.blocks.length > 0 && src.get(0).token.standard === standard)
    if (address !== undefined) {
      const own = this.cached(`tt:${standard}:a:${address}`, w.transfersByAddress[standard].get(address), (t) => t.tx.block)
      if (own !== undefined) out.push(own)
      for (const [owner, src] of scen) if (owner === address) out.push(src)
      if (contract === undefined) return { sources: out }
      return {
        sources: out,
        test: (s, i) => (out[s] as RowSource<TokenTransfer>).get(i).token.address === contract
      }
    }
    if (contract === undefined) return { sources: out }
    const byToken = this.cached(`tt:${standard}:c:${contract}`, w.transfersByToken[standard].get(contract), (t) => t.tx.block)
    if (byToken !== undefined) out.push(byToken)
    if (contract === scenarioToken) for (const [, src] of scen) out.push(src)
    return { sources: out }
  }

  /** Log sources of a contract, or of every contract of the chain. */
  logSources(address: string | undefined): ReadonlyArray<LogSource> {
    const out: Array<LogSource> = []
    const w = this.world()
    const own = this.cachedLogs(`log:${address ?? "*"}`, address === undefined ? w.logs : w.logsByAddress.get(address))
    if (own !== undefined) out.push(own)
    if (address === undefined || address === this.heavyAddress) {
      const h = this.heavy()
      if (h !== undefined) out.push(h)
    }
    for (const [owner, src] of this.scenarioSources().logs) if (address === undefined || owner === address) out.push(src)
    const shape = address === undefined ? undefined : this.shapeSource(address)
    if (shape !== undefined) out.push(shape)
    return out
  }

  /** Metadata of a token contract (regular or scenario), if it is one. */
  tokenMeta(address: string): TokenMeta | undefined {
    const t = this.world().tokens.get(address)
    if (t !== undefined) return t
    for (const s of Object.values(this.scenarioTokens)) if (s.address === address) return s
    return undefined
  }

  private readonly holderCache = new Map<string, ReadonlyArray<Holder>>()
  /** Holders of a token with a non-zero balance, largest first (ties by address). */
  holders(token: string): ReadonlyArray<Holder> {
    const hit = this.holderCache.get(token)
    if (hit !== undefined) return hit
    const w = this.world()
    const out: Array<Holder> = []
    for (const [who, h] of w.tokenHistory.get(token) ?? new Map()) {
      const q = h.balances[h.balances.length - 1] ?? 0n
      if (q > 0n) out.push({ address: who, quantity: q, contract: w.contracts.has(who) })
    }
    for (const s of this.scenarioSources().holders.get(token) ?? []) {
      const n = s.blocks.length
      for (let k = 0; k < n; k++) {
        const h = mix32(s.id ^ mix32(k))
        out.push({ address: addressHex(this.root, s.id, k), quantity: (BigInt(h) << 20n) + BigInt(k + 1), contract: false })
      }
    }
    out.sort((a, b) => (a.quantity === b.quantity ? (a.address < b.address ? -1 : a.address > b.address ? 1 : 0) : a.quantity > b.quantity ? -1 : 1))
    this.holderCache.set(token, out)
    return out
  }

  /** ERC-20 holdings of an address (addresstokenbalance), by token address. */
  tokenHoldings(address: string): ReadonlyArray<Holding> {
    const w = this.world()
    const out: Array<Holding> = []
    for (const [token, def] of w.erc20Defs) {
      const q = this.finalBalance(token, address)
      if (q > 0n) out.push({ token, name: def.name, symbol: def.symbol, quantity: q, decimals: def.decimals, priceUsd: def.priceUsd })
    }
    for (const s of this.scenarioSources().balances.get(address) ?? []) {
      for (let k = 0; k < s.blocks.length; k++) {
        const h = mix32(s.id ^ mix32(k + 7))
        out.push({
          token: addressHex(this.root, s.id ^ 0x70cb, k), name: `Scenario Token ${k}`, symbol: `SCN${k}`,
          quantity: (BigInt(h) << 24n) + BigInt(k + 1), decimals: 18, priceUsd: "0.000000000000000000"
        })
      }
    }
    return out.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0))
  }

  /** NFT holdings of an address (addresstokennftbalance): ERC-721 counts and ERC-1155 amounts. */
  nftHoldings(address: string): ReadonlyArray<Holding> {
    const w = this.world()
    const out: Array<Holding> = []
    for (const t of w.tokens.values()) {
      if (t.standard === "erc20") continue
      const q = this.finalBalance(t.address, address)
      if (q > 0n) out.push({ token: t.address, name: t.name, symbol: t.symbol, quantity: q, decimals: 0, priceUsd: "" })
    }
    for (const s of this.scenarioSources().nftBalances.get(address) ?? []) {
      for (let k = 0; k < s.blocks.length; k++) {
        out.push({
          token: addressHex(this.root, s.id ^ 0x7f7b, k), name: `Scenario Collection ${k}`, symbol: `SCC${k}`,
          quantity: BigInt(1 + (mix32(s.id ^ k) % 40)), decimals: 0, priceUsd: ""
        })
      }
    }
    return out.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0))
  }

  private finalBalance(token: string, holder: string): bigint {
    const h = this.world().tokenHistory.get(token)?.get(holder)
    return h === undefined ? 0n : (h.balances[h.balances.length - 1] ?? 0n)
  }

  /** Raw token balance of `holder` at the end of `block`. */
  tokenBalanceAt(token: string, holder: string, block: number): bigint {
    return balanceAt(this.world().tokenHistory.get(token)?.get(holder), block)
  }

  /** Native balance of `address` at the end of `block` (regular world, the busy wallet's rows, withdrawals). */
  nativeBalanceAt(address: string, block: number): bigint {
    let b = balanceAt(this.world().nativeHistory.get(address), block)
    if (address === DEV_ACCOUNT.address && this.populated) b += DEV_ACCOUNT.balance
    if (address === this.addr(STAKER)) b += withdrawnBy(this, block)
    if (address === this.busyAddress) {
      const src = this.busy()
      if (src !== undefined) {
        const n = upperBound(src.blocks, block)
        if (n > 0) b += this.busyPrefix()[n - 1] as bigint
      }
    }
    return b + this.mining().balanceDelta(address, block)
  }

  /** Who funded an EOA first (fundedby). */
  funding(address: string): Funding | undefined {
    return this.world().funding.get(address)
  }

  /** Whether the address is a contract of the data set. */
  isContract(address: string): boolean {
    return this.world().contracts.has(address)
  }

  /** Verified source metadata of a contract. */
  verified(address: string): Verified | undefined {
    return this.world().verified.get(address)
  }

  /** Total supply (raw) of a token of the regular world. */
  totalSupply(token: string): bigint {
    return this.world().totalSupply.get(token) ?? 0n
  }

  /** The public description of this chain. */
  describe(): ChainDataset {
    const w = (name: string): EntityRef => ({ name, address: this.addr(name) })
    const token = (name: string, tokenName: string, symbol: string, decimals: number, standard: TokenRef["standard"]): TokenRef => ({
      name,
      address: this.addr(name),
      tokenName,
      symbol,
      decimals,
      standard
    })
    const erc20 = ERC20_DEFS.map((d) => token(names.erc20(d.symbol), d.name, d.symbol, d.decimals, "erc20"))
    const extra = EXTRA_ERC20_DEFS.map((d) => token(names.erc20(d.symbol), d.name, d.symbol, d.decimals, "erc20"))
    const busy = this.busyPlan
    const heavy = this.heavyPlan
    const p = this.profile
    return {
      chainId: this.chainId,
      name: Chain.byId(this.chainId)?.name ?? `chain ${this.chainId}`,
      latestBlock: p.latestBlock,
      blockTimeSeconds: p.blockTime,
      timestampOf: this.view.timestampOf,
      activity: { fromBlock: p.latestBlock - ACTIVITY_SPAN, toBlock: p.latestBlock - 50 },
      funder: w(names.funder),
      deployer: w(names.deployer),
      wallets: Array.from({ length: WALLET_COUNT }, (_, i) => w(names.wallet(i))),
      busyWallet: { ...w(names.busyWallet), transactions: busy?.total ?? 0, denseBlock: busy?.dense },
      heavyContract: { ...w(names.heavy), logs: heavy?.total ?? 0, topic0: SWAP_TOPIC, denseBlock: heavy?.dense },
      denseBlock: heavy?.dense?.block,
      erc20,
      erc721: [token(names.erc721, ERC721_DEF.name, ERC721_DEF.symbol, 0, "erc721")],
      erc1155: [token(names.erc1155, ERC1155_DEF.name, ERC1155_DEF.symbol, 0, "erc1155")],
      airdropToken: erc20[2] as TokenRef,
      verifiedContract: w(names.router),
      unverifiedContract: w(names.vault),
      proxyContract: w(names.proxy),
      verifications: this.verifications().guids,
      verificationGuidOf: this.verifications().guidOf,
      wholeToken: extra[0] as TokenRef,
      proxyToken: { ...(extra[1] as TokenRef), implementation: this.addr(names.tokenImplementation) },
      factory: w(names.factory),
      labels: this.labels,
      builders: proposerNames.builders.map((n) => w(n)),
      soloValidator: w(proposerNames.soloValidator),
      staker: { ...w(STAKER), validators: stakerValidators(this) },
      scenarioTokens: {
        erc20: this.scenarioTokens.erc20.address,
        erc721: this.scenarioTokens.erc721.address,
        erc1155: this.scenarioTokens.erc1155.address
      },
      shapes: [...this.shapePlans().values()].map(shapeRef),
      ensNames: ensNames(this)
    }
  }
}

/** The whole data set: one lazily built `ChainData` per served chain. */
export class Dataset {
  readonly populated: ReadonlyArray<number>
  private readonly chains = new Map<number, ChainData>()
  private readonly busy: number
  private readonly heavy: number
  private readonly scenarios: ReadonlyArray<Scenario>

  constructor(readonly seed: number, options: DatasetOptions = {}) {
    this.populated = [...(options.chains ?? DEFAULT_CHAINS)]
    this.busy = Math.max(0, Math.floor(options.busyWalletTransactions ?? DEFAULT_BUSY_WALLET_TRANSACTIONS))
    this.heavy = Math.max(0, Math.floor(options.heavyContractLogs ?? DEFAULT_HEAVY_CONTRACT_LOGS))
    this.scenarios = options.scenarios ?? []
  }

  /** The data of a served chain (built on first use). */
  chain(chainId: number): ChainData {
    let c = this.chains.get(chainId)
    if (c === undefined) {
      const scen = this.scenarios.flatMap((s, i) => (s.chainId === chainId ? [[i, s] as const] : []))
      c = new ChainData(this.seed, chainId, this.populated.includes(chainId), this.busy, this.heavy, scen)
      this.chains.set(chainId, c)
    }
    return c
  }

  /** The public description. */
  describe(): DatasetDescription {
    const descriptions = new Map<number, ChainDataset>()
    return {
      seed: this.seed,
      chainIds: this.populated,
      chain: (chainId) => {
        let d = descriptions.get(chainId)
        if (d === undefined) {
          if (!this.populated.includes(chainId)) {
            throw new Error(`The simulator's data set has no populated chain ${chainId} (populated: ${this.populated.join(", ")})`)
          }
          d = this.chain(chainId).describe()
          descriptions.set(chainId, d)
        }
        return d
      }
    }
  }
}
