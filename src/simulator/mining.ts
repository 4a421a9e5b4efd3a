/**
 * The blocks a chain grows by after the data set's latest one: the raw transactions
 * `eth_sendRawTransaction` accepted, mined as the simulator's clock produces blocks. A chain nobody
 * sends to never grows, so its answers never drift. A transaction waits in the pool for the next block:
 * the chain's block time after the first transaction of the pool arrived (12 s on chain 1, on the
 * simulator's clock); that block takes every pooled transaction whose nonce is its sender's next one.
 * A mined transaction is a normal transaction of the chain (txlist, the proxy module's blocks,
 * transactions and receipts, nonces and ether balances); it moves ether only — a call's effects on a
 * contract's state are not simulated, though its receipt says whether the call reverts.
 */
import { arraySource, type RowSource } from "./rowIndex.js"
import type { NormalTx } from "./rows.js"

/** A transaction the pool holds: what mining needs of the signed one. */
export interface PooledTx {
  readonly hash: string
  readonly from: string
  readonly nonce: bigint
  readonly gasLimit: bigint
  /** gasPrice (legacy, access list) or maxFeePerGas (dynamic fee). */
  readonly maxGasPrice: bigint
  readonly maxPriorityFee: bigint
  /** The recipient; "0x" for a contract creation. */
  readonly to: string
  readonly value: bigint
  readonly input: string
  readonly type: number
}

/** What running a pooled transaction in its block gives. */
export interface Executed {
  readonly gasUsed: number
  readonly gasPrice: bigint
  readonly isError: boolean
  /** The created contract of a creation, else "". */
  readonly contractAddress: string
}

/** The mined part of one chain. */
export class Mining {
  private readonly blocks: Array<ReadonlyArray<NormalTx>> = []
  private readonly pool: Array<{ readonly tx: PooledTx; readonly acceptedAt: number }> = []
  private readonly byHash = new Map<string, NormalTx>()
  private readonly byAddress = new Map<string, Array<NormalTx>>()
  /** The simulator's time of the request being answered. */
  private now = 0

  constructor(
    /** The data set's latest block. */
    private readonly base: number,
    private readonly blockTimeMs: number
  ) {}

  /** The latest block: the data set's, or the last one mined since. */
  head(): number {
    return this.base + this.blocks.length
  }

  /** A mined transaction by hash. */
  tx(hash: string): NormalTx | undefined {
    return this.byHash.get(hash)
  }

  /** The transactions of a mined block (empty for a block of the data set). */
  txsIn(block: number): ReadonlyArray<NormalTx> {
    return block > this.base ? this.blocks[block - this.base - 1] ?? [] : []
  }

  /** A txlist source of an address's mined transactions, if it has any. */
  source(address: string): RowSource<NormalTx> | undefined {
    const rows = this.byAddress.get(address)
    return rows === undefined ? undefined : arraySource(rows, (t) => t.block)
  }

  /** Transactions `address` sent in mined blocks up to `block` (its nonce on top of the data set's). */
  sent(address: string, block: number): number {
    let n = 0
    for (const t of this.byAddress.get(address) ?? []) if (t.from === address && t.block <= block) n++
    return n
  }

  /** What mined blocks up to `block` changed `address`'s ether by: value moved, fees paid. */
  balanceDelta(address: string, block: number): bigint {
    let d = 0n
    for (const t of this.byAddress.get(address) ?? []) {
      if (t.block > block) continue
      if (t.from === address) d -= BigInt(t.gasUsed) * t.gasPrice + (t.isError ? 0n : t.value)
      if (t.to === address && !t.isError) d += t.value
    }
    return d
  }

  /** The pooled transaction of a sender with a nonce, if any. */
  pooledWith(from: string, nonce: bigint): PooledTx | undefined {
    return this.pool.find((p) => p.tx.from === from && p.tx.nonce === nonce)?.tx
  }

  /** How many of a sender's transactions follow on from `nonce` in the pool (the `pending` nonce is that much higher). */
  pendingAfter(from: string, nonce: number): number {
    let next = BigInt(nonce)
    while (this.pool.some((p) => p.tx.from === from && p.tx.nonce === next)) next++
    return Number(next) - nonce
  }

  /** Takes a transaction out of the pool (replaced by one of the same nonce paying more). */
  drop(hash: string): void {
    const i = this.pool.findIndex((p) => p.tx.hash === hash)
    if (i >= 0) this.pool.splice(i, 1)
  }

  /** Takes an accepted transaction into the pool, at the time of the request that sent it. */
  accept(tx: PooledTx): void {
    this.pool.push({ tx, acceptedAt: this.now })
  }

  /**
   * Moves the chain to the simulator's time `now`: produces the blocks due since, each `blockTimeMs`
   * after the first transaction waiting for it, with every pooled transaction whose nonce is its
   * sender's next; `nonceOf` is a sender's nonce at the head, `run` runs one in its block. Gives the
   * hashes mined.
   */
  advance(
    now: number,
    nonceOf: (address: string) => number,
    run: (tx: PooledTx, block: number) => Executed
  ): ReadonlyArray<string> {
    this.now = Math.max(this.now, now)
    const mined: Array<string> = []
    for (;;) {
      const first = this.pool[0]
      if (first === undefined || this.now < first.acceptedAt + this.blockTimeMs) return mined
      const number = this.head() + 1
      const rows: Array<NormalTx> = []
      const next = new Map<string, number>()
      let cumulative = 0
      // in arrival order, a sender's transactions in nonce order as they become the next one
      for (let progress = true; progress;) {
        progress = false
        for (let i = 0; i < this.pool.length; i++) {
          const { tx } = this.pool[i] as { readonly tx: PooledTx }
          const expected = next.get(tx.from) ?? nonceOf(tx.from)
          if (tx.nonce < BigInt(expected)) {
            // replaced by another transaction of the same nonce: it will never be mined
            this.pool.splice(i--, 1)
            continue
          }
          if (tx.nonce !== BigInt(expected)) continue
          this.pool.splice(i--, 1)
          const ran = run(tx, number)
          cumulative += ran.gasUsed
          rows.push({
            block: number,
            index: rows.length,
            hash: tx.hash,
            nonce: Number(tx.nonce),
            from: tx.from,
            to: tx.to === "0x" ? "" : tx.to,
            value: tx.value,
            gas: Number(tx.gasLimit),
            gasPrice: ran.gasPrice,
            gasUsed: ran.gasUsed,
            cumulativeGasUsed: cumulative,
            input: tx.input,
            methodId: tx.input.length >= 10 ? tx.input.slice(0, 10) : "0x",
            functionName: "",
            contractAddress: ran.contractAddress,
            isError: ran.isError,
            receiptStatus: ran.isError ? "0" : "1",
            genesis: false
          })
          next.set(tx.from, expected + 1)
          mined.push(tx.hash)
          progress = true
        }
      }
      if (rows.length === 0) return mined // every pooled transaction waits for a nonce before it
      this.blocks.push(rows)
      for (const t of rows) {
        this.byHash.set(t.hash, t)
        for (const a of new Set([t.from, t.to, t.contractAddress].filter((x) => x !== ""))) {
          const list = this.byAddress.get(a)
          if (list === undefined) this.byAddress.set(a, [t])
          else list.push(t)
        }
      }
      // the next block is due a block time after this one, for what is still pooled
      const rest = this.pool.splice(0)
      for (const p of rest) this.pool.push({ tx: p.tx, acceptedAt: Math.max(p.acceptedAt, first.acceptedAt + this.blockTimeMs) })
    }
  }
}
