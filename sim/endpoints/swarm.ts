/**
 * A swarm that runs elsewhere (`cidx sim --endpoints <file>`): the scenario's workload —
 * create, search, update, dissolve, republish, check — is sent to its nodes' JSON-RPC ports;
 * nothing here starts, stops or signals a node (statements that would are refused before the
 * run, sim/modes.ts). Traffic and counters are the nodes' `stats` since the run connected.
 */
import pLimit from 'p-limit';
import { CidxClient, CidxHttpError, type NodeInfoResult } from '../../src/client/index.ts';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import { ScenarioError, type Statement } from '../language.ts';
import { RpcPeer } from '../remote/peer.ts';
import { gather, sumCounters, sumTraffic } from '../remote/tally.ts';
import type { SimPeer, SimSwarm, SwarmCounters } from '../swarm-api.ts';
import { type Endpoint, EndpointsFileError } from './file.ts';

type SwarmParamsJSON = NodeInfoResult['swarm'];

/** Bound on each node's first answer. */
const CONNECT_MS = 15_000;

export class EndpointsSwarm implements SimSwarm {
  readonly #peers: RpcPeer[];
  #baseTraffic: Record<string, StreamTraffic> = {};
  #baseCounters: SwarmCounters = sumCounters([]);

  private constructor(peers: RpcPeer[]) {
    this.#peers = peers;
  }

  /**
   * Asks every node for its identity and swarm; throws EndpointsFileError naming the line of
   * the first that does not answer (unreachable, 401 for a wrong or missing token, …) or runs
   * another swarm than the first. Nothing is sent to any node but `node.info` and `stats`.
   */
  static async connect(
    file: string,
    endpoints: readonly Endpoint[],
  ): Promise<{ swarm: EndpointsSwarm; params: SwarmParamsJSON }> {
    const limit = pLimit(16);
    const clients = endpoints.map(
      (e) =>
        new CidxClient(e.url, { ...(e.token ? { token: e.token } : {}), timeoutMs: CONNECT_MS }),
    );
    const infos = await Promise.all(
      clients.map((c, i) =>
        limit(async () => {
          try {
            return await c.nodeInfo();
          } catch (err) {
            const e = endpoints[i] as Endpoint;
            const hint =
              err instanceof CidxHttpError && err.status === 401 ? ' (wrong or missing token)' : '';
            throw new EndpointsFileError(
              file,
              e.line,
              `${e.url}: ${(err as Error).message}${hint}`,
            );
          }
        }),
      ),
    );
    const [first] = infos;
    if (first === undefined) throw new EndpointsFileError(file, undefined, 'no endpoints');
    const want = JSON.stringify(first.swarm);
    infos.forEach((info, i) => {
      if (JSON.stringify(info.swarm) !== want)
        throw new EndpointsFileError(
          file,
          endpoints[i]?.line,
          `runs another swarm (${JSON.stringify(info.swarm)}) than line ${endpoints[0]?.line} (${want})`,
        );
    });
    // Calls of the run get the client's usual bound: a search on a busy swarm takes a while.
    const peers = endpoints.map(
      (e, i) => new RpcPeer(i, new CidxClient(e.url, e.token ? { token: e.token } : {})),
    );
    const swarm = new EndpointsSwarm(peers);
    // What the nodes counted before the run is not the run's.
    const before = await gather(peers);
    swarm.#baseTraffic = sumTraffic(before);
    swarm.#baseCounters = sumCounters(before);
    return { swarm, params: first.swarm };
  }

  get peers(): readonly SimPeer[] {
    return this.#peers;
  }

  alive(): SimPeer[] {
    return this.#peers.filter((p) => p.alive);
  }

  join(): Promise<SimPeer[]> {
    throw new Error('the nodes of --endpoints run elsewhere: they cannot be started');
  }

  kill(): Promise<void> {
    throw new Error('the nodes of --endpoints run elsewhere: they cannot be crashed');
  }

  leave(): Promise<void> {
    throw new Error('the nodes of --endpoints run elsewhere: they cannot be stopped');
  }

  /** The nodes keep running: the run only stops talking to them. */
  async stop(): Promise<void> {}

  async traffic(): Promise<Record<string, StreamTraffic>> {
    const now = sumTraffic(await gather(this.#peers));
    const out: Record<string, StreamTraffic> = {};
    for (const [proto, t] of Object.entries(now)) {
      const b = this.#baseTraffic[proto] ?? { streams: 0, messages: 0, bytes: 0 };
      out[proto] = {
        streams: t.streams - b.streams,
        messages: t.messages - b.messages,
        bytes: t.bytes - b.bytes,
      };
    }
    return out;
  }

  async counters(): Promise<SwarmCounters> {
    const now = sumCounters(await gather(this.#peers));
    const b = this.#baseCounters;
    return {
      notifications: now.notifications - b.notifications,
      lookups: {
        count: now.lookups.count - b.lookups.count,
        messages: now.lookups.messages - b.lookups.messages,
        hops: now.lookups.hops - b.lookups.hops,
        ms: now.lookups.ms - b.lookups.ms,
      },
      searches: {
        count: now.searches.count - b.searches.count,
        requests: now.searches.requests - b.searches.requests,
        peers: now.searches.peers - b.searches.peers,
        repeatQueries: now.searches.repeatQueries - b.searches.repeatQueries,
        keysDropped: now.searches.keysDropped - b.searches.keysDropped,
        keysRouted: now.searches.keysRouted - b.searches.keysRouted,
      },
    };
  }

  aliveSeries(): { t: number; alive: number }[] {
    return [{ t: 0, alive: this.#peers.length }];
  }
}

/**
 * The scenario's `index` and `params` lines describe the swarm: against nodes that already run,
 * what they give for the swarm's parameters (index, k, l, s, replicas) must be what the nodes
 * run with. Throws ScenarioError at the first line that differs.
 */
export function checkScenarioSwarm(
  statements: readonly Statement[],
  params: SwarmParamsJSON,
  file: string,
): void {
  const running: Record<string, unknown> = { ...params };
  const index: Record<string, unknown> = { ...params.index };
  const differs = (st: Statement, what: string, given: unknown, actual: unknown): never => {
    throw new ScenarioError(
      file,
      st.line,
      `${what}=${String(given)}, but the nodes of --endpoints run with ${what}=${String(actual)}`,
    );
  };
  for (const st of statements) {
    if (st.kind === 'index') {
      for (const [k, v] of Object.entries(st.index as Record<string, unknown>))
        if (index[k] !== v) differs(st, k === 'mode' ? 'index' : k, v, index[k]);
    }
    if (st.kind === 'params') {
      for (const [k, v] of Object.entries(st.values as Record<string, unknown>))
        if (['k', 'l', 's', 'replicas'].includes(k) && running[k] !== v)
          differs(st, k, v, running[k]);
    }
  }
}
