/**
 * The "regular world" of one chain: a small sequential simulation (funding, deployments, ERC-20 /
 * ERC-721 / ERC-1155 transfers, swaps with internal refunds, failed calls, factory creations, an
 * airdrop) played block by block, so that normal and internal transactions, logs, token transfer
 * rows, native and token balances, holders and their histories all agree with each other.
 * Everything here is materialised (a few thousand rows per chain); the big row sets live in
 * `synthetic.ts`.
 */
import { addressHex, addressTopic, hash2, hash32Hex, hashString, hexWords, Prng, uintTopic, word } from "./hash.js"
import { ACTIVITY_SPAN, type ChainProfile, chainRoot, entityAddress } from "./profiles.js"
import type { InternalTx, Log, NormalTx, TokenMeta, TokenTransfer } from "./rows.js"

/**
 * Topic0 of ERC-20/721 `Transfer(address,address,uint256)`.
 *
 * @since 0.1.0
 * @category constants
 */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
/**
 * Topic0 of ERC-20 `Approval(address,address,uint256)`.
 *
 * @since 0.1.0
 * @category constants
 */
export const APPROVAL_TOPIC = "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925"
/**
 * Topic0 of ERC-1155 `TransferSingle(address,address,address,uint256,uint256)`.
 *
 * @since 0.1.0
 * @category constants
 */
export const TRANSFER_SINGLE_TOPIC = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
/** Topic0 of Uniswap-V2-style `PairCreated(address,address,address,uint256)`. */
export const PAIR_CREATED_TOPIC = "0x0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9"

/** Topic0 of EIP-1967 `Upgraded(address)`, emitted by a proxy when its implementation is set. */
export const UPGRADED_TOPIC = "0xbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b"
/** Topic0 of `Paused(address)`: an event no ABI of the data set declares (an undecodable log). */
export const PAUSED_TOPIC = "0x62e78cea01bee320cd4e420270b5ea74000d11b0c9f74754ebdbfc544b05a258"

/** The zero address (mint source). */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

/** A named ERC-20 of the regular world. */
export interface Erc20Def {
  readonly name: string
  readonly symbol: string
  readonly decimals: number
  /** Whole tokens minted to the deployer at creation. */
  readonly supply: bigint
  /** Price in USD as the API writes it (18 decimals). */
  readonly priceUsd: string
}

/** The ERC-20 tokens of every chain. */
export const ERC20_DEFS: ReadonlyArray<Erc20Def> = [
  { name: "Simulated USD", symbol: "SUSD", decimals: 6, supply: 2_000_000_000n, priceUsd: "0.999800000000000000" },
  { name: "Wrapped Sim Ether", symbol: "WSETH", decimals: 18, supply: 5_000_000n, priceUsd: "4120.550000000000000000" },
  { name: "Sim Governance", symbol: "SGOV", decimals: 18, supply: 1_000_000_000n, priceUsd: "0.043190000000000000" }
]
/**
 * Two more ERC-20s of every chain, played after the main activity with their own random numbers (so
 * the rest of the world is as it was): a token of 0 decimals, and one of 24 decimals behind an
 * upgradeable proxy whose logs mix decodable events (Transfer, Approval, the proxy's Upgraded) with
 * logs its ABI cannot decode (an ERC-721-shaped Transfer with 3 indexed topics, an unknown Paused).
 */
export const EXTRA_ERC20_DEFS: ReadonlyArray<Erc20Def> = [
  { name: "Sim Whole", symbol: "SWHL", decimals: 0, supply: 1_000_000n, priceUsd: "2.500000000000000000" },
  { name: "Sim Yocto", symbol: "SYOC", decimals: 24, supply: 1_000_000n, priceUsd: "0.000001000000000000" }
]
/** The ERC-721 collection of every chain. */
export const ERC721_DEF = { name: "Sim Punks", symbol: "SPUNK" } as const
/** The ERC-1155 collection of every chain. */
export const ERC1155_DEF = { name: "Sim Items", symbol: "SITEM" } as const

/** Number of EOAs named wallet-0 … */
export const WALLET_COUNT = 10
/** Number of airdrop recipients of SGOV (so its holder list spans more than one 1,000-row page). */
export const AIRDROP_RECIPIENTS = 1_200

/** Entity names (addresses come from `entityAddress(seed, chain, name)`). */
export const names = {
  funder: "exchange",
  deployer: "deployer",
  wallet: (i: number) => `wallet-${i}`,
  busyWallet: "busy-wallet",
  erc20: (symbol: string) => `erc20-${symbol}`,
  erc721: "erc721-SPUNK",
  erc1155: "erc1155-SITEM",
  router: "router",
  vault: "vault",
  factory: "factory",
  proxy: "proxy",
  /** The implementation behind the 24-decimal token's proxy. */
  tokenImplementation: "erc20-SYOC-implementation",
  heavy: "heavy-pool",
  airdrop: (i: number) => `airdrop-${i}`
} as const

