import { createHash } from 'node:crypto';

/**
 * A deterministic random stream: SHAKE256(label ‖ 0 ‖ seed ‖ counter) in 4 KiB blocks. Every
 * machine and run derives the same LSH functions from the same seed string, with no state but
 * the seed (Math.random would give every peer different functions). A hash-based stream is used
 * instead of a PRNG package because the output must be fixed by a published standard, not by
 * a library version.
 */
export class SeededStream {
  readonly #prefix: Buffer;
  #block = Buffer.alloc(0);
  #pos = 0;
  #counter = 0;

  constructor(label: string, seed: string) {
    this.#prefix = Buffer.concat([
      Buffer.from(label, 'utf8'),
      Buffer.of(0),
      Buffer.from(seed, 'utf8'),
    ]);
  }

  /** The next uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    if (this.#pos + 4 > this.#block.length) this.#refill();
    const v = this.#block.readUInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }

  /** A uniform integer in [0, bound), bound ≤ 2^32, without modulo bias (rejection sampling). */
  below(bound: number): number {
    if (!Number.isInteger(bound) || bound < 1 || bound > 2 ** 32) {
      throw new RangeError(`bound must be an integer in [1, 2^32], got ${bound}`);
    }
    const limit = 2 ** 32 - (2 ** 32 % bound);
    for (;;) {
      const v = this.nextUint32();
      if (v < limit) return v % bound;
    }
  }

  /** Fills an array with uniform 32-bit words. */
  fill(out: Uint32Array): Uint32Array {
    for (let i = 0; i < out.length; i++) out[i] = this.nextUint32();
    return out;
  }

  #refill(): void {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(BigInt(this.#counter++));
    this.#block = createHash('shake256', { outputLength: 4096 })
      .update(this.#prefix)
      .update(counter)
      .digest();
    this.#pos = 0;
  }
}
