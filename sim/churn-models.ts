/**
 * Churn models: how nodes come and go over a period. Rate churn replaces a share of the nodes
 * every period; session churn gives each node a session length (exponential, or heavy-tailed
 * Pareto) after which it crashes, and a new node joins after a downtime. Both drive a swarm
 * through `crash` and `join`, so they know nothing of what the scenario measures meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from './random.ts';
import type { SimPeer, SimSwarm } from './swarm-api.ts';

export type SessionModel =
  | { kind: 'exponential'; meanMs: number; downtimeMs: number }
  | { kind: 'pareto'; shape: number; scaleMs: number; downtimeMs: number };

export interface RateModel {
  kind: 'rate';
  /** Share of the live nodes replaced each period. */
  fraction: number;
  perMs: number;
}

export interface ChurnDriver {
  swarm: SimSwarm;
  rng: Rng;
  /** Crashes these nodes (the caller also records their communities as orphaned). */
  crash(victims: SimPeer[]): Promise<void>;
}

export interface ChurnCount {
  crashed: number;
  joined: number;
}

/** One session length of the model (ms). */
function sessionLength(m: SessionModel, rng: Rng): number {
  return m.kind === 'exponential' ? rng.exponential(m.meanMs) : rng.pareto(m.shape, m.scaleMs);
}

/**
 * Exactly ⌊for / per⌋ steps, one per period from the start: a slow step (a loaded machine)
 * delays the next one, it does not drop it. Each step crashes `fraction` of the live nodes,
 * drawn from those not `spared`, joins as many new ones, then runs `afterStep`.
 */
export async function rateChurn(
  d: ChurnDriver,
  m: RateModel,
  forMs: number,
  spared: () => Set<SimPeer>,
  afterStep: () => Promise<void>,
): Promise<ChurnCount> {
  const start = Date.now();
  const count = { crashed: 0, joined: 0 };
  for (let step = 1; step <= Math.floor(forMs / m.perMs); step++) {
    await sleep(Math.max(0, start + step * m.perMs - Date.now()));
    const alive = d.swarm.alive();
    const spare = spared();
    const victims = d.rng.sample(
      alive.filter((s) => !spare.has(s)),
      Math.round(alive.length * m.fraction),
    );
    await d.crash(victims);
    await d.swarm.join(victims.length, 0);
    count.crashed += victims.length;
    count.joined += victims.length;
    await afterStep();
  }
  return count;
}

/**
 * Session churn for `forMs`: every live node gets a session length; when it ends the node
 * crashes and, after the downtime, a new node takes its place with a session of its own. At
 * least one node stays alive, so the swarm always has an entry point.
 */
export async function sessionChurn(
  d: ChurnDriver,
  m: SessionModel,
  forMs: number,
): Promise<ChurnCount> {
  const end = Date.now() + forMs;
  const count = { crashed: 0, joined: 0 };
  const deaths = new Map<SimPeer, number>(
    d.swarm.alive().map((s) => [s, Date.now() + sessionLength(m, d.rng)]),
  );
  const births: number[] = [];
  while (Date.now() < end) {
    const next = Math.min(end, ...deaths.values(), ...births);
    await sleep(Math.max(0, next - Date.now()));
    const now = Date.now();
    const due = [...deaths].filter(([s, t]) => t <= now && s.alive).map(([s]) => s);
    const victims = due.slice(0, Math.max(0, d.swarm.alive().length - 1));
    for (const v of due) deaths.delete(v);
    if (victims.length > 0) {
      await d.crash(victims);
      count.crashed += victims.length;
      for (let i = 0; i < victims.length; i++) births.push(now + m.downtimeMs);
    }
    const born = births.filter((t) => t <= Date.now()).length;
    births.splice(0, births.length, ...births.filter((t) => t > Date.now()));
    if (born > 0) {
      for (const s of await d.swarm.join(born, 0))
        deaths.set(s, Date.now() + sessionLength(m, d.rng));
      count.joined += born;
    }
  }
  return count;
}