/** A balance over time: the balance at the end of each block where it changed. */
export interface History {
  readonly blocks: Array<number>
  readonly balances: Array<bigint>
}

/** The balance recorded in `h` at the end of `block` (0 before the first change). */
export const balanceAt = (h: History | undefined, block: number): bigint => {
  if (h === undefined) return 0n
  let lo = 0
  let hi = h.blocks.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((h.blocks[mid] as number) <= block) lo = mid + 1
    else hi = mid
  }
  return lo === 0 ? 0n : (h.balances[lo - 1] as bigint)
}

/** The funding of an EOA (account/fundedby). */
export interface Funding {
  readonly block: number
  readonly fundingAddress: string
  readonly fundingTxn: string
  readonly value: bigint
}

/** A verified contract's metadata, for getsourcecode/getabi. */
export interface Verified {
  readonly contractName: string
  readonly kind: "erc20" | "erc721" | "erc1155" | "router" | "factory" | "proxy" | "pool"
  readonly implementation: string
}

/** The regular world of one chain, fully materialised and indexed. */
export interface World {
  readonly txs: ReadonlyArray<NormalTx>
  readonly internals: ReadonlyArray<InternalTx>
  readonly logs: ReadonlyArray<Log>
  readonly txByAddress: ReadonlyMap<string, ReadonlyArray<NormalTx>>
  readonly internalByAddress: ReadonlyMap<string, ReadonlyArray<InternalTx>>
  readonly internalByHash: ReadonlyMap<string, ReadonlyArray<InternalTx>>
  readonly logsByAddress: ReadonlyMap<string, ReadonlyArray<Log>>
  /** Transfers per standard, by participant (from or to) and by token contract. */
  readonly transfersByAddress: Readonly<Record<TokenMeta["standard"], ReadonlyMap<string, ReadonlyArray<TokenTransfer>>>>
  readonly transfersByToken: Readonly<Record<TokenMeta["standard"], ReadonlyMap<string, ReadonlyArray<TokenTransfer>>>>
  readonly nativeHistory: ReadonlyMap<string, History>
  /** token → holder → history of raw balance (ERC-20: amount; ERC-721: count; ERC-1155: sum over ids). */
  readonly tokenHistory: ReadonlyMap<string, ReadonlyMap<string, History>>
  readonly tokens: ReadonlyMap<string, TokenMeta>
  readonly erc20Defs: ReadonlyMap<string, Erc20Def>
  readonly totalSupply: ReadonlyMap<string, bigint>
  readonly funding: ReadonlyMap<string, Funding>
  readonly contracts: ReadonlySet<string>
  readonly verified: ReadonlyMap<string, Verified>
  /** Highest transactionIndex / logIndex used in any block (synthetic row sets are laid out above). */
  readonly maxTxIndex: number
  readonly maxLogIndex: number
  readonly activityStart: number
  readonly activityEnd: number
}

const ETHER = 10n ** 18n

interface Fn {
  readonly id: string
  readonly name: string
}
const fns = {
  transfer: { id: "0xa9059cbb", name: "transfer(address _to, uint256 _value)" },
  approve: { id: "0x095ea7b3", name: "approve(address _spender, uint256 _value)" },
  swap: {
    id: "0x7ff36ab5",
    name: "swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline)"
  },
  createPair: { id: "0xc9c65396", name: "createPair(address tokenA, address tokenB)" },
  mint: { id: "0x1249c58b", name: "mint()" },
  nftTransfer: { id: "0x42842e0e", name: "safeTransferFrom(address from, address to, uint256 tokenId)" },
  item1155Transfer: {
    id: "0xf242432a",
    name: "safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)"
  },
  mint1155: { id: "0x731133e9", name: "mint(address to, uint256 id, uint256 amount, bytes data)" },
  batchTransfer: { id: "0x88d695b2", name: "batchTransfer(address[] recipients, uint256[] values)" },
  deposit: { id: "0xd0e30db0", name: "deposit()" },
  withdraw: { id: "0x2e1a7d4d", name: "" },
  create: { id: "0x60806040", name: "" },
  native: { id: "0x", name: "" }
} satisfies Record<string, Fn>

const addrWord = (a: string): string => "000000000000000000000000" + a.slice(2)

