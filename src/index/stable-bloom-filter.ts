/**
 * A Stable Bloom Filter (Deng and Rafiei, "Approximately detecting duplicates for streaming data
 * using stable Bloom filters", SIGMOD 2006): duplicate detection over an endless stream in fixed
 * memory. m cells hold counters in [0, Max]; inserting an item first decrements P random cells,
 * then sets the item's K cells to Max; an item is "seen" when its K cells are all non-zero. Old
 * items fade out as their cells are decremented, so the share of zero cells, and with it the
 * false-positive rate, converges to a fixed value (the stable point) however long the stream.
 * The price is false negatives: an item is forgotten once one of its cells reaches 0.
 */
import xxhash from 'xxhash-wasm';

// xxHash64 places items on cells (fast, published, the same on every machine). WebAssembly
// instantiation is asynchronous, hence the await.
const { h64, h64Raw } = await xxhash();

export interface StableBloomOptions {
  /** Number of cells m (one byte each). */
  cells: number;
  /** Max, the value a cell is set to (1–255, default 3). */
  maxValue?: number;
  /** K, cells per item. */
  hashes: number;
  /** P, cells decremented per insertion. */
  decrements: number;
  /** Keys both the cell hashes and the decrement generator (uint32, default 0). */
  seed?: number;
}

const DEFAULT_MAX_VALUE = 3;
const MAX_CELL_VALUE = 255;
const MAX_CELLS = 2 ** 32 - 1; // cell indices are uint32
// Far beyond any useful K (the false-positive rate is flat past ~16, see `withFalsePositiveRate`);
// keeps a + i·b below 2^53.
const MAX_HASHES = 64;
const MAX_SEED = 2 ** 32 - 1;
// `withFalsePositiveRate` looks for the best K in 1..MAX_AUTO_HASHES.
const MAX_AUTO_HASHES = 16;

/**
 * The false-positive rate at the stable point (Deng and Rafiei 2006, §3): a cell is 0 with
 * probability p0 = (1 / (1 + 1 / (P·(1/K − 1/m))))^Max, and a fresh item is a false positive
 * when its K cells are all non-zero, FPS = (1 − p0)^K.
 */
export function stableFalsePositiveRate(
  cells: number,
  maxValue: number,
  hashes: number,
  decrements: number,
): number {
  checkParameters(cells, maxValue, hashes, decrements);
  return fps(cells, maxValue, hashes, decrements);
}

/**
 * The smallest P ≥ 1 whose stable false-positive rate is at most `targetFpRate`. Throws a
 * RangeError when no P ≤ cells reaches it.
 */
export function decrementsFor(
  cells: number,
  maxValue: number,
  hashes: number,
  targetFpRate: number,
): number {
  checkParameters(cells, maxValue, hashes, 1);
  checkRate(targetFpRate);
  const p = minDecrements(cells, maxValue, hashes, targetFpRate);
  if (p > cells) {
    throw new RangeError(
      `fpRate: ${targetFpRate} is out of reach with ${cells} cells, Max ${maxValue} and ${hashes} hashes`,
    );
  }
  return p;
}

export class StableBloomFilter {
  readonly cells: number;
  readonly maxValue: number;
  readonly hashes: number;
  readonly decrements: number;
  readonly seed: number;
  readonly #counters: Uint8Array;
  readonly #rng: Uint32Array;
  readonly #hashSeed: bigint;
  readonly #stepRange: number;
  readonly #rejectFrom: number;
  // Scratch for one item's cell indices: has() and add() are synchronous, so calls never interleave.
  readonly #slots: Uint32Array;

  constructor(opts: StableBloomOptions) {
    if (typeof opts !== 'object' || opts === null) {
      throw new RangeError('options: must be an object');
    }
    const { cells, maxValue = DEFAULT_MAX_VALUE, hashes, decrements, seed = 0 } = opts;
    checkParameters(cells, maxValue, hashes, decrements);
    checkInt('seed', seed, 0, MAX_SEED);
    this.cells = cells;
    this.maxValue = maxValue;
    this.hashes = hashes;
    this.decrements = decrements;
    this.seed = seed;
    this.#counters = new Uint8Array(cells);
    this.#rng = seedRng(seed);
    this.#hashSeed = BigInt(seed);
    this.#stepRange = Math.max(1, cells - 1);
    // Draws at or above the last multiple of m below 2^32 are rejected, so cells are uniform.
    this.#rejectFrom = 2 ** 32 - (2 ** 32 % cells);
    this.#slots = new Uint32Array(hashes);
  }

