/**
 * World regions: where nodes live and how far apart the regions are. A region table names its
 * regions, their weights (share of the nodes) and the round-trip time between every pair, within
 * a region too. The built-in table (world.json) comes from published measurements, its sources
 * written in the file; a user's own file in the same format is validated field by field.
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { Rng } from '../random.ts';
import world from './world.json' with { type: 'json' };

/** A region file that does not describe a usable table; the message names the field. */
export class RegionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegionsError';
  }
}

/** A table of a few dozen regions is a few KiB; anything near this is not a region table. */
const MAX_FILE_BYTES = 1 << 20;
/** Longer than any round trip on Earth, satellite hops included: a typo, not a measurement. */
const MAX_RTT_MS = 10_000;

const regionSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be lower-case letters, digits and dashes (≤ 64)'),
  name: z.string().max(200).optional(),
  weight: z.number().positive('must be a positive number').finite(),
  cities: z.array(z.string().max(200)).max(1000).optional(),
});

const fileSchema = z.strictObject({
  source: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
  regions: z.array(regionSchema).min(1, 'must list at least one region').max(1000),
  rtt_ms: z.record(
    z.string(),
    z.record(
      z.string(),
      z
        .number()
        .min(0, 'must be a round-trip time in ms, 0 or more')
        .max(MAX_RTT_MS, `must be at most ${MAX_RTT_MS} ms`),
    ),
  ),
});

export interface Region {
  id: string;
  name: string;
  weight: number;
}

/** A validated region table: regions by index, RTTs as a dense symmetric matrix. */
export class RegionTable {
  readonly regions: readonly Region[];
  readonly #index: Map<string, number>;
  readonly #rtt: Float64Array;
  /** Cumulative weights, for picking a region by weight. */
  readonly #cumulative: number[];

  constructor(regions: Region[], rtt: Float64Array) {
    this.regions = regions;
    this.#index = new Map(regions.map((r, i) => [r.id, i]));
    this.#rtt = rtt;
    let sum = 0;
    this.#cumulative = regions.map((r) => (sum += r.weight));
  }

  /** What the table is made of (to rebuild it in another thread: `new RegionTable(…)`). */
  data(): { regions: Region[]; rtt: Float64Array } {
    return { regions: [...this.regions], rtt: this.#rtt.slice() };
  }

  indexOf(id: string): number {
    const i = this.#index.get(id);
    if (i === undefined) throw new RegionsError(`unknown region "${id}"`);
    return i;
  }

  /** Round-trip time between regions `a` and `b` (indexes), in ms. */
  rttMs(a: number, b: number): number {
    return this.#rtt[a * this.regions.length + b] as number;
  }

  /**
   * The region of the node named `name`, by weight. Drawn from the seed and the name alone, so
   * a node gets the same region whatever order nodes join in.
   */
  pick(seed: number, name: string): number {
    const total = this.#cumulative[this.#cumulative.length - 1] as number;
    const u = new Rng(seed, `network/region/${name}`).next() * total;
    const i = this.#cumulative.findIndex((c) => u < c);
    return i === -1 ? this.regions.length - 1 : i;
  }
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path)
    out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out === '' ? '(the file)' : out;
}

/** Checks a parsed JSON value as a region table; `where` names it in errors. */
export function parseRegions(value: unknown, where: string): RegionTable {
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RegionsError(`${where}: ${fieldPath(issue?.path ?? [])}: ${issue?.message}`);
  }
  const { regions, rtt_ms } = parsed.data;
  const n = regions.length;
  const index = new Map<string, number>();
  for (const [i, r] of regions.entries()) {
    if (index.has(r.id)) throw new RegionsError(`${where}: regions[${i}].id: "${r.id}" repeats`);
    index.set(r.id, i);
  }
  for (const [a, row] of Object.entries(rtt_ms)) {
    if (!index.has(a)) throw new RegionsError(`${where}: rtt_ms.${a}: unknown region`);
    for (const b of Object.keys(row)) {
      if (!index.has(b)) throw new RegionsError(`${where}: rtt_ms.${a}.${b}: unknown region`);
    }
  }
  // A round trip is the same both ways: one direction suffices, two must agree.
  const rtt = new Float64Array(n * n);
  for (const [i, ra] of regions.entries()) {
    for (const [j, rb] of regions.entries()) {
      if (j < i) continue;
      const ab = rtt_ms[ra.id]?.[rb.id];
      const ba = rtt_ms[rb.id]?.[ra.id];
      if (ab === undefined && ba === undefined) {
        throw new RegionsError(
          `${where}: rtt_ms.${ra.id}.${rb.id}: missing (every pair of regions needs a round-trip time, a region with itself too)`,
        );
      }
      if (ab !== undefined && ba !== undefined && ab !== ba) {
        throw new RegionsError(
          `${where}: rtt_ms.${rb.id}.${ra.id}: ${ba} differs from rtt_ms.${ra.id}.${rb.id} = ${ab} (a round trip is the same both ways)`,
        );
      }
      const v = (ab ?? ba) as number;
      rtt[i * n + j] = v;
      rtt[j * n + i] = v;
    }
  }
  return new RegionTable(
    regions.map((r) => ({ id: r.id, name: r.name ?? r.id, weight: r.weight })),
    rtt,
  );
}

/** The built-in table (world.json). */
export function worldRegions(): RegionTable {
  return parseRegions(world, 'world.json');
}

/** `world`, or a JSON file in the same format. */
export async function loadRegions(spec: string): Promise<RegionTable> {
  if (spec === 'world') return worldRegions();
  let size: number;
  try {
    size = (await stat(spec)).size;
  } catch (err) {
    throw new RegionsError(`${spec}: cannot read (${(err as Error).message})`);
  }
  checkSize(spec, size);
  let text: string;
  try {
    text = await readFile(spec, 'utf8');
  } catch (err) {
    throw new RegionsError(`${spec}: cannot read (${(err as Error).message})`);
  }
  return fromText(spec, text);
}

/** As loadRegions, read at once: a scenario's `network` line is checked while it is parsed. */
export function loadRegionsSync(spec: string): RegionTable {
  if (spec === 'world') return worldRegions();
  let text: string;
  try {
    checkSize(spec, statSync(spec).size);
    text = readFileSync(spec, 'utf8');
  } catch (err) {
    if (err instanceof RegionsError) throw err;
    throw new RegionsError(`${spec}: cannot read (${(err as Error).message})`);
  }
  return fromText(spec, text);
}

function checkSize(spec: string, size: number): void {
  if (size > MAX_FILE_BYTES) {
    throw new RegionsError(`${spec}: ${size} bytes, more than a region table's ${MAX_FILE_BYTES}`);
  }
}

function fromText(spec: string, text: string): RegionTable {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new RegionsError(`${spec}: not JSON (${(err as Error).message})`);
  }
  return parseRegions(value, spec);
}
