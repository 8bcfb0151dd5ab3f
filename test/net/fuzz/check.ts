/** Checking what a decoder did with hostile input: its value, or its own error with a message. */
import { expect } from 'vitest';

/**
 * Cases per property: 1,000 in `npm test`, 10,000 in `npm run test:slow` (its config sets
 * CIDX_FUZZ_RUNS), which runs these files again. A full campaign takes over a minute of the
 * quick suite's time; a thousand cases still reach every outcome the tests count.
 */
export const RUNS = fuzzRuns(process.env.CIDX_FUZZ_RUNS);

function fuzzRuns(text: string | undefined): number {
  if (text === undefined || text === '') return 1_000;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 100) {
    throw new Error(`CIDX_FUZZ_RUNS must be a whole number of at least 100, not "${text}"`);
  }
  return n;
}

/** A count for a test's title: 10000 → "10,000". */
export const cases = (n: number): string => n.toLocaleString('en-US');

export type ErrorClass = abstract new (...args: never[]) => Error;

function describeThrown(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : `non-Error ${String(err)}`;
}

/** The decoder's own error, with a message; anything else fails the property. */
export function checkThrown(err: unknown, cls: ErrorClass): Error {
  if (!(err instanceof cls)) {
    throw new Error(`threw ${describeThrown(err)} instead of a ${cls.name}`, { cause: err });
  }
  expect(typeof err.message).toBe('string');
  expect(err.message.trim().length).toBeGreaterThan(0);
  return err;
}

/** Runs a decoder: its value, or null when it threw its own error class. */
export function attempt<T>(fn: () => T, cls: ErrorClass): T | null {
  try {
    return fn();
  } catch (err) {
    checkThrown(err, cls);
    return null;
  }
}

export async function attemptAsync<T>(fn: () => Promise<T>, cls: ErrorClass): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    checkThrown(err, cls);
    return null;
  }
}

/**
 * Counts accepted and refused inputs, so that a test can check that its generator reaches both
 * (a generator whose every input is refused at the first byte would prove little).
 */
export function tally() {
  const t = { accepted: 0, refused: 0 };
  return {
    t,
    note(accepted: boolean) {
      if (accepted) t.accepted++;
      else t.refused++;
    },
    /** Both outcomes at least `share` of the cases. */
    expectBoth(share = 0.05) {
      const total = t.accepted + t.refused;
      expect(t.accepted, JSON.stringify(t)).toBeGreaterThanOrEqual(total * share);
      expect(t.refused, JSON.stringify(t)).toBeGreaterThanOrEqual(total * share);
    },
  };
}
