/**
 * The service's counting rules as small pure structures on explicit timestamps: a sliding window of
 * N calls per second, daily counters per UTC day, and the per-IP invalid-key attempt tracker.
 */

/**
 * A sliding window: at most `limit` recorded calls in any `windowMs`. Only calls that are let
 * through are recorded (a refused call does not use the budget), so a client that never sends more
 * than `limit` calls in any second is never refused.
 */
export class SlidingWindow {
  private readonly times: Float64Array
  private head = 0
  private count = 0
  constructor(readonly limit: number, readonly windowMs: number) {
    this.times = new Float64Array(Math.max(1, limit))
  }
  /** Whether a call at `now` fits in the window (does not record it). */
  allows(now: number): boolean {
    if (this.count < this.limit) return true
    return now - (this.times[this.head] as number) >= this.windowMs
  }
  /** Record a call at `now`. */
  record(now: number): void {
    if (this.count < this.limit) {
      this.times[(this.head + this.count) % this.limit] = now
      this.count++
    } else {
      this.times[this.head] = now
      this.head = (this.head + 1) % this.limit
    }
  }
}

/** UTC day number of a time in milliseconds. */
export const utcDay = (ms: number): number => Math.floor(ms / 86_400_000)

/** A count per key that starts again every UTC day. */
export class DailyCounter {
  private readonly counts = new Map<string, { day: number; n: number }>()
  /** Calls counted today for `key`. */
  get(key: string, now: number): number {
    const e = this.counts.get(key)
    return e === undefined || e.day !== utcDay(now) ? 0 : e.n
  }
  /** Count one call for `key`. */
  add(key: string, now: number): void {
    const day = utcDay(now)
    const e = this.counts.get(key)
    if (e === undefined || e.day !== day) this.counts.set(key, { day, n: 1 })
    else e.n++
  }
}

/** Invalid-key attempts per IP: more than `max` in `windowMs` and the IP is told to wait (facts §1.2). */
export class InvalidKeyTracker {
  private readonly attempts = new Map<string, Array<number>>()
  constructor(readonly max = 5, readonly windowMs = 30_000) {}
  /** Whether this IP already made `max` invalid attempts within the window. */
  blocked(ip: string, now: number): boolean {
    const a = this.attempts.get(ip)
    if (a === undefined) return false
    while (a.length > 0 && now - (a[0] as number) >= this.windowMs) a.shift()
    return a.length >= this.max
  }
  /** Record one invalid attempt. */
  record(ip: string, now: number): void {
    const a = this.attempts.get(ip)
    if (a === undefined) this.attempts.set(ip, [now])
    else a.push(now)
  }
}