/** Build the regular world of one chain. */
export const buildWorld = (seed: number, profile: ChainProfile): World => {
  const chainId = profile.chainId
  const root = chainRoot(seed, chainId)
  const rng = new Prng(hash2(root, 0x301d))
  const addr = (name: string) => entityAddress(seed, chainId, name)

  const funder = addr(names.funder)
  const deployer = addr(names.deployer)
  const wallets = Array.from({ length: WALLET_COUNT }, (_, i) => addr(names.wallet(i)))
  const busy = addr(names.busyWallet)
  const router = addr(names.router)
  const vault = addr(names.vault)
  const factory = addr(names.factory)
  const proxy = addr(names.proxy)
  const heavy = addr(names.heavy)
  const recipients = Array.from({ length: AIRDROP_RECIPIENTS }, (_, i) => addr(names.airdrop(i)))

  const tokens = new Map<string, TokenMeta>()
  const erc20Defs = new Map<string, Erc20Def>()
  const erc20: Array<TokenMeta> = ERC20_DEFS.map((d) => {
    const t: TokenMeta = { address: addr(names.erc20(d.symbol)), name: d.name, symbol: d.symbol, decimals: d.decimals, standard: "erc20" }
    tokens.set(t.address, t)
    erc20Defs.set(t.address, d)
    return t
  })
  const punks: TokenMeta = { address: addr(names.erc721), ...ERC721_DEF, decimals: 0, standard: "erc721" }
  const items: TokenMeta = { address: addr(names.erc1155), ...ERC1155_DEF, decimals: 0, standard: "erc1155" }
  tokens.set(punks.address, punks)
  tokens.set(items.address, items)
  const [susd, , sgov] = erc20 as [TokenMeta, TokenMeta, TokenMeta]

  const contracts = new Set<string>()
  const verified = new Map<string, Verified>()

  // ---- state ------------------------------------------------------------------------------------
  const txs: Array<NormalTx> = []
  const internals: Array<InternalTx> = []
  const logs: Array<Log> = []
  const transfers: Array<TokenTransfer> = []
  const native = new Map<string, bigint>()
  const nativeHistory = new Map<string, History>()
  const nonces = new Map<string, number>()
  const tokenBalances = new Map<string, Map<string, bigint>>()
  const tokenHistory = new Map<string, Map<string, History>>()
  const totalSupply = new Map<string, bigint>()
  const nftOwner = new Map<bigint, string>()
  const itemBalances = new Map<string, bigint>() // `${holder}:${id}`
  const funding = new Map<string, Funding>()
  let maxTxIndex = 0
  let maxLogIndex = 0

  const record = (h: Map<string, History>, who: string, block: number, balance: bigint) => {
    let e = h.get(who)
    if (e === undefined) {
      e = { blocks: [], balances: [] }
      h.set(who, e)
    }
    const n = e.blocks.length
    if (n > 0 && e.blocks[n - 1] === block) e.balances[n - 1] = balance
    else {
      e.blocks.push(block)
      e.balances.push(balance)
    }
  }
  const addNative = (who: string, delta: bigint, block: number) => {
    if (who === "" || who === ZERO_ADDRESS) return
    const b = (native.get(who) ?? 0n) + delta
    native.set(who, b)
    record(nativeHistory, who, block, b)
  }
  const tokenBalance = (token: string, who: string) => tokenBalances.get(token)?.get(who) ?? 0n
  const addToken = (token: string, who: string, delta: bigint, block: number) => {
    if (who === ZERO_ADDRESS) {
      totalSupply.set(token, (totalSupply.get(token) ?? 0n) - delta)
      return
    }
    let m = tokenBalances.get(token)
    if (m === undefined) {
      m = new Map()
      tokenBalances.set(token, m)
    }
    const b = (m.get(who) ?? 0n) + delta
    m.set(who, b)
    let h = tokenHistory.get(token)
    if (h === undefined) {
      h = new Map()
      tokenHistory.set(token, h)
    }
    record(h, who, block, b)
  }

  // ---- block layout -------------------------------------------------------------------------------
  let currentBlock = -1
  let nextTxIndex = 0
  let nextLogIndex = 0
  let cumulativeGas = 0
  // A block holds exactly the transactions sent into it: indexes 0..n-1, log indexes from 0, and the
  // cumulative gas of the first transaction is its own (as a node's eth_getBlockTransactionCountByNumber
  // and eth_getTransactionByBlockNumberAndIndex need).
  const enterBlock = (block: number) => {
    if (block !== currentBlock) {
      currentBlock = block
      nextTxIndex = 0
      nextLogIndex = 0
      cumulativeGas = 0
    }
  }
  let txSerial = 0
  const gasPriceNow = () => (profile.gasPriceWei * BigInt(70 + rng.int(180))) / 100n

  interface TxSpec {
    readonly from: string
    readonly to: string
    readonly value?: bigint
    readonly fn: Fn
    readonly input?: string
    readonly gasUsed: number
    readonly isError?: boolean
    readonly contractAddress?: string
  }
  const sendTx = (block: number, spec: TxSpec): NormalTx => {
    enterBlock(block)
    const index = nextTxIndex++
    maxTxIndex = Math.max(maxTxIndex, index)
    const gasUsed = spec.gasUsed
    cumulativeGas += gasUsed
    const nonce = nonces.get(spec.from) ?? 0
    nonces.set(spec.from, nonce + 1)
    const isError = spec.isError ?? false
    const value = spec.value ?? 0n
    const tx: NormalTx = {
      block,
      index,
      hash: hash32Hex(root, 0x7478, txSerial++),
      nonce,
      from: spec.from,
      to: spec.to,
      value,
      gas: Math.round(gasUsed * (1.2 + rng.float() * 0.5)),
      gasPrice: gasPriceNow(),
      gasUsed,
      cumulativeGasUsed: cumulativeGas,
      input: spec.input ?? spec.fn.id,
      methodId: spec.fn.id,
      functionName: spec.fn.name,
      contractAddress: spec.contractAddress ?? "",
      isError,
      receiptStatus: isError ? "0" : "1",
      genesis: false
    }
    txs.push(tx)
    addNative(spec.from, -(tx.gasPrice * BigInt(gasUsed)), block)
    if (!isError && value > 0n) {
      addNative(spec.from, -value, block)
      addNative(spec.to === "" ? tx.contractAddress : spec.to, value, block)
    }
    if (!isError && value > 0n && spec.to !== "" && !contracts.has(spec.to) && !funding.has(spec.to)) {
      funding.set(spec.to, { block, fundingAddress: spec.from, fundingTxn: tx.hash, value })
    }
    return tx
  }
  const emit = (tx: NormalTx, address: string, topics: ReadonlyArray<string>, data: string): Log => {
    const logIndex = nextLogIndex++
    maxLogIndex = Math.max(maxLogIndex, logIndex)
    const log: Log = { address, topics, data, block: tx.block, txHash: tx.hash, txIndex: tx.index, logIndex, gasPrice: tx.gasPrice, gasUsed: tx.gasUsed }
    logs.push(log)
    return log
  }
  const internal = (tx: NormalTx, spec: Omit<InternalTx, "block" | "txIndex" | "hash">) => {
    internals.push({ block: tx.block, txIndex: tx.index, hash: tx.hash, ...spec })
    if (!spec.isError && spec.value > 0n) {
      addNative(spec.from, -spec.value, tx.block)
      addNative(spec.to === "" ? spec.contractAddress : spec.to, spec.value, tx.block)
    }
  }
  const erc20Transfer = (tx: NormalTx, token: TokenMeta, from: string, to: string, amount: bigint) => {
    const log = emit(tx, token.address, [TRANSFER_TOPIC, addressTopic(from), addressTopic(to)], "0x" + word(amount))
    transfers.push({ token, tx, from, to, amount, tokenId: 0n, logIndex: log.logIndex })
    addToken(token.address, from, -amount, tx.block)
    addToken(token.address, to, amount, tx.block)
  }
  const nftTransfer = (tx: NormalTx, from: string, to: string, id: bigint) => {
    const log = emit(tx, punks.address, [TRANSFER_TOPIC, addressTopic(from), addressTopic(to), uintTopic(id)], "0x")
    transfers.push({ token: punks, tx, from, to, amount: 1n, tokenId: id, logIndex: log.logIndex })
    nftOwner.set(id, to)
    addToken(punks.address, from, -1n, tx.block)
    addToken(punks.address, to, 1n, tx.block)
  }
  const itemTransfer = (tx: NormalTx, operator: string, from: string, to: string, id: bigint, amount: bigint) => {
    const log = emit(
      tx,
      items.address,
      [TRANSFER_SINGLE_TOPIC, addressTopic(operator), addressTopic(from), addressTopic(to)],
      "0x" + word(id) + word(amount)
    )
    transfers.push({ token: items, tx, from, to, amount, tokenId: id, logIndex: log.logIndex })
    if (from !== ZERO_ADDRESS) itemBalances.set(`${from}:${id}`, (itemBalances.get(`${from}:${id}`) ?? 0n) - amount)
    itemBalances.set(`${to}:${id}`, (itemBalances.get(`${to}:${id}`) ?? 0n) + amount)
    addToken(items.address, from, -amount, tx.block)
    addToken(items.address, to, amount, tx.block)
  }
  const bytecode = (salt: number) => "0x60806040" + hexWords(root, 0xb7ec, salt, 40)
  const deploy = (block: number, from: string, address: string, gasUsed: number): NormalTx => {
    contracts.add(address)
    return sendTx(block, { from, to: "", fn: fns.create, input: bytecode(hashString(address)), gasUsed, contractAddress: address })
  }

  // ---- timeline ---------------------------------------------------------------------------------
  const activityStart = profile.latestBlock - ACTIVITY_SPAN
  const activityEnd = profile.latestBlock - 50
  let block = activityStart

  // GENESIS allocation of the funder.
  const genesisValue = 10_000_000n * ETHER
  txs.push({
    block: 0, index: 0, hash: "GENESIS_" + funder.slice(2), nonce: -1, from: "GENESIS", to: funder, value: genesisValue,
    gas: 0, gasPrice: 0n, gasUsed: 0, cumulativeGasUsed: 0, input: "", methodId: "", functionName: "", contractAddress: "",
    isError: false, receiptStatus: "", genesis: true
  })
  addNative(funder, genesisValue, 0)

  // Funding of every EOA that acts.
  for (const who of [deployer, ...wallets, busy]) {
    block += rng.range(1, 4)
    const value = who === busy ? 5_000n * ETHER : BigInt(rng.range(100, 500)) * ETHER + BigInt(rng.next()) * 1_000_000n
    sendTx(block, { from: funder, to: who, value, fn: fns.native, input: "0x", gasUsed: 21_000 })
  }

  // Deployments.
  for (const t of erc20) {
    block += rng.range(1, 3)
    const tx = deploy(block, deployer, t.address, 1_100_000 + rng.int(400_000))
    const def = erc20Defs.get(t.address) as Erc20Def
    const minted = def.supply * 10n ** BigInt(def.decimals)
    totalSupply.set(t.address, 0n)
    erc20Transfer(tx, t, ZERO_ADDRESS, deployer, minted)
    verified.set(t.address, { contractName: def.name.replace(/\s+/g, ""), kind: "erc20", implementation: "" })
  }
  block += 2
  deploy(block, deployer, punks.address, 2_400_000)
  totalSupply.set(punks.address, 0n)
  verified.set(punks.address, { contractName: "SimPunks", kind: "erc721", implementation: "" })
  block += 1
  const itemsTx = deploy(block, deployer, items.address, 2_900_000)
  totalSupply.set(items.address, 0n)
  verified.set(items.address, { contractName: "SimItems", kind: "erc1155", implementation: "" })
  void itemsTx
  for (const [who, name, kind] of [
    [router, "SimSwapRouter", "router"],
    [factory, "SimSwapFactory", "factory"],
    [heavy, "SimSwapPool", "pool"]
  ] as const) {
    block += rng.range(1, 3)
    deploy(block, deployer, who, 3_000_000 + rng.int(1_000_000))
    verified.set(who, { contractName: name, kind, implementation: "" })
  }
  block += 1
  deploy(block, deployer, vault, 900_000)
  block += 1
  deploy(block, deployer, proxy, 700_000)
  verified.set(proxy, { contractName: "TransparentUpgradeableProxy", kind: "proxy", implementation: router })

  // Initial distribution: tokens to wallets and liquidity to the router.
  for (const t of erc20) {
    const def = erc20Defs.get(t.address) as Erc20Def
    const unit = 10n ** BigInt(def.decimals)
    block += rng.range(1, 5)
    const liq = sendTx(block, { from: deployer, to: t.address, fn: fns.transfer, gasUsed: 51_000 + rng.int(3_000) })
    erc20Transfer(liq, t, deployer, router, (def.supply / 10n) * unit)
    for (const w of wallets) {
      if (rng.chance(0.3) && t !== susd) continue
      block += rng.range(0, 3)
      const amount = BigInt(rng.range(1_000, 200_000)) * unit + BigInt(rng.next()) % unit
      const tx = sendTx(block, { from: deployer, to: t.address, fn: fns.transfer, input: fns.transfer.id + addrWord(w) + word(amount), gasUsed: 34_000 + rng.int(18_000) })
      erc20Transfer(tx, t, deployer, w, amount)
    }
  }
  // ERC-1155: mint ids 1..8 to the deployer, then hand some to wallets.
  for (let id = 1n; id <= 8n; id++) {
    block += rng.range(0, 2)
    const tx = sendTx(block, { from: deployer, to: items.address, fn: fns.mint1155, gasUsed: 52_000 + rng.int(10_000) })
    itemTransfer(tx, deployer, ZERO_ADDRESS, deployer, id, 1_000n)
  }
  for (const w of wallets) {
    block += rng.range(1, 4)
    const id = BigInt(rng.range(1, 8))
    const tx = sendTx(block, { from: deployer, to: items.address, fn: fns.item1155Transfer, gasUsed: 55_000 + rng.int(8_000) })
    itemTransfer(tx, deployer, deployer, w, id, BigInt(rng.range(5, 60)))
  }
  // The SGOV airdrop: batches of 200 Transfer logs in one transaction each.
  {
    const unit = 10n ** 18n
    for (let b = 0; b < AIRDROP_RECIPIENTS; b += 200) {
      block += rng.range(3, 20)
      const tx = sendTx(block, { from: deployer, to: sgov.address, fn: fns.batchTransfer, gasUsed: 4_800_000 + rng.int(200_000) })
      for (let i = b; i < Math.min(b + 200, AIRDROP_RECIPIENTS); i++) {
        erc20Transfer(tx, sgov, deployer, recipients[i] as string, BigInt(rng.range(100, 5_000)) * unit + BigInt(rng.next()))
      }
    }
  }

  // Main activity: gaps (some zero: several txs in one block, some long: empty stretches) scaled
  // so that the last step lands before `activityEnd`.
  const steps = 2_600
  const gaps: Array<number> = []
  let gapSum = 0
  let nonZero = 0
  let run = 0
  for (let i = 0; i < steps; i++) {
    const r = rng.float()
    let g = r < 0.15 ? 0 : r < 0.75 ? rng.range(1, 30) : r < 0.95 ? rng.range(30, 600) : rng.range(2_000, 20_000)
    run = g === 0 ? run + 1 : 0
    if (run > 3) {
      g = 1
      run = 0
    }
    gaps.push(g)
    gapSum += g
    if (g > 0) nonZero++
  }
  const startBlock = block
  const f = Math.max(0, (activityEnd - startBlock - 10 - nonZero) / gapSum)
  let cumGap = 0
  let moved = 0
  let nextNft = 1n
  let pairs = 0
  const actors = wallets
  const pickOther = (a: string) => {
    let b = rng.pick(actors)
    while (b === a) b = rng.pick(actors)
    return b
  }
  for (let i = 0; i < steps; i++) {
    const g = gaps[i] as number
    if (g > 0) {
      cumGap += g
      moved++
      block = startBlock + moved + Math.floor(f * cumGap)
    }
    const from = rng.pick(actors)
    const r = rng.float()
    const canSpend = (value: bigint) => (native.get(from) ?? 0n) >= value + ETHER / 10n
    if (r < 0.18) {
      // Native transfer between EOAs (sometimes to the exchange or the busy wallet).
      const to = rng.chance(0.1) ? funder : rng.chance(0.05) ? busy : pickOther(from)
      const bal = native.get(from) ?? 0n
      const value = (bal / 1000n) * BigInt(rng.range(1, 50))
      sendTx(block, { from, to, value, fn: fns.native, input: "0x", gasUsed: 21_000 })
    } else if (r < 0.42) {
      // ERC-20 transfer.
      const t = rng.pick(erc20)
      const bal = tokenBalance(t.address, from)
      if (bal === 0n) {
        sendTx(block, { from, to: pickOther(from), value: ETHER / 100n, fn: fns.native, input: "0x", gasUsed: 21_000 })
        continue
      }
      const to = rng.chance(0.08) ? router : rng.chance(0.05) ? rng.pick(recipients) : pickOther(from)
      const amount = (bal * BigInt(rng.range(1, 300))) / 1000n + 1n
      const tx = sendTx(block, { from, to: t.address, fn: fns.transfer, input: fns.transfer.id + addrWord(to) + word(amount), gasUsed: 34_000 + rng.int(22_000) })
      erc20Transfer(tx, t, from, to, amount)
    } else if (r < 0.47) {
      // Approval for the router.
      const t = rng.pick(erc20)
      const amount = rng.chance(0.5) ? (1n << 256n) - 1n : BigInt(rng.next()) * 10n ** 12n
      const tx = sendTx(block, { from, to: t.address, fn: fns.approve, input: fns.approve.id + addrWord(router) + word(amount), gasUsed: 46_000 + rng.int(2_000) })
      emit(tx, t.address, [APPROVAL_TOPIC, addressTopic(from), addressTopic(router)], "0x" + word(amount))
    } else if (r < 0.62) {
      // Swap ETH → SUSD through the router: a token Transfer out of the router and an internal refund.
      const value = ETHER / 100n * BigInt(rng.range(1, 150))
      const out = (value * 2_500n * 10n ** 6n) / ETHER
      if (tokenBalance(susd.address, router) < out || !canSpend(value)) continue
      const tx = sendTx(block, { from, to: router, value, fn: fns.swap, input: fns.swap.id + word(out) + word(128n) + addrWord(from) + word(BigInt(profile.latestTimestamp)), gasUsed: 120_000 + rng.int(45_000) })
      erc20Transfer(tx, susd, router, from, out)
      internal(tx, { from: router, to: from, value: (value * BigInt(rng.range(1, 30))) / 1000n, contractAddress: "", input: "", type: "call", gas: 2_300, gasUsed: 0, traceId: "1", isError: false, errCode: "" })
    } else if (r < 0.67) {
      // Vault: deposits succeed, withdrawals fail (isError 1, txreceipt_status 0).
      const deposit = ETHER / 10n * BigInt(rng.range(1, 20))
      if (rng.chance(0.5) && canSpend(deposit)) {
        sendTx(block, { from, to: vault, value: deposit, fn: fns.deposit, gasUsed: 43_000 + rng.int(5_000) })
      } else {
        const tx = sendTx(block, { from, to: vault, fn: fns.withdraw, input: fns.withdraw.id + word(BigInt(rng.next()) * ETHER), gasUsed: 23_000 + rng.int(9_000), isError: true })
        internal(tx, { from: vault, to: from, value: ETHER, contractAddress: "", input: "", type: "call", gas: 2_300, gasUsed: 0, traceId: "0_1", isError: true, errCode: "execution reverted" })
      }
    } else if (r < 0.72) {
      // Factory: createPair makes a contract through an internal "create2" trace (a Uniswap-V2-style factory).
      const child = addressHex(hashString(factory), 0xc4ea7e, pairs++)
      contracts.add(child)
      const a = rng.pick(erc20)
      const b = rng.pick(erc20.filter((x) => x !== a))
      const tx = sendTx(block, { from, to: factory, fn: fns.createPair, input: fns.createPair.id + addrWord(a.address) + addrWord(b.address), gasUsed: 2_100_000 + rng.int(400_000) })
      internal(tx, { from: factory, to: "", value: 0n, contractAddress: child, input: "", type: "create2", gas: 2_000_000, gasUsed: 1_700_000 + rng.int(200_000), traceId: "0", isError: false, errCode: "" })
      emit(tx, factory, [PAIR_CREATED_TOPIC, addressTopic(a.address), addressTopic(b.address)], "0x" + addrWord(child) + word(BigInt(pairs)))
    } else if (r < 0.8) {
      // ERC-721 mint (0.05 ether each).
      if (!canSpend(ETHER / 20n)) continue
      const id = nextNft++
      const tx = sendTx(block, { from, to: punks.address, value: ETHER / 20n, fn: fns.mint, gasUsed: 68_000 + rng.int(20_000) })
      nftTransfer(tx, ZERO_ADDRESS, from, id)
    } else if (r < 0.86) {
      // ERC-721 transfer of an owned token.
      const owned = [...nftOwner].filter(([, o]) => o === from)
      if (owned.length === 0) continue
      const [id] = rng.pick(owned)
      const to = pickOther(from)
      const tx = sendTx(block, { from, to: punks.address, fn: fns.nftTransfer, input: fns.nftTransfer.id + addrWord(from) + addrWord(to) + word(id), gasUsed: 52_000 + rng.int(30_000) })
      nftTransfer(tx, from, to, id)
    } else if (r < 0.94) {
      // ERC-1155 transfer of a held id.
      const id = BigInt(rng.range(1, 8))
      const held = itemBalances.get(`${from}:${id}`) ?? 0n
      if (held === 0n) continue
      const amount = BigInt(rng.range(1, Number(held < 10n ? held : 10n)))
      const to = pickOther(from)
      const tx = sendTx(block, { from, to: items.address, fn: fns.item1155Transfer, gasUsed: 51_000 + rng.int(10_000) })
      itemTransfer(tx, from, from, to, id, amount)
    } else if (r < 0.96) {
      // A plain contract creation by a wallet (to "", contractAddress set).
      const child = addressHex(hashString(from), 0xc0de, nonces.get(from) ?? 0)
      deploy(block, from, child, 250_000 + rng.int(900_000))
    } else {
      // A call to the router that reverts, with an internal call that failed.
      const tx = sendTx(block, { from, to: router, fn: fns.swap, input: fns.swap.id + word(1n) + word(128n) + addrWord(from) + word(0n), gasUsed: 31_000 + rng.int(9_000), isError: true })
      internal(tx, { from: router, to: susd.address, value: 0n, contractAddress: "", input: "", type: "call", gas: 60_000, gasUsed: 60_000, traceId: "0", isError: true, errCode: "Out of gas" })
    }
  }

  // ---- the extra ERC-20s (EXTRA_ERC20_DEFS): own random numbers, after everything else -------------
  {
    const xrng = new Prng(hash2(root, 0xdec1))
    const implementation = addr(names.tokenImplementation)
    for (const def of EXTRA_ERC20_DEFS) {
      const t: TokenMeta = { address: addr(names.erc20(def.symbol)), name: def.name, symbol: def.symbol, decimals: def.decimals, standard: "erc20" }
      tokens.set(t.address, t)
      erc20Defs.set(t.address, def)
      const proxied = def.decimals === 24
      const unit = 10n ** BigInt(def.decimals)
      block += 1
      const created = deploy(block, deployer, t.address, 1_200_000 + xrng.int(300_000))
      totalSupply.set(t.address, 0n)
      if (proxied) {
        deploy(block, deployer, implementation, 1_500_000)
        verified.set(implementation, { contractName: "SimYoctoImplementation", kind: "erc20", implementation: "" })
        verified.set(t.address, { contractName: "TransparentUpgradeableProxy", kind: "proxy", implementation })
        emit(created, t.address, [UPGRADED_TOPIC, addressTopic(implementation)], "0x")
      } else {
        verified.set(t.address, { contractName: def.name.replace(/\s+/g, ""), kind: "erc20", implementation: "" })
      }
      erc20Transfer(created, t, ZERO_ADDRESS, deployer, def.supply * unit)
      block += 1
      for (const w of wallets.slice(0, 4)) {
        const amount = BigInt(xrng.range(1, 5_000)) * unit + (unit > 1n ? BigInt(xrng.next()) % unit : 0n)
        const tx = sendTx(block, { from: deployer, to: t.address, fn: fns.transfer, input: fns.transfer.id + addrWord(w) + word(amount), gasUsed: 40_000 + xrng.int(9_000) })
        erc20Transfer(tx, t, deployer, w, amount)
      }
      const [a, b] = wallets as [string, string]
      const approval = sendTx(block, { from: a, to: t.address, fn: fns.approve, input: fns.approve.id + addrWord(router) + word(unit), gasUsed: 46_000 })
      emit(approval, t.address, [APPROVAL_TOPIC, addressTopic(a), addressTopic(router)], "0x" + word(unit))
      if (proxied) {
        // Logs the token's ABI cannot decode: a Transfer with a third indexed topic, and an unknown event.
        block += 1
        const odd = sendTx(block, { from: deployer, to: t.address, fn: fns.nftTransfer, input: fns.nftTransfer.id + addrWord(a) + addrWord(b) + word(7n), gasUsed: 52_000 })
        emit(odd, t.address, [TRANSFER_TOPIC, addressTopic(a), addressTopic(b), uintTopic(7n)], "0x")
        emit(odd, t.address, [PAUSED_TOPIC], "0x" + addrWord(deployer))
      }
      block += 1
      const amount = tokenBalance(t.address, a) / 3n
      const tx = sendTx(block, { from: a, to: t.address, fn: fns.transfer, input: fns.transfer.id + addrWord(b) + word(amount), gasUsed: 36_000 })
      erc20Transfer(tx, t, a, b, amount)
    }
  }

  // ---- indexes ----------------------------------------------------------------------------------
  const push = <A>(m: Map<string, Array<A>>, k: string, v: A) => {
    if (k === "" || k === ZERO_ADDRESS || k === "GENESIS") return
    const a = m.get(k)
    if (a === undefined) m.set(k, [v])
    else if (a[a.length - 1] !== v) a.push(v)
  }
  const txByAddress = new Map<string, Array<NormalTx>>()
  for (const tx of txs) {
    push(txByAddress, tx.from, tx)
    push(txByAddress, tx.to, tx)
    push(txByAddress, tx.contractAddress, tx)
  }
  const byTxOrder = (a: InternalTx, b: InternalTx) => a.block - b.block || a.txIndex - b.txIndex
  internals.sort(byTxOrder)
  const internalByAddress = new Map<string, Array<InternalTx>>()
  const internalByHash = new Map<string, Array<InternalTx>>()
  for (const t of internals) {
    push(internalByAddress, t.from, t)
    push(internalByAddress, t.to, t)
    push(internalByAddress, t.contractAddress, t)
    push(internalByHash, t.hash, t)
  }
  const logsByAddress = new Map<string, Array<Log>>()
  for (const l of logs) push(logsByAddress, l.address, l)
  const emptyIndex = () => ({ erc20: new Map<string, Array<TokenTransfer>>(), erc721: new Map<string, Array<TokenTransfer>>(), erc1155: new Map<string, Array<TokenTransfer>>() })
  const transfersByAddress = emptyIndex()
  const transfersByToken = emptyIndex()
  for (const t of transfers) {
    const s = t.token.standard
    push(transfersByAddress[s], t.from, t)
    push(transfersByAddress[s], t.to, t)
    push(transfersByToken[s], t.token.address, t)
  }

  return {
    txs, internals, logs, txByAddress, internalByAddress, internalByHash, logsByAddress, transfersByAddress,
    transfersByToken, nativeHistory, tokenHistory, tokens, erc20Defs, totalSupply, funding, contracts, verified,
    maxTxIndex, maxLogIndex, activityStart, activityEnd
  }
}
