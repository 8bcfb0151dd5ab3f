/**
 * What the swarm should hold, known outside it: every community a scenario created, its owner
 * and profile, whether it was dissolved or orphaned (its owner gone), and from that the exact
 * answer of any search. A community whose owner left stays in the exact answer until its
 * records expire.
 */
import type { Profile } from '../src/profile/profile.ts';
import { GroundTruth, type Ranked } from './ground-truth.ts';
import type { SimPeer } from './swarm-api.ts';

export interface Community {
  id: string;
  dataset: string;
  owner: SimPeer;
  profile: Profile;
  dissolved: boolean;
  /** When its owner went away: it lives on in the index until its records expire. */
  orphanedAt?: number;
}

export class World {
  readonly #communities = new Map<string, Community>();
  readonly #byDataset = new Map<string, string[]>();
  readonly #truth = new GroundTruth();
  /** The record lifetime the swarm runs with (ms). */
  recordTtlMs: number;

  constructor(recordTtlMs: number) {
    this.recordTtlMs = recordTtlMs;
  }

  get(id: string): Community | undefined {
    return this.#communities.get(id);
  }

  all(): Community[] {
    return [...this.#communities.values()];
  }

  /** Ids of the communities created from a data set, in creation order. */
  ids(dataset: string): string[] {
    return this.#byDataset.get(dataset) ?? [];
  }

  created(dataset: string, id: string, owner: SimPeer, profile: Profile): void {
    this.#communities.set(id, { id, dataset, owner, profile, dissolved: false });
    const list = this.#byDataset.get(dataset) ?? [];
    list.push(id);
    this.#byDataset.set(dataset, list);
    this.#truth.set(id, profile);
  }

  updated(id: string, profile: Profile): void {
    const c = this.#communities.get(id);
    if (c === undefined) return;
    c.profile = profile;
    this.#truth.set(id, profile);
  }

  dissolved(id: string): void {
    const c = this.#communities.get(id);
    if (c === undefined) return;
    c.dissolved = true;
    this.#truth.delete(id);
  }

  /**
   * The owners leave through `stop`: their communities live on until their records expire.
   * Orphaned as it starts (searches meanwhile do not count on them) and again once it is done:
   * an owner republishes until it stops, so the lifetime counts from then.
   */
  async orphan(peers: SimPeer[], stop: () => Promise<unknown>): Promise<void> {
    const gone = new Set(peers);
    const mark = (again: boolean) => {
      for (const c of this.#communities.values())
        if (gone.has(c.owner) && (again || c.orphanedAt === undefined)) c.orphanedAt = Date.now();
    };
    mark(false);
    await stop();
    mark(true);
  }

  /** Not dissolved and not expired: part of the exact answer. */
  isLive(id: string): boolean {
    const c = this.#communities.get(id);
    return c !== undefined && !c.dissolved && this.#truth.has(id);
  }

  /** Live and with a live owner: must be findable. */
  owned(): Community[] {
    return this.all().filter((c) => !c.dissolved && c.orphanedAt === undefined);
  }

  /** Dissolved, or orphaned longer than the record lifetime plus `graceMs`: must be gone. */
  gone(graceMs: number): Community[] {
    const now = Date.now();
    return this.all().filter(
      (c) =>
        c.dissolved ||
        (c.orphanedAt !== undefined && now - c.orphanedAt > this.recordTtlMs + graceMs),
    );
  }

  /** The exact answer over the communities alive now (orphans count until their records expire). */
  exact(profile: Profile): Ranked[] {
    const now = Date.now();
    for (const c of this.#communities.values())
      if (c.orphanedAt !== undefined && now - c.orphanedAt > this.recordTtlMs)
        this.#truth.delete(c.id);
    return this.#truth.rank(profile);
  }

  /**
   * An empty answer is only a failure when a community with a live owner matches: once its
   * owner is gone, a community may vanish as soon as its last holders do, before its records
   * expire.
   */
  answerable(exact: Ranked[], returned: number): Ranked[] {
    if (returned > 0) return exact;
    return exact.some((r) => this.#communities.get(r.id)?.orphanedAt === undefined) ? exact : [];
  }
}
