/**
 * The logs bloom of receipts and blocks, for the simulator's proxy module. The hash is ox's Keccak-256 (a
 * runtime dependency already); ox reads a bloom but does not build one, hence these few lines.
 */
import * as Bytes from "ox/Bytes"
import * as Hash from "ox/Hash"
import * as Hex from "ox/Hex"

/**
 * A 2048-bit logs bloom (as 256 bytes) of addresses and topics: for each item, the three 11-bit values of
 * the first six bytes of its Keccak-256 set one bit each (the yellow paper's M3:2048).
 */
export const logsBloom = (items: Iterable<string>): string => {
  const bloom = new Uint8Array(256)
  for (const item of items) {
    const h = Hash.keccak256(Bytes.fromHex(item as Hex.Hex))
    for (let k = 0; k < 6; k += 2) {
      const bit = (((h[k] as number) << 8) | (h[k + 1] as number)) & 2047
      const index = 255 - (bit >> 3)
      bloom[index] = (bloom[index] as number) | (1 << (bit & 7))
    }
  }
  return Hex.fromBytes(bloom)
}
