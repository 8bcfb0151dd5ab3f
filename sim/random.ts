/**
 * The simulator's randomness: one seeded generator per purpose, so a run is repeatable and
 * adding a random draw in one place does not shift every other. (The libp2p nodes' own
 * randomness — keys, nonces, ids — is not seeded; it does not change what is measured.)
 */
import { SeededStream } from '../src/keys/random.ts';

export class Rng {
  readonly #s: SeededStream;

  constructor(seed: number, purpose: string) {
    this.#s = new SeededStream('cidx/sim', `${seed}/${purpose}`);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.#s.nextUint32() / 2 ** 32;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return this.#s.below(n);
  }

  /** k distinct items of `items`, in random order (partial Fisher–Yates). */
  sample<T>(items: readonly T[], k: number): T[] {
    const a = [...items];
    const m = Math.min(k, a.length);
    for (let i = 0; i < m; i++) {
      const j = i + this.below(a.length - i);
      [a[i], a[j]] = [a[j] as T, a[i] as T];
    }
    return a.slice(0, m);
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** Pareto (type I) with shape α and scale x_m: heavy-tailed session lengths. */
  pareto(shape: number, scale: number): number {
    return scale / (1 - this.next()) ** (1 / shape);
  }
}
