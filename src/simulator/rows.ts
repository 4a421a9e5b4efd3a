/**
 * The simulator's row types (one normal transaction, internal transaction, log, token transfer) and
 * their wire rendering: each renderer writes one JSON object by string concatenation, in the exact
 * key order of the current docs (facts §2), so a 10,000-row page is built without JSON.stringify of
 * big object graphs.
 */

/** What a renderer needs to know of the chain: confirmations, timestamps and block hashes. */
export interface ChainView {
  readonly latestBlock: number
  readonly timestampOf: (block: number) => number
  readonly blockHashOf: (block: number) => string
}

/** One normal transaction (txlist row). */
export interface NormalTx {
  readonly block: number
  /** transactionIndex within the block. */
  readonly index: number
  readonly hash: string
  /** -1 for a GENESIS allocation, whose nonce is "". */
  readonly nonce: number
  readonly from: string
  /** "" for a contract creation. */
  readonly to: string
  readonly value: bigint
  readonly gas: number
  readonly gasPrice: bigint
  readonly gasUsed: number
  readonly cumulativeGasUsed: number
  readonly input: string
  readonly methodId: string
  readonly functionName: string
  /** The created contract of a creation, else "". */
  readonly contractAddress: string
  readonly isError: boolean
  /** "1" success, "0" failure, "" before Byzantium (GENESIS rows). */
  readonly receiptStatus: "1" | "0" | ""
  readonly genesis: boolean
}

/** One internal transaction (trace) of a normal transaction. */
export interface InternalTx {
  readonly block: number
  /** The parent transaction's index, for ordering within a block. */
  readonly txIndex: number
  /** The parent transaction's hash. */
  readonly hash: string
  readonly from: string
  readonly to: string
  readonly value: bigint
  readonly contractAddress: string
  readonly input: string
  readonly type: string
  readonly gas: number
  readonly gasUsed: number
  readonly traceId: string
  readonly isError: boolean
  readonly errCode: string
}

/** One event log. */
export interface Log {
  readonly address: string
  readonly topics: ReadonlyArray<string>
  readonly data: string
  readonly block: number
  readonly txHash: string
  readonly txIndex: number
  readonly logIndex: number
  readonly gasPrice: bigint
  readonly gasUsed: number
}

/** A token contract as transfer rows and balances name it. */
export interface TokenMeta {
  readonly address: string
  readonly name: string
  readonly symbol: string
  readonly decimals: number
  readonly standard: "erc20" | "erc721" | "erc1155"
}

/** One token transfer event (tokentx, tokennfttx or token1155tx row), tied to its transaction. */
export interface TokenTransfer {
  readonly token: TokenMeta
  readonly tx: NormalTx
  readonly from: string
  readonly to: string
  /** ERC-20 value or ERC-1155 tokenValue (raw units). */
  readonly amount: bigint
  /** ERC-721 / ERC-1155 token id. */
  readonly tokenId: bigint
  readonly logIndex: number
}

const s = (v: string | number | bigint): string => "\"" + v + "\""

/** A txlist row, keys in docs order (methodId/functionName included). */
export const renderNormalTx = (tx: NormalTx, chain: ChainView): string => {
  if (tx.genesis) {
    return "{\"blockNumber\":\"0\",\"blockHash\":\"\",\"timeStamp\":" + s(chain.timestampOf(0)) + ",\"hash\":" +
      s(tx.hash) + ",\"nonce\":\"\",\"transactionIndex\":\"0\",\"from\":\"GENESIS\",\"to\":" + s(tx.to) +
      ",\"value\":" + s(tx.value) + ",\"gas\":\"0\",\"gasPrice\":\"0\",\"input\":\"\",\"methodId\":\"\"," +
      "\"functionName\":\"\",\"contractAddress\":\"\",\"cumulativeGasUsed\":\"0\",\"txreceipt_status\":\"\"," +
      "\"gasUsed\":\"0\",\"confirmations\":" + s(chain.latestBlock) + ",\"isError\":\"0\"}"
  }
  return "{\"blockNumber\":\"" + tx.block + "\",\"blockHash\":\"" + chain.blockHashOf(tx.block) +
    "\",\"timeStamp\":\"" + chain.timestampOf(tx.block) + "\",\"hash\":\"" + tx.hash + "\",\"nonce\":\"" + tx.nonce +
    "\",\"transactionIndex\":\"" + tx.index + "\",\"from\":\"" + tx.from + "\",\"to\":\"" + tx.to + "\",\"value\":\"" +
    tx.value + "\",\"gas\":\"" + tx.gas + "\",\"gasPrice\":\"" + tx.gasPrice + "\",\"input\":\"" + tx.input +
    "\",\"methodId\":\"" + tx.methodId + "\",\"functionName\":" + JSON.stringify(tx.functionName) +
    ",\"contractAddress\":\"" + tx.contractAddress + "\",\"cumulativeGasUsed\":\"" + tx.cumulativeGasUsed +
    "\",\"txreceipt_status\":\"" + tx.receiptStatus + "\",\"gasUsed\":\"" + tx.gasUsed + "\",\"confirmations\":\"" +
    (chain.latestBlock - tx.block) + "\",\"isError\":\"" + (tx.isError ? "1" : "0") + "\"}"
}

