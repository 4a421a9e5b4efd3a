/** Rows of the paging-engine tests: a block number and an id that tells every row apart. */
export interface Row {
  readonly block: number
  readonly id: number
}

/** Where the engines say they page (for their error messages). */
export const where = { chainId: 1, module: "logs", action: "getLogs" }

/** Rows from a rows-per-block distribution: [block, count] pairs, blocks ascending. */
export const rowsOf = (distribution: ReadonlyArray<readonly [number, number]>): Array<Row> => {
  const out: Array<Row> = []
  for (const [block, count] of distribution) for (let i = 0; i < count; i++) out.push({ block, id: out.length })
  return out
}
