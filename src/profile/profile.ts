/**
 * A profile: attributes with weights (a weighted vector, thesis §4.1), optionally enriched with
 * symmetric relations between attributes (an adjacency matrix). Immutable once built; build one
 * with `parseProfile` (validating) or `Profile.fromTrusted` (inputs already known to be valid).
 */

/** One relation of an adjacency-matrix profile: both ends and the correlation value. */
export type Relation = readonly [a: string, b: string, rel: number];

/** The profile JSON of the public contract. */
export interface ProfileJSON {
  weights: Record<string, number>;
  relations?: [string, string, number][];
}

const EMPTY: ReadonlyMap<string, number> = new Map();

export class Profile {
  /** Attribute → weight, in the order the profile listed them. */
  readonly weights: ReadonlyMap<string, number>;
  /** The relations as given (each unordered pair once); empty for a weighted vector. */
  readonly relations: readonly Relation[];
  /** True when the profile is an adjacency matrix (it has a `relations` list, even empty). */
  readonly isMatrix: boolean;
  readonly #adjacency: Map<string, Map<string, number>>;

  private constructor(weights: Map<string, number>, relations: Relation[] | null) {
    this.weights = weights;
    this.isMatrix = relations !== null;
    this.relations = relations ?? [];
    this.#adjacency = new Map();
    for (const [a, b, rel] of this.relations) {
      link(this.#adjacency, a, b, rel);
      link(this.#adjacency, b, a, rel);
    }
    Object.freeze(this.relations);
    Object.freeze(this);
  }

  /**
   * Builds a profile from values the caller has already validated (weights finite and > 0,
   * relation ends present, no duplicate pairs). Use `parseProfile` for anything from outside.
   */
  static fromTrusted(weights: Map<string, number>, relations: Relation[] | null = null): Profile {
    return new Profile(weights, relations);
  }

  /** Number of attributes, |P| in the thesis's formulas. */
  get size(): number {
    return this.weights.size;
  }

  attributes(): IterableIterator<string> {
    return this.weights.keys();
  }

  has(attribute: string): boolean {
    return this.weights.has(attribute);
  }

  /** Weight of an attribute, 0 when the profile does not hold it. */
  weight(attribute: string): number {
    return this.weights.get(attribute) ?? 0;
  }

  /** Rel(a, b); 0 when there is no relation (or the profile is a plain vector). */
  relation(a: string, b: string): number {
    return this.#adjacency.get(a)?.get(b) ?? 0;
  }

  /** The attributes related to `a`, with their values. */
  neighbours(a: string): ReadonlyMap<string, number> {
    return this.#adjacency.get(a) ?? EMPTY;
  }

  toJSON(): ProfileJSON {
    const out: ProfileJSON = { weights: Object.fromEntries(this.weights) };
    if (this.isMatrix) out.relations = this.relations.map(([a, b, r]) => [a, b, r]);
    return out;
  }
}

function link(adj: Map<string, Map<string, number>>, a: string, b: string, rel: number): void {
  let row = adj.get(a);
  if (row === undefined) {
    row = new Map();
    adj.set(a, row);
  }
  row.set(b, rel);
}