/**
 * A txlistinternal row. By address and by block range the keys are blockNumber, timeStamp, hash,
 * from, to, value, contractAddress, input, type, gas, gasUsed, traceId, isError, errCode; the
 * by-txhash variant omits `hash` and `traceId` (facts §2.12). `withTxIndex` (HyperEVM) adds the
 * parent's `transactionIndex` right after `blockNumber`, as recorded there.
 */
export const renderInternalTx = (t: InternalTx, chain: ChainView, byTxHash: boolean, withTxIndex = false): string =>
  "{\"blockNumber\":\"" + t.block + (withTxIndex ? "\",\"transactionIndex\":\"" + t.txIndex : "") +
  "\",\"timeStamp\":\"" + chain.timestampOf(t.block) +
  (byTxHash ? "" : "\",\"hash\":\"" + t.hash) + "\",\"from\":\"" + t.from + "\",\"to\":\"" + t.to +
  "\",\"value\":\"" + t.value + "\",\"contractAddress\":\"" + t.contractAddress + "\",\"input\":\"" + t.input +
  "\",\"type\":\"" + t.type + "\",\"gas\":\"" + t.gas + "\",\"gasUsed\":\"" + t.gasUsed +
  (byTxHash ? "" : "\",\"traceId\":\"" + t.traceId) + "\",\"isError\":\"" + (t.isError ? "1" : "0") +
  "\",\"errCode\":" + JSON.stringify(t.errCode) + "}"

const hexNum = (n: number | bigint): string => (n === 0 || n === 0n ? "0x" : "0x" + n.toString(16))

/** A getLogs row: every number in hex, zero as "0x" (facts §2.20, §5.5). */
export const renderLog = (l: Log, chain: ChainView): string => {
  let topics = "["
  for (let i = 0; i < l.topics.length; i++) topics += (i === 0 ? "\"" : ",\"") + l.topics[i] + "\""
  return "{\"address\":\"" + l.address + "\",\"topics\":" + topics + "],\"data\":\"" + l.data +
    "\",\"blockNumber\":\"" + hexNum(l.block) + "\",\"blockHash\":\"" + chain.blockHashOf(l.block) +
    "\",\"timeStamp\":\"" + hexNum(chain.timestampOf(l.block)) + "\",\"gasPrice\":\"" + hexNum(l.gasPrice) +
    "\",\"gasUsed\":\"" + hexNum(l.gasUsed) + "\",\"logIndex\":\"" + hexNum(l.logIndex) +
    "\",\"transactionHash\":\"" + l.txHash + "\",\"transactionIndex\":\"" + hexNum(l.txIndex) + "\"}"
}

const quotedNames = new WeakMap<TokenMeta, { readonly name: string; readonly symbol: string }>()
const names = (t: TokenMeta) => {
  let q = quotedNames.get(t)
  if (q === undefined) {
    q = { name: JSON.stringify(t.name), symbol: JSON.stringify(t.symbol) }
    quotedNames.set(t, q)
  }
  return q
}

