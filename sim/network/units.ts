/**
 * The units a network is described in: durations (`250ms`, `2s`) and link rates (`1mbit`,
 * `100kbit`). Rates are decimal, as link speeds are quoted (1 mbit = 10⁶ bits per second).
 */

/** A value that is not a duration or a rate; the message names the setting. */
export class UnitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnitError';
  }
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `250ms`, `2s`, `1.5m`, `1h` → milliseconds (0 allowed: no delay). */
export function parseDuration(text: string, what = 'duration'): number {
  const m = DURATION.exec(text.trim());
  if (m === null) {
    throw new UnitError(`${what} must be a duration such as 250ms, 2s or 1m, not "${text}"`);
  }
  const ms = Number(m[1]) * (DURATION_MS[m[2] as string] as number);
  if (!Number.isFinite(ms)) throw new UnitError(`${what} is out of range: "${text}"`);
  return ms;
}

const RATE = /^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)$/i;
const RATE_BPS: Record<string, number> = { bit: 1, kbit: 1e3, mbit: 1e6, gbit: 1e9 };

/** `100kbit`, `1mbit`, `10mbit`, `1gbit` → bits per second (must be positive). */
export function parseRate(text: string, what = 'rate'): number {
  const m = RATE.exec(text.trim());
  if (m === null) {
    throw new UnitError(`${what} must be a rate such as 100kbit, 10mbit or 1gbit, not "${text}"`);
  }
  const bps = Number(m[1]) * (RATE_BPS[(m[2] as string).toLowerCase()] as number);
  if (!(bps > 0) || !Number.isFinite(bps)) {
    throw new UnitError(`${what} must be more than 0 bits per second, not "${text}"`);
  }
  return bps;
}

/** The time `bytes` take to leave through an uplink of `bps` bits per second (ms). */
export function transmitMs(bytes: number, bps: number): number {
  return (bytes * 8_000) / bps;
}
