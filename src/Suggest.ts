/**
 * "Did you mean": the known name closest to what was typed, by edit distance, letter case aside — for
 * chain names, commands and data sets (the CLI) and an ABI's event names (`Events`). A module of its
 * own: it is no part of the client.
 *
 * @since 0.1.0
 * @category modules
 * @module
 */

/** Levenshtein distance between two strings. */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length] as number
}

/**
 * The name of `names` closest to `text` (the first of the closest), when it is close enough to be a typo
 * of it: at most 2 edits, or a third of the text's length.
 *
 * @example
 * suggest("txz", ["txs", "logs"]) // "txs"
 *
 * @since 0.1.0
 * @category utils
 */
export const suggest = (text: string, names: Iterable<string>): string | undefined => {
  const typed = text.toLowerCase()
  let best: { name: string; d: number } | undefined
  for (const name of names) {
    const d = distance(typed, name.toLowerCase())
    if (best === undefined || d < best.d) best = { name, d }
  }
  return best !== undefined && best.d <= Math.max(2, Math.floor(text.length / 3)) ? best.name : undefined
}