  /**
   * A filter of `cells` cells whose stable false-positive rate is at most `fpRate`, with the
   * fewest decrements P that reach it. Without `hashes`, K is chosen as follows. For a given
   * rate, few hashes need many decrements (K = 1 at 1% needs P ≈ 100·Max), while many hashes
   * make an item forgotten as soon as the first of its K cells runs out. What deduplication
   * needs is that recent items are remembered, so we take the K in 1..16 that maximises an
   * item's half-life: the number of later insertions after which it is forgotten with
   * probability 1/2. Over d insertions each of its cells receives about Poisson(d·P/m)
   * decrements, so the half-life is λ·m/P with λ solving P(Poisson(λ) < Max)^K = 1/2. Re-sets
   * by other items only lengthen it and hardly move the optimum: for m = 10 000, Max 1, 3 and 7,
   * 1% and 0.1%, an exact Markov-chain model of a cell picks the same K or one within 1% of its
   * half-life. For m = 10 000, Max = 3 this gives K = 4, P = 30 at 1% and K = 7, P = 42 at 0.1%:
   * half-lives of about 460 and 260 insertions. Ties go to the smaller K.
   */
  static withFalsePositiveRate(opts: {
    cells: number;
    fpRate: number;
    maxValue?: number;
    hashes?: number;
    seed?: number;
  }): StableBloomFilter {
    if (typeof opts !== 'object' || opts === null) {
      throw new RangeError('options: must be an object');
    }
    const { cells, fpRate, maxValue = DEFAULT_MAX_VALUE, hashes, seed } = opts;
    checkInt('cells', cells, 1, MAX_CELLS);
    checkInt('maxValue', maxValue, 1, MAX_CELL_VALUE);
    checkRate(fpRate);
    if (hashes !== undefined) {
      const decrements = decrementsFor(cells, maxValue, hashes, fpRate);
      return new StableBloomFilter({ cells, maxValue, hashes, decrements, seed });
    }
    let best: { hashes: number; decrements: number; halfLife: number } | undefined;
    for (let k = 1; k <= Math.min(MAX_AUTO_HASHES, cells); k++) {
      const p = minDecrements(cells, maxValue, k, fpRate);
      if (p > cells) continue;
      const halfLife = (forgetLambda(k, maxValue) * cells) / p;
      if (best === undefined || halfLife > best.halfLife) {
        best = { hashes: k, decrements: p, halfLife };
      }
    }
    if (best === undefined) {
      throw new RangeError(
        `fpRate: ${fpRate} is out of reach with ${cells} cells and Max ${maxValue}`,
      );
    }
    return new StableBloomFilter({
      cells,
      maxValue,
      hashes: best.hashes,
      decrements: best.decrements,
      seed,
    });
  }

  /** Whether the item is (probably) in the recent past of the stream. Changes nothing. */
  has(item: string | Uint8Array): boolean {
    const slots = this.#place(item);
    const counters = this.#counters;
    for (let i = 0; i < slots.length; i++) {
      if (counters[slots[i] as number] === 0) return false;
    }
    return true;
  }

  /**
   * Tests and inserts: returns whether the item was (probably) already there, judged before the
   * insertion, then decrements P random cells and sets the item's K cells to Max. A repeat costs
   * P decrements like a new item, so duplicates age the filter too.
   */
  add(item: string | Uint8Array): boolean {
    const seen = this.has(item);
    const counters = this.#counters;
    for (let d = 0; d < this.decrements; d++) {
      const c = this.#randomCell();
      if ((counters[c] as number) > 0) counters[c] = (counters[c] as number) - 1;
    }
    // The decrements come first (the paper's order), so an item never erodes its own cells.
    const slots = this.#slots; // still this item's: #randomCell does not touch it
    for (let i = 0; i < slots.length; i++) counters[slots[i] as number] = this.maxValue;
    return seen;
  }

  /** The false-positive rate at the stable point for this filter's parameters. */
  get stableFalsePositiveRate(): number {
    return fps(this.cells, this.maxValue, this.hashes, this.decrements);
  }

  /** Memory of the cells, fixed at construction (the rest is a few dozen bytes). */
  get sizeBytes(): number {
    return this.#counters.byteLength;
  }

