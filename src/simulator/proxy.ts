/**
 * The proxy module (`module=proxy`): Ethereum JSON-RPC answered from the data set, in the shapes of the
 * recorded real answers (a geth node behind the explorer). Blocks hold the regular activity's
 * transactions (world.ts) with their receipts and logs; balances, nonces, code and token state come from
 * the same rows, so `eth_call balanceOf` agrees with `account/tokenbalance` and a receipt's logs with
 * `logs/getLogs`.
 *
 * Answers: `result` (a hex string, an object, or `null` for an unknown hash or a block past the latest),
 * or a JSON-RPC `error` as geth words it: a revert with reason data is `{code: 3, message: "execution
 * reverted: <reason>", data}`, one without data `{code: -32000, message: "execution reverted"}`, a
 * malformed raw transaction `{code: -32000, message: "rlp: …"}`, and the pool's refusals of a raw
 * transaction as geth words them (`invalid chain id`, `already known`, `nonce too low`, `insufficient funds
 * for gas * price + value`, `replacement transaction underpriced`). An accepted one is pending
 * (eth_getTransactionByHash without a block, no receipt, counted by the `pending` nonce) until the
 * simulator's clock produces the next block, which mines it (mining.ts); a chain nobody sends to does
 * not grow. A malformed parameter is refused with the
 * explorer's own NOTOK text, like every other module (our choice: the real service's answer is unknown).
 */
import { baseFeeOf, CANCUN_TIME, GAS_LIMIT, gasUsedOf, minerOf, SHANGHAI_TIME, STAKER, withdrawalsIn } from "./blocks.js"
import type { ChainData } from "./dataset.js"
import { ensCall, ensCode, isEnsContract } from "./ens.js"
import { hash2, hash32Hex, hashString, hexWords, quantityHex, word } from "./hash.js"
import type * as Hex from "ox/Hex"
import * as ContractAddress from "ox/ContractAddress"
import * as Secp256k1 from "ox/Secp256k1"
import * as Signature from "ox/Signature"
import * as TxEnvelope from "ox/TxEnvelope"
import * as Bytes from "ox/Bytes"
import * as Hash from "ox/Hash"
import { logsBloom } from "./bloom.js"
import type { Executed, PooledTx } from "./mining.js"
import type { Log, NormalTx } from "./rows.js"
import * as Texts from "./texts.js"

/** What a proxy action answers: a JSON-RPC result (raw JSON text), a JSON-RPC error, or a NOTOK text. */
export type RpcOutcome =
  | { readonly _tag: "rpc"; readonly id: number; readonly result: string }
  | { readonly _tag: "rpcError"; readonly id: number; readonly code: number; readonly message: string; readonly data?: string }
  | { readonly _tag: "error"; readonly text: string }

/** The proxy actions the simulator answers (eth_gasPrice and eth_blockNumber are in api.ts). */
export const proxyActions = [
  "eth_getBlockByNumber",
  "eth_getUncleByBlockNumberAndIndex",
  "eth_getBlockTransactionCountByNumber",
  "eth_getTransactionByHash",
  "eth_getTransactionByBlockNumberAndIndex",
  "eth_getTransactionCount",
  "eth_sendRawTransaction",
  "eth_getTransactionReceipt",
  "eth_call",
  "eth_getCode",
  "eth_getStorageAt",
  "eth_estimateGas"
] as const

/** One of {@link proxyActions}. */
export type ProxyAction = (typeof proxyActions)[number]

type Params = Readonly<Record<string, string>>