/** A tokentx (ERC-20) row: `input` is "deprecated" (facts §2.13). */
export const renderErc20Transfer = (t: TokenTransfer, chain: ChainView): string => {
  const tx = t.tx
  const q = names(t.token)
  return "{\"blockNumber\":\"" + tx.block + "\",\"timeStamp\":\"" + chain.timestampOf(tx.block) + "\",\"hash\":\"" +
    tx.hash + "\",\"nonce\":\"" + tx.nonce + "\",\"blockHash\":\"" + chain.blockHashOf(tx.block) + "\",\"from\":\"" +
    t.from + "\",\"contractAddress\":\"" + t.token.address + "\",\"to\":\"" + t.to + "\",\"value\":\"" + t.amount +
    "\",\"tokenName\":" + q.name + ",\"tokenSymbol\":" + q.symbol + ",\"tokenDecimal\":\"" + t.token.decimals +
    "\",\"transactionIndex\":\"" + tx.index + "\",\"gas\":\"" + tx.gas + "\",\"gasPrice\":\"" + tx.gasPrice +
    "\",\"gasUsed\":\"" + tx.gasUsed + "\",\"cumulativeGasUsed\":\"" + tx.cumulativeGasUsed +
    "\",\"input\":\"deprecated\",\"methodId\":\"" + tx.methodId + "\",\"functionName\":" +
    JSON.stringify(tx.functionName) + ",\"confirmations\":\"" + (chain.latestBlock - tx.block) + "\"}"
}

/** A tokennfttx (ERC-721) row: `tokenID` instead of `value`, `tokenDecimal` "0" (facts §2.14). */
export const renderErc721Transfer = (t: TokenTransfer, chain: ChainView): string => {
  const tx = t.tx
  const q = names(t.token)
  return "{\"blockNumber\":\"" + tx.block + "\",\"timeStamp\":\"" + chain.timestampOf(tx.block) + "\",\"hash\":\"" +
    tx.hash + "\",\"nonce\":\"" + tx.nonce + "\",\"blockHash\":\"" + chain.blockHashOf(tx.block) + "\",\"from\":\"" +
    t.from + "\",\"contractAddress\":\"" + t.token.address + "\",\"to\":\"" + t.to + "\",\"tokenID\":\"" + t.tokenId +
    "\",\"tokenName\":" + q.name + ",\"tokenSymbol\":" + q.symbol + ",\"tokenDecimal\":\"0\",\"transactionIndex\":\"" +
    tx.index + "\",\"gas\":\"" + tx.gas + "\",\"gasPrice\":\"" + tx.gasPrice + "\",\"gasUsed\":\"" + tx.gasUsed +
    "\",\"cumulativeGasUsed\":\"" + tx.cumulativeGasUsed + "\",\"input\":\"deprecated\",\"methodId\":\"" +
    tx.methodId + "\",\"functionName\":" + JSON.stringify(tx.functionName) + ",\"confirmations\":\"" +
    (chain.latestBlock - tx.block) + "\"}"
}

/** A token1155tx row: `tokenID` + `tokenValue`, no `tokenDecimal` (facts §2.15). */
export const renderErc1155Transfer = (t: TokenTransfer, chain: ChainView): string => {
  const tx = t.tx
  const q = names(t.token)
  return "{\"blockNumber\":\"" + tx.block + "\",\"timeStamp\":\"" + chain.timestampOf(tx.block) + "\",\"hash\":\"" +
    tx.hash + "\",\"nonce\":\"" + tx.nonce + "\",\"blockHash\":\"" + chain.blockHashOf(tx.block) +
    "\",\"transactionIndex\":\"" + tx.index + "\",\"gas\":\"" + tx.gas + "\",\"gasPrice\":\"" + tx.gasPrice +
    "\",\"gasUsed\":\"" + tx.gasUsed + "\",\"cumulativeGasUsed\":\"" + tx.cumulativeGasUsed +
    "\",\"input\":\"deprecated\",\"methodId\":\"" + tx.methodId + "\",\"functionName\":" +
    JSON.stringify(tx.functionName) + ",\"contractAddress\":\"" + t.token.address + "\",\"from\":\"" + t.from +
    "\",\"to\":\"" + t.to + "\",\"tokenID\":\"" + t.tokenId + "\",\"tokenValue\":\"" + t.amount + "\",\"tokenName\":" +
    q.name + ",\"tokenSymbol\":" + q.symbol + ",\"confirmations\":\"" + (chain.latestBlock - tx.block) + "\"}"
}