  /**
   * The item's K cell indices, into #slots. Kirsch–Mitzenmacher double hashing: index i is
   * (a + i·b) mod m, with a and b the two 32-bit halves of one xxHash64, so one hash (and two
   * BigInt operations) per item whatever K. b is drawn from [1, m − 1], never 0 mod m, so the K
   * indices do not collapse onto one cell.
   */
  #place(item: string | Uint8Array): Uint32Array {
    let h: bigint;
    if (typeof item === 'string') h = h64(item, this.#hashSeed);
    else if (item instanceof Uint8Array) h = h64Raw(item, this.#hashSeed);
    else throw new TypeError('item: must be a string or a Uint8Array');
    const m = this.cells;
    const step = (Number(h >> 32n) % this.#stepRange) + 1;
    let index = Number(BigInt.asUintN(32, h)) % m;
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i++) {
      slots[i] = index;
      index += step;
      if (index >= m) index -= m;
    }
    return slots;
  }

  /** A uniformly random cell index. */
  #randomCell(): number {
    for (;;) {
      const v = nextUint32(this.#rng);
      if (v < this.#rejectFrom) return v % this.cells;
    }
  }
}

function fps(m: number, max: number, k: number, p: number): number {
  const p0 = (1 / (1 + 1 / (p * (1 / k - 1 / m)))) ** max;
  return (1 - p0) ** k;
}

/**
 * The smallest P with fps ≤ target, possibly above m; Infinity when none. Solving
 * (1 − p0)^K ≤ t for P: p0 ≥ 1 − t^(1/K) ⇔ y ≥ q with y = Pc / (Pc + 1), c = 1/K − 1/m and
 * q = (1 − t^(1/K))^(1/Max) ⇔ P ≥ q / (c·(1 − q)).
 */
function minDecrements(m: number, max: number, k: number, target: number): number {
  const c = 1 / k - 1 / m;
  if (c <= 0) return Number.POSITIVE_INFINITY; // K = m: every cell belongs to the last item
  const q = (1 - target ** (1 / k)) ** (1 / max);
  let p = Math.max(1, Math.ceil(q / (c * (1 - q))));
  if (!(p <= Number.MAX_SAFE_INTEGER)) return Number.POSITIVE_INFINITY;
  // Rounding can put the closed form one off; step to the exact smallest P (fps falls with P).
  while (p > 1 && fps(m, max, k, p - 1) <= target) p--;
  while (fps(m, max, k, p) > target) p++;
  return p;
}

/** λ solving P(Poisson(λ) < max)^k = 1/2: the expected decrements per cell at an item's half-life. */
function forgetLambda(k: number, max: number): number {
  const goal = 2 ** (-1 / k);
  let lo = 0;
  let hi = max;
  while (poissonBelow(hi, max) > goal) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (poissonBelow(mid, max) > goal) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** P(Poisson(λ) < n). */
function poissonBelow(lambda: number, n: number): number {
  let term = 1;
  let sum = 0;
  for (let j = 0; j < n; j++) {
    sum += term;
    term *= lambda / (j + 1);
  }
  return Math.exp(-lambda) * sum;
}

// The decrement generator is xoshiro128** (Blackman and Vigna): 32-bit arithmetic only, period
// 2^128 − 1, four words of state. Hand-written because it runs P times per insertion, and because
// a seeded generator makes a filter's evolution, and so the tests, reproducible (Math.random is
// not).
function nextUint32(s: Uint32Array): number {
  const s0 = s[0] as number;
  const s1 = s[1] as number;
  const s2 = s[2] as number;
  const s3 = s[3] as number;
  const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
  const t = s1 << 9;
  const n2 = s2 ^ s0;
  const n3 = s3 ^ s1;
  s[0] = s0 ^ n3;
  s[1] = s1 ^ n2;
  s[2] = n2 ^ t;
  s[3] = rotl(n3, 11);
  return result;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * The initial state: four outputs of splitmix32 (a Weyl sequence through a bijective mixer).
 * The four inputs differ, so the outputs differ and the state is never all zero.
 */
function seedRng(seed: number): Uint32Array {
  const s = new Uint32Array(4);
  let x = seed;
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    s[i] = z ^ (z >>> 15);
  }
  return s;
}

function checkParameters(cells: number, maxValue: number, hashes: number, decrements: number) {
  checkInt('cells', cells, 1, MAX_CELLS);
  checkInt('maxValue', maxValue, 1, MAX_CELL_VALUE);
  checkInt(
    'hashes',
    hashes,
    1,
    Math.min(MAX_HASHES, cells),
    cells < MAX_HASHES ? 'at most cells' : '',
  );
  checkInt('decrements', decrements, 1, cells, 'at most cells');
}

function checkRate(rate: number): void {
  if (typeof rate !== 'number' || !(rate > 0 && rate < 1)) {
    throw new RangeError(`fpRate: must be a number in (0, 1), got ${String(rate)}`);
  }
}

function checkInt(field: string, v: unknown, min: number, max: number, note = ''): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    const why = note === '' ? '' : ` (${note})`;
    throw new RangeError(
      `${field}: must be an integer in [${min}, ${max}]${why}, got ${String(v)}`,
    );
  }
}
