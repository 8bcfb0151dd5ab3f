/**
 * The partitions of a run and the searches made while each lasted, by the side the searching
 * node was on: what `partition.<n>.…` metrics report. The smaller side (by live nodes when the
 * cut came) is the minority; of equal sides, the one the command chose.
 */

/** Searches made from one side while a partition lasted. */
interface SideSearches {
  count: number;
  /** Returned at least one community. */
  resolved: number;
  /** Threw (no peer answered). */
  failed: number;
}

export interface Partition {
  /** 1 for the run's first partition, and so on. */
  n: number;
  /** ms since the run started. */
  began: number;
  ended?: number;
  /** Node indexes on the side the command chose. */
  readonly chosen: ReadonlySet<number>;
  /** Node indexes alive when the cut came: a node joining later joins the majority side. */
  readonly present: ReadonlySet<number>;
  chosenIsMinority: boolean;
  nodes: { minority: number; majority: number };
  searches: { minority: SideSearches; majority: SideSearches };
}

const side = (): SideSearches => ({ count: 0, resolved: 0, failed: 0 });

export class PartitionBook {
  readonly all: Partition[] = [];

  /** A partition began at `t`: `chosen` cut off from the rest of the `alive` nodes. */
  begin(t: number, chosen: readonly number[], alive: readonly number[]): Partition {
    const c = new Set(chosen);
    const rest = alive.filter((i) => !c.has(i)).length;
    const chosenIsMinority = c.size <= rest;
    const p: Partition = {
      n: this.all.length + 1,
      began: t,
      chosen: c,
      present: new Set(alive),
      chosenIsMinority,
      nodes: {
        minority: chosenIsMinority ? c.size : rest,
        majority: chosenIsMinority ? rest : c.size,
      },
      searches: { minority: side(), majority: side() },
    };
    this.all.push(p);
    return p;
  }

  /** Every partition still open ends at `t` (a heal ends them all). */
  endAll(t: number): number {
    const open = this.all.filter((p) => p.ended === undefined);
    for (const p of open) p.ended = t;
    return open.length;
  }

  /**
   * A search from node `asker` ran from `began` to `ended` (ms since the start): it counts for
   * every partition that lasted all that time.
   */
  search(asker: number, began: number, ended: number, outcome: 'resolved' | 'empty' | 'failed') {
    for (const p of this.all) {
      if (began < p.began || (p.ended !== undefined && ended > p.ended)) continue;
      const onChosen = p.chosen.has(asker);
      const joinedLater = !p.present.has(asker);
      const minority = joinedLater ? false : onChosen === p.chosenIsMinority;
      const s = minority ? p.searches.minority : p.searches.majority;
      s.count++;
      if (outcome === 'resolved') s.resolved++;
      if (outcome === 'failed') s.failed++;
    }
  }

  /** `partition.count` and, per partition, its sides' sizes and searches. */
  metrics(): Record<string, number> {
    const m: Record<string, number> = {};
    if (this.all.length === 0) return m;
    m['partition.count'] = this.all.length;
    for (const p of this.all) {
      const at = `partition.${p.n}.`;
      if (p.ended !== undefined) m[`${at}duration_ms`] = p.ended - p.began;
      for (const name of ['minority', 'majority'] as const) {
        const s = p.searches[name];
        m[`${at}nodes_${name}`] = p.nodes[name];
        m[`${at}searches_${name}`] = s.count;
        m[`${at}searches_resolved_${name}`] = s.resolved;
        m[`${at}searches_failed_${name}`] = s.failed;
        if (s.count > 0) m[`${at}resolved_rate_${name}`] = s.resolved / s.count;
      }
    }
    return m;
  }
}