class Refuse {
  constructor(readonly text: string) {}
}
const refuse = (text: string): never => {
  throw new Refuse(text)
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const HASH = /^0x[0-9a-fA-F]{64}$/
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/
const DATA = /^0x([0-9a-fA-F]{2})*$/

const ok = (result: string): RpcOutcome => ({ _tag: "rpc", id: 1, result })
const q = (s: string): string => "\"" + s + "\""
const qx = (n: number | bigint): string => q(quantityHex(n))

const addressParam = (p: Params, name: string): string => {
  const v = p[name]
  return v !== undefined && ADDRESS.test(v) ? v.toLowerCase() : refuse(Texts.INVALID_ADDRESS)
}
const hashParam = (p: Params): string => {
  const v = p.txhash
  return v !== undefined && HASH.test(v) ? v.toLowerCase() : refuse(Texts.INVALID_PARAMETER)
}
const quantityParam = (p: Params, name: string): bigint | undefined => {
  const v = p[name]
  if (v === undefined) return undefined
  return QUANTITY.test(v) ? BigInt(v) : refuse(Texts.INVALID_PARAMETER)
}
/** A storage slot: a hex quantity, or decimal digits (ethers' EtherscanProvider sends the position in decimal). */
const slotParam = (p: Params): bigint => {
  const v = p.position
  if (v !== undefined && /^\d{1,78}$/.test(v)) return BigInt(v)
  return quantityParam(p, "position") ?? refuse(Texts.INVALID_PARAMETER)
}
const dataParam = (p: Params, name: string): string => {
  const v = p[name] ?? "0x"
  return DATA.test(v) ? v.toLowerCase() : refuse(Texts.INVALID_PARAMETER)
}

/** The block of a `tag` (latest, pending, safe, finalized, earliest, or a hex number); past the latest: undefined. */
const tagParam = (c: ChainData, p: Params): number | undefined => {
  const tag = p.tag ?? "latest"
  const latest = c.head()
  switch (tag) {
    case "latest":
    case "pending":
      return latest
    case "safe":
      return latest - 32
    case "finalized":
      return latest - 64
    case "earliest":
      return 0
  }
  if (!QUANTITY.test(tag)) return refuse(Texts.INVALID_PARAMETER)
  const n = Number(BigInt(tag))
  return n > latest ? undefined : n
}

// ---- rendering ------------------------------------------------------------------------------------

const EMPTY_UNCLES = "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"
const EXTRA_DATA = "0x" + Buffer.from("explorer-etl simulator", "utf8").toString("hex")

/** A signature that ethers and geth accept the shape of (s in the lower half): derived from the hash. */
const signatureOf = (c: ChainData, tx: NormalTx): { readonly r: string; readonly s: string; readonly yParity: number } => {
  const h = hashString(tx.hash)
  const s = hash32Hex(c.root, 0x5165, h)
  // quantities, as geth writes r and s (no leading zeros)
  return {
    r: quantityHex(BigInt(hash32Hex(c.root, 0x5152, h))),
    s: quantityHex(BigInt("0x" + (parseInt(s.charAt(2), 16) & 7).toString(16) + s.slice(3))),
    yParity: h & 1
  }
}

/** A transaction object (eth_getTransactionByHash), keys in the order of the recorded answers. */
const renderTx = (c: ChainData, tx: NormalTx): string => {
  const base = baseFeeOf(c, tx.block)
  const tip = tx.gasPrice > base ? tx.gasPrice - base : 0n
  const sig = signatureOf(c, tx)
  return "{\"blockHash\":" + q(c.view.blockHashOf(tx.block)) + ",\"blockNumber\":" + qx(tx.block) +
    ",\"blockTimestamp\":" + qx(c.view.timestampOf(tx.block)) + ",\"from\":" + q(tx.from) + ",\"gas\":" + qx(tx.gas) +
    ",\"gasPrice\":" + qx(tx.gasPrice) + ",\"maxFeePerGas\":" + qx(tx.gasPrice + base) +
    ",\"maxPriorityFeePerGas\":" + qx(tip) + ",\"hash\":" + q(tx.hash) + ",\"input\":" + q(tx.input === "" ? "0x" : tx.input) +
    ",\"nonce\":" + qx(tx.nonce) + ",\"to\":" + (tx.to === "" ? "null" : q(tx.to)) + ",\"transactionIndex\":" + qx(tx.index) +
    ",\"value\":" + qx(tx.value) + ",\"type\":\"0x2\",\"accessList\":[],\"chainId\":" + qx(c.chainId) +
    ",\"v\":" + qx(sig.yParity) + ",\"r\":" + q(sig.r) + ",\"s\":" + q(sig.s) + ",\"yParity\":" + qx(sig.yParity) + "}"
}

const renderReceiptLog = (c: ChainData, l: Log): string => {
  let topics = "["
  for (let i = 0; i < l.topics.length; i++) topics += (i === 0 ? "" : ",") + q(l.topics[i] as string)
  return "{\"address\":" + q(l.address) + ",\"topics\":" + topics + "],\"data\":" + q(l.data) + ",\"blockNumber\":" +
    qx(l.block) + ",\"transactionHash\":" + q(l.txHash) + ",\"transactionIndex\":" + qx(l.txIndex) + ",\"blockHash\":" +
    q(c.view.blockHashOf(l.block)) + ",\"blockTimestamp\":" + qx(c.view.timestampOf(l.block)) + ",\"logIndex\":" +
    qx(l.logIndex) + ",\"removed\":false}"
}

const bloomOf = (logs: ReadonlyArray<Log>): string => logsBloom(logs.flatMap((l) => [l.address, ...l.topics]))

/** A receipt (eth_getTransactionReceipt), keys in the order of the recorded answers. */
const renderReceipt = (c: ChainData, tx: NormalTx): string => {
  const logs = c.logsOfTx(tx.hash)
  return "{\"blockHash\":" + q(c.view.blockHashOf(tx.block)) + ",\"blockNumber\":" + qx(tx.block) + ",\"contractAddress\":" +
    (tx.contractAddress === "" ? "null" : q(tx.contractAddress)) + ",\"cumulativeGasUsed\":" + qx(tx.cumulativeGasUsed) +
    ",\"effectiveGasPrice\":" + qx(tx.gasPrice) + ",\"from\":" + q(tx.from) + ",\"gasUsed\":" + qx(tx.gasUsed) +
    ",\"logs\":[" + logs.map((l) => renderReceiptLog(c, l)).join(",") + "],\"logsBloom\":" + q(bloomOf(logs)) +
    ",\"status\":" + (tx.isError ? "\"0x0\"" : "\"0x1\"") + ",\"to\":" + (tx.to === "" ? "null" : q(tx.to)) +
    ",\"transactionHash\":" + q(tx.hash) + ",\"transactionIndex\":" + qx(tx.index) + ",\"type\":\"0x2\"}"
}

/**
 * A block (eth_getBlockByNumber): transaction hashes, or whole transactions with `full`; keys in geth's
 * (alphabetical) order, with the blob fields and the beacon root from Cancun on and the withdrawals
 * (the staker's of txsBeaconWithdrawal) from Shanghai on.
 */
const renderBlock = (c: ChainData, block: number, full: boolean): string => {
  const txs = c.txsInBlock(block)
  const h = hash2(c.root ^ 0x512e, block)
  const logs = txs.flatMap((t) => c.logsOfTx(t.hash))
  const time = c.view.timestampOf(block)
  const cancun = time >= CANCUN_TIME
  const shanghai = time >= SHANGHAI_TIME
  const staker = c.addr(STAKER)
  const withdrawals = shanghai
    ? ",\"withdrawals\":[" + withdrawalsIn(c, block).map((w) =>
      "{\"index\":" + qx(w.index) + ",\"validatorIndex\":" + qx(w.validator) + ",\"address\":" + q(staker) + ",\"amount\":" + qx(w.amount) + "}"
    ).join(",") + "],\"withdrawalsRoot\":" + q(hash32Hex(c.root, 0x3d7a, block))
    : ""
  return "{\"baseFeePerGas\":" + qx(baseFeeOf(c, block)) + (cancun ? ",\"blobGasUsed\":\"0x0\"" : "") +
    ",\"difficulty\":\"0x0\"" + (cancun ? ",\"excessBlobGas\":\"0x0\"" : "") + ",\"extraData\":" + q(EXTRA_DATA) +
    ",\"gasLimit\":" + qx(GAS_LIMIT) + ",\"gasUsed\":" + qx(gasUsedOf(c, block)) + ",\"hash\":" + q(c.view.blockHashOf(block)) +
    ",\"logsBloom\":" + q(bloomOf(logs)) + ",\"miner\":" + q(minerOf(c, block)) + ",\"mixHash\":" +
    q(hash32Hex(c.root, 0x7a4d, block)) + ",\"nonce\":\"0x0000000000000000\",\"number\":" + qx(block) +
    (cancun ? ",\"parentBeaconBlockRoot\":" + q(hash32Hex(c.root, 0xbeac, block)) : "") + ",\"parentHash\":" +
    q(block === 0 ? "0x" + "0".repeat(64) : c.view.blockHashOf(block - 1)) + ",\"receiptsRoot\":" + q(hash32Hex(c.root, 0x7ec7, block)) +
    ",\"sha3Uncles\":" + q(EMPTY_UNCLES) + ",\"size\":" + qx(600 + (h % 200_000)) + ",\"stateRoot\":" +
    q(hash32Hex(c.root, 0x57a7, block)) + ",\"timestamp\":" + qx(c.view.timestampOf(block)) + ",\"transactions\":[" +
    txs.map((t) => (full ? renderTx(c, t) : q(t.hash))).join(",") + "],\"transactionsRoot\":" +
    q(hash32Hex(c.root, 0x7a5e, block)) + ",\"uncles\":[]" + withdrawals + "}"
}

// ---- execution: the few calls the data set can answer ---------------------------------------------

/** Function selectors the simulated contracts answer. */
const SELECTORS = {
  balanceOf: "0x70a08231",
  totalSupply: "0x18160ddd",
  decimals: "0x313ce567",
  name: "0x06fdde03",
  symbol: "0x95d89b41",
  transfer: "0xa9059cbb",
  withdraw: "0x2e1a7d4d",
  swapExactETHForTokens: "0x7ff36ab5"
} as const

/** The EIP-1967 implementation slot (a proxy's implementation address). */
const IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbcn

/** ABI encoding of one string return value. */
const abiString = (s: string): string => {
  const hex = Buffer.from(s, "utf8").toString("hex")
  const padded = hex.padEnd(Math.ceil(hex.length / 64) * 64, "0")
  return word(32n) + word(BigInt(hex.length / 2)) + padded
}

/** Revert data of `Error(string)`, as Solidity's `require(…, reason)` writes it. */
export const errorData = (reason: string): string => "0x08c379a0" + abiString(reason)

/** The revert reasons of the simulated contracts. */
export const REVERTS = {
  vaultWithdraw: "Vault: withdrawals are paused",
  transferExceedsBalance: "ERC20: transfer amount exceeds balance",
  expired: "SimSwapRouter: EXPIRED"
} as const

type Execution =
  | { readonly _tag: "return"; readonly data: string; readonly gas: number }
  | { readonly _tag: "revert"; readonly reason: string | undefined; readonly data?: string | undefined }

/** Whether `address` holds code at the end of `block`. */
const hasCode = (c: ChainData, address: string, block: number): boolean => {
  if (isEnsContract(c, address)) return true
  const created = c.createdAt(address)
  return created !== undefined && created <= block
}

/** The calldata's word `n` (after the selector) as a bigint, or undefined if the data is too short. */
const argWord = (data: string, n: number): bigint | undefined => {
  const at = 10 + 64 * n
  return data.length >= at + 64 ? BigInt("0x" + data.slice(at, at + 64)) : undefined
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

/** Runs a call of `from` (the zero address when not given, as geth does) to `to` at the end of `block`. */
const execute = (c: ChainData, from: string, to: string, data: string, value: bigint, block: number): Execution => {
  if (isEnsContract(c, to)) {
    const answer = ensCall(c, to, data)
    return answer._tag === "return" ? { _tag: "return", data: answer.data, gas: 2_400 } : { _tag: "revert", reason: undefined, data: answer.data }
  }
  if (!hasCode(c, to, block)) return { _tag: "return", data: "0x", gas: 0 }
  const selector = data.slice(0, 10)
  const returns = (hex: string, gas: number): Execution => ({ _tag: "return", data: "0x" + hex, gas })
  const token = c.tokenMeta(to)
  if (token !== undefined) {
    switch (selector) {
      case SELECTORS.balanceOf: {
        const holder = argWord(data, 0)
        if (holder === undefined || token.standard === "erc1155") break
        return returns(word(c.tokenBalanceAt(to, "0x" + holder.toString(16).padStart(40, "0"), block)), 2_600)
      }
      case SELECTORS.transfer: {
        const amount = argWord(data, 1)
        if (amount === undefined || token.standard !== "erc20") break
        if (c.tokenBalanceAt(to, from, block) < amount) return { _tag: "revert", reason: REVERTS.transferExceedsBalance }
        return returns(word(1n), 29_000)
      }
      case SELECTORS.totalSupply:
        return returns(word(c.totalSupply(to)), 2_400)
      case SELECTORS.decimals:
        if (token.standard !== "erc20") break
        return returns(word(BigInt(token.decimals)), 300)
      case SELECTORS.name:
        return returns(abiString(token.name), 3_200)
      case SELECTORS.symbol:
        return returns(abiString(token.symbol), 3_200)
    }
    return { _tag: "revert", reason: undefined }
  }
  const verified = c.verified(to)
  if (verified === undefined && selector === SELECTORS.withdraw) return { _tag: "revert", reason: REVERTS.vaultWithdraw }
  if (verified?.kind === "router" && selector === SELECTORS.swapExactETHForTokens) {
    const deadline = argWord(data, 3)
    if (deadline === undefined) return { _tag: "revert", reason: undefined }
    if (deadline < BigInt(c.view.timestampOf(block))) return { _tag: "revert", reason: REVERTS.expired }
    // amounts = [value in, tokens out] at the router's fixed rate of 2,500 units per ether
    const out = (value * 2_500n * 10n ** 6n) / 10n ** 18n
    return returns(word(32n) + word(2n) + word(value) + word(out), 98_000)
  }
  return { _tag: "revert", reason: undefined }
}

/** A revert as geth words it: with a reason, with a custom error's data (code 3), or bare. */
const revertAnswer = (reason: string | undefined, data?: string): RpcOutcome =>
  reason !== undefined
    ? { _tag: "rpcError", id: 1, code: 3, message: `execution reverted: ${reason}`, data: errorData(reason) }
    : data !== undefined
    ? { _tag: "rpcError", id: 1, code: 3, message: "execution reverted", data }
    : { _tag: "rpcError", id: 1, code: -32000, message: "execution reverted" }

/** The gas of a call that did not revert: intrinsic, calldata, and for a contract what it ran. */
const callGas = (c: ChainData, to: string, data: string, ran: number, block: number): number =>
  21_000 + calldataGas(data) + (hasCode(c, to, block) ? 21_000 + ran + (hash2(c.root, hashString(to)) % 5_000) : 0)

/** Intrinsic gas of calldata: 16 per non-zero byte, 4 per zero byte. */
const calldataGas = (data: string): number => {
  let gas = 0
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === "00" ? 4 : 16
  return gas
}

/** Storage of a contract: the EIP-1967 slot of the proxy, an ERC-20's total supply at slot 2; else zero. */
const storageAt = (c: ChainData, address: string, slot: bigint, block: number): bigint => {
  if (!hasCode(c, address, block)) return 0n
  const v = c.verified(address)
  if (slot === IMPLEMENTATION_SLOT && v?.kind === "proxy" && v.implementation !== "") return BigInt(v.implementation)
  if (slot === 2n && c.tokenMeta(address)?.standard === "erc20") return c.totalSupply(address)
  return 0n
}

/** The runtime code of a contract: "0x6080604052" and made-up bytes, stable per address. */
const codeOf = (c: ChainData, address: string): string =>
  isEnsContract(c, address) ? ensCode(c, address) : "0x6080604052" + hexWords(c.root, 0xc0de, hashString(address), 48)

// ---- raw transactions -----------------------------------------------------------------------------

/** Checks the outer RLP list of a raw transaction as geth would; its error text, or undefined. */
const rlpProblem = (bytes: Uint8Array): string | undefined => {
  if (bytes.length === 0) return "typed transaction too short"
  let pos = 0
  const first = bytes[0] as number
  if (first <= 0x7f) {
    if (first < 1 || first > 4) return "transaction type not supported"
    pos = 1
  }
  const prefix = bytes[pos]
  if (prefix === undefined) return "typed transaction too short"
  if (prefix < 0xc0) return "rlp: expected input list for types.LegacyTx"
  let length: number
  let header = 1
  if (prefix <= 0xf7) length = prefix - 0xc0
  else {
    const size = prefix - 0xf7
    header += size
    if (pos + header > bytes.length) return "rlp: value size exceeds available input length"
    length = 0
    for (let k = 1; k <= size; k++) length = length * 256 + (bytes[pos + k] as number)
  }
  const end = pos + header + length
  if (end > bytes.length) return "rlp: value size exceeds available input length"
  if (end < bytes.length) return "rlp: input contains more than one value"
  return undefined
}

/** A raw transaction read far enough for a node's checks, with its sender: what the pool holds, and the signature. */
interface SignedTx extends Omit<PooledTx, "hash"> {
  readonly v: bigint
  readonly r: bigint
  readonly s: bigint
}

/** A raw transaction as ox reads it; `undefined` where ox cannot (an envelope no node would take). */
const envelopeOf = (hex: string): TxEnvelope.TxEnvelope | undefined => {
  try {
    return TxEnvelope.deserialize(hex as Hex.Hex)
  } catch {
    return undefined
  }
}

/**
 * The fields and the sender of a signed legacy (EIP-155 or not), access-list or dynamic-fee transaction;
 * `undefined` for another type, an unsigned one or a signature no key made.
 */
const signedTx = (envelope: TxEnvelope.TxEnvelope): SignedTx | undefined => {
  if (envelope.type !== "legacy" && envelope.type !== "eip2930" && envelope.type !== "eip1559") return undefined
  const { r, s, yParity } = envelope
  if (r === undefined || s === undefined || yParity === undefined) return undefined
  let from: string
  try {
    from = Secp256k1.recoverAddress({ payload: TxEnvelope.getSignPayload(envelope), signature: Signature.from({ r, s, yParity }) })
      .toLowerCase()
  } catch {
    return undefined
  }
  // gasPrice (legacy, access list) or maxFeePerGas (dynamic fee)
  const fees = envelope as { readonly gasPrice?: bigint; readonly maxFeePerGas?: bigint; readonly maxPriorityFeePerGas?: bigint }
  return {
    from,
    nonce: envelope.nonce ?? 0n,
    gasLimit: envelope.gas ?? 0n,
    maxGasPrice: (envelope.type === "eip1559" ? fees.maxFeePerGas : fees.gasPrice) ?? 0n,
    maxPriorityFee: (envelope.type === "eip1559" ? fees.maxPriorityFeePerGas : fees.gasPrice) ?? 0n,
    to: envelope.to?.toLowerCase() ?? "0x",
    value: envelope.value ?? 0n,
    input: (envelope.data ?? envelope.input ?? "0x").toLowerCase(),
    type: envelope.type === "legacy" ? 0 : envelope.type === "eip2930" ? 1 : 2,
    v: BigInt(envelope.type === "legacy" ? envelope.v ?? yParity + 27 : yParity),
    r: BigInt(r),
    s: BigInt(s)
  }
}

/** A pending transaction (eth_getTransactionByHash): no block yet, keys in the order of a mined one. */
const renderPending = (c: ChainData, hash: string, tx: SignedTx): string =>
  "{\"blockHash\":null,\"blockNumber\":null,\"from\":" + q(tx.from) + ",\"gas\":" + qx(tx.gasLimit) +
  ",\"gasPrice\":" + qx(tx.maxGasPrice) +
  (tx.type === 2 ? ",\"maxFeePerGas\":" + qx(tx.maxGasPrice) + ",\"maxPriorityFeePerGas\":" + qx(tx.maxPriorityFee) : "") +
  ",\"hash\":" + q(hash) + ",\"input\":" + q(tx.input) + ",\"nonce\":" + qx(tx.nonce) + ",\"to\":" +
  (tx.to === "0x" ? "null" : q(tx.to)) + ",\"transactionIndex\":null,\"value\":" + qx(tx.value) + ",\"type\":" + qx(tx.type) +
  (tx.type === 0 ? "" : ",\"accessList\":[],\"chainId\":" + qx(c.chainId)) + ",\"v\":" + qx(tx.v) + ",\"r\":" + qx(tx.r) +
  ",\"s\":" + qx(tx.s) + (tx.type === 0 ? "" : ",\"yParity\":" + qx(tx.v)) + "}"

const nodeError = (message: string): RpcOutcome => ({ _tag: "rpcError", id: 1, code: -32000, message })

// ---- the actions ----------------------------------------------------------------------------------

const run = (c: ChainData, action: ProxyAction, p: Params): RpcOutcome => {
  switch (action) {
    case "eth_getBlockByNumber": {
      const block = tagParam(c, p)
      const full = p.boolean === undefined ? false : p.boolean === "true" ? true : p.boolean === "false" ? false : refuse(Texts.INVALID_PARAMETER)
      return ok(block === undefined ? "null" : renderBlock(c, block, full))
    }
    case "eth_getUncleByBlockNumberAndIndex": {
      tagParam(c, p)
      if (quantityParam(p, "index") === undefined) refuse(Texts.INVALID_PARAMETER)
      // proof-of-stake blocks have no uncles
      return ok("null")
    }
    case "eth_getBlockTransactionCountByNumber": {
      const block = tagParam(c, p)
      return ok(block === undefined ? "null" : qx(c.txsInBlock(block).length))
    }
    case "eth_getTransactionByHash":
    case "eth_getTransactionReceipt": {
      const hash = hashParam(p)
      const tx = c.txByHash(hash)
      // accepted and not mined: the transaction without a block, no receipt yet
      const pending = tx === undefined ? c.pendingTxs().get(hash) : undefined
      if (pending !== undefined) return ok(action === "eth_getTransactionByHash" ? pending : "null")
      if (tx === undefined || tx.genesis) return ok("null")
      return ok(action === "eth_getTransactionByHash" ? renderTx(c, tx) : renderReceipt(c, tx))
    }
    case "eth_getTransactionByBlockNumberAndIndex": {
      const block = tagParam(c, p)
      const index = quantityParam(p, "index") ?? refuse(Texts.INVALID_PARAMETER)
      const tx = block === undefined ? undefined : c.txsInBlock(block).find((t) => BigInt(t.index) === index)
      return ok(tx === undefined ? "null" : renderTx(c, tx))
    }
    case "eth_getTransactionCount": {
      const a = addressParam(p, "address")
      const block = tagParam(c, p) ?? refuse(Texts.INVALID_PARAMETER)
      const mined = c.nonceAt(a, block)
      // "pending" counts the sender's transactions waiting in the pool, as a node's does
      return ok(qx(p.tag === "pending" ? mined + c.mining().pendingAfter(a, mined) : mined))
    }
    case "eth_getCode": {
      const a = addressParam(p, "address")
      const block = tagParam(c, p) ?? refuse(Texts.INVALID_PARAMETER)
      return ok(q(hasCode(c, a, block) ? codeOf(c, a) : "0x"))
    }
    case "eth_getStorageAt": {
      const a = addressParam(p, "address")
      const slot = slotParam(p)
      const block = tagParam(c, p) ?? refuse(Texts.INVALID_PARAMETER)
      return ok(q("0x" + word(storageAt(c, a, slot, block))))
    }
    case "eth_call":
    case "eth_estimateGas": {
      const to = p.to === undefined ? undefined : addressParam(p, "to")
      const data = dataParam(p, p.data === undefined && p.input !== undefined ? "input" : "data")
      const value = quantityParam(p, "value") ?? 0n
      quantityParam(p, "gas")
      quantityParam(p, "gasprice")
      const block = action === "eth_call" ? (tagParam(c, p) ?? refuse(Texts.INVALID_PARAMETER)) : c.head()
      if (to === undefined) {
        // a contract creation: nothing to run, the intrinsic cost of creating
        return action === "eth_call" ? ok("\"0x\"") : ok(qx(53_000 + calldataGas(data)))
      }
      const from = p.from === undefined ? ZERO_ADDRESS : addressParam(p, "from")
      const executed = execute(c, from, to, data, value, block)
      if (executed._tag === "revert") return revertAnswer(executed.reason, executed.data)
      if (action === "eth_call") return ok(q(executed.data))
      return ok(qx(callGas(c, to, data, executed.gas, block)))
    }
    case "eth_sendRawTransaction": {
      const hex = p.hex
      if (hex === undefined || !DATA.test(hex)) return refuse(Texts.INVALID_PARAMETER)
      const bytes = Bytes.fromHex(hex as Hex.Hex)
      const problem = rlpProblem(bytes)
      if (problem !== undefined) return { _tag: "rpcError", id: 1, code: -32000, message: problem }
      const envelope = envelopeOf(hex)
      // signed for another chain (a legacy one signed for any chain has none): the node's pool refuses it
      if (envelope?.chainId !== undefined && envelope.chainId !== c.chainId) return nodeError("invalid chain id")
      const hash: string = Hash.keccak256(hex as Hex.Hex)
      const pool = c.pendingTxs()
      if (pool.has(hash)) return nodeError("already known")
      const tx = envelope === undefined ? undefined : signedTx(envelope)
      if (tx === undefined) return nodeError("invalid sender")
      const head = c.head()
      if (tx.nonce < BigInt(c.nonceAt(tx.from, head))) return nodeError("nonce too low")
      if (c.nativeBalanceAt(tx.from, head) < tx.gasLimit * tx.maxGasPrice + tx.value) {
        return nodeError("insufficient funds for gas * price + value")
      }
      // another of the same nonce waits: replaced by one paying at least 10 % more, as geth's pool does
      const rival = c.mining().pooledWith(tx.from, tx.nonce)
      if (rival !== undefined) {
        if (tx.maxGasPrice * 10n < rival.maxGasPrice * 11n || tx.maxPriorityFee * 10n < rival.maxPriorityFee * 11n) {
          return nodeError("replacement transaction underpriced")
        }
        c.mining().drop(rival.hash)
        pool.delete(rival.hash)
      }
      pool.set(hash, renderPending(c, hash, tx))
      c.mining().accept({ ...tx, hash })
      return ok(q(hash))
    }
  }
}

/**
 * Runs a pooled transaction in the block it is mined into, on the state at the end of the block before:
 * a creation succeeds (its address from sender and nonce), a call fails where `eth_call` would revert;
 * it pays the gas `eth_estimateGas` gives (at most its limit), at the price the block's base fee makes.
 */
const runMined = (c: ChainData, tx: PooledTx, block: number): Executed => {
  const base = baseFeeOf(c, block)
  const gasPrice = tx.type === 2
    ? (tx.maxGasPrice < base + tx.maxPriorityFee ? tx.maxGasPrice : base + tx.maxPriorityFee)
    : tx.maxGasPrice
  const limit = Number(tx.gasLimit)
  if (tx.to === "0x") {
    const contractAddress = ContractAddress.from({ from: tx.from as Hex.Hex, nonce: tx.nonce }).toLowerCase()
    return { gasUsed: Math.min(limit, 53_000 + calldataGas(tx.input)), gasPrice, isError: false, contractAddress }
  }
  const executed = execute(c, tx.from, tx.to, tx.input, tx.value, block - 1)
  if (executed._tag === "revert") return { gasUsed: Math.min(limit, 21_000 + calldataGas(tx.input) + 21_000), gasPrice, isError: true, contractAddress: "" }
  const gas = callGas(c, tx.to, tx.input, executed.gas, block - 1)
  return { gasUsed: Math.min(limit, gas), gasPrice, isError: gas > limit, contractAddress: "" }
}

/**
 * Moves a chain to the simulator's time: the blocks due since are mined from the pool (mining.ts), and
 * their transactions leave the pending set.
 */
export const mineDue = (c: ChainData, now: number): void => {
  const mined = c.mining().advance(now, (a) => c.nonceAt(a, c.head()), (tx, block) => runMined(c, tx, block))
  for (const hash of mined) c.pendingTxs().delete(hash)
}

/** Answer one proxy action of a chain. */
export const proxy = (c: ChainData, action: ProxyAction, p: Params): RpcOutcome => {
  try {
    return run(c, action, p)
  } catch (e) {
    if (e instanceof Refuse) return { _tag: "error", text: e.text }
    throw e
  }
}
