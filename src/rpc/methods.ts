/** The JSON-RPC methods of a node (the public contract), each validating its params first. */
import { JSONRPCServer } from 'json-rpc-2.0';
import type { Notification } from '../index/inbox.ts';
import { INDEX_PROTOCOL } from '../net/codec.ts';
import type { CidxNode } from '../node/node.ts';
import type { CommunityResult } from '../node/search.ts';
import type { CommunityMatch, MethodResult, NotificationJSON } from './api.ts';
import { RPC_ERRORS, toRpcError } from './errors.ts';
import type { NodeMetrics } from './metrics.ts';
import type { NodeCounters } from './node-counters.ts';
import { checkParams, type MethodName, profileParam } from './params.ts';

/** Counters of the RPC layer, reported by `stats`. */
export interface RpcCounters {
  calls: Record<string, number>;
  errors: Record<string, number>;
}

export function notificationJson(n: Notification): NotificationJSON {
  return {
    seq: n.seq,
    kind: n.kind,
    community: { id: n.record.id, version: n.record.version, profile: n.record.profile.toJSON() },
    similarity: n.similarity,
    for: n.for,
    receivedAt: new Date(n.receivedAt).toISOString(),
  };
}

function resultJson(r: CommunityResult): CommunityMatch {
  return { id: r.id, similarity: r.similarity, contacts: r.contacts, version: r.version };
}

/** The methods that run a node operation, and the operation's name in the metrics. */
const OPERATIONS: Partial<Record<MethodName, string>> = {
  'community.create': 'create',
  'community.update': 'update',
  'community.dissolve': 'dissolve',
  'community.get': 'get',
  'community.search': 'search',
  'community.join': 'join',
};

/** The `outcome` label of a failed operation, from its JSON-RPC error code. */
function outcomeOf(code: number): string {
  switch (code) {
    case RPC_ERRORS.invalidParams:
      return 'invalid-params';
    case RPC_ERRORS.notOwner:
      return 'not-owner';
    case RPC_ERRORS.unknownCommunity:
      return 'unknown-community';
    case RPC_ERRORS.network:
      return 'network';
    default:
      return 'error';
  }
}

export function createRpcServer(
  node: CidxNode,
  counters: RpcCounters,
  startedAt: number,
  metrics?: NodeMetrics,
  nodeCounters?: NodeCounters,
): JSONRPCServer {
  // Method errors are answered to the caller; the library would also print each one.
  const server = new JSONRPCServer({ errorListener: () => {} });
  const limits = {
    maxAttributes: node.limits.maxAttributes,
    maxRelations: node.limits.maxRelations,
  };
  const add = <M extends MethodName>(
    name: M,
    fn: (params: ReturnType<typeof checkParams<M>>) => Promise<MethodResult<M>> | MethodResult<M>,
  ) => {
    const op = metrics === undefined ? undefined : OPERATIONS[name];
    server.addMethod(name, async (raw) => {
      counters.calls[name] = (counters.calls[name] ?? 0) + 1;
      const start = performance.now();
      try {
        const result = await fn(checkParams(name, raw));
        if (op !== undefined) metrics?.operation(op, 'ok', (performance.now() - start) / 1000);
        return result;
      } catch (err) {
        counters.errors[name] = (counters.errors[name] ?? 0) + 1;
        const rpcErr = toRpcError(err);
        if (op !== undefined)
          metrics?.operation(op, outcomeOf(rpcErr.code), (performance.now() - start) / 1000);
        throw rpcErr;
      }
    });
  };

  add('node.info', () => {
    const info = node.info();
    return {
      peerId: info.peerId,
      addrs: info.addrs,
      reachability: info.reachability,
      dhtMode: info.dhtMode,
      index: info.swarm.index,
      peers: info.peers,
      stored: info.stored,
      swarm: info.swarm,
      owned: info.owned,
      inbox: info.inbox,
    };
  });

  add('node.peers', () => node.peers());

  add('community.create', async (p) => {
    const profile = profileParam(p.profile, limits);
    const r = await node.create(profile, { contacts: p.contacts, notify: p.notify });
    return { id: r.id, version: r.version, similar: r.similar, notified: r.notified, keys: r.keys };
  });

  add('community.update', async (p) => {
    const profile = profileParam(p.profile, limits);
    const r = await node.update(p.id, profile, { contacts: p.contacts, notify: p.notify });
    return { id: r.id, version: r.version, similar: r.similar, notified: r.notified, keys: r.keys };
  });

  add('community.dissolve', (p) => node.dissolve(p.id));

  add('community.get', async (p) => {
    const c = await node.get(p.id);
    return {
      id: c.id,
      version: c.version,
      profile: c.profile.toJSON(),
      contacts: c.contacts,
      owned: c.owned,
    };
  });

  add('community.list', () => ({
    communities: node.ownedIds().map((id) => ({ id, version: node.owned(id)?.version })),
  }));

  add('community.search', async (p) => {
    const profile = profileParam(p.profile, limits);
    const results = await node.search(profile, { k: p.k });
    return { results: results.map(resultJson) };
  });

  add('community.join', async (p) => {
    const profile = profileParam(p.profile, limits);
    const r = await node.join(profile, { minFreq: p.minFreq, minSize: p.minSize, k: p.k });
    return {
      interests: r.interests.map((i) => ({
        profile: i.profile.toJSON(),
        community: i.community === null ? null : resultJson(i.community),
      })),
    };
  });

  add('notifications.list', (p) => ({
    notifications: node.notifications(p?.since ?? 0).map(notificationJson),
  }));

  add('stats', () => {
    const traffic = node.traffic();
    let sent = 0;
    let served = 0;
    for (const [name, c] of Object.entries(traffic)) {
      if (name.endsWith('-response')) continue;
      if (name.startsWith('out:')) sent += c.messages;
      else served += c.messages;
    }
    return {
      uptimeMs: Date.now() - startedAt,
      rpc: { calls: counters.calls, errors: counters.errors },
      requests: { sent, served },
      messages: { sent: node.meter.total('out:'), received: node.meter.total('in:') },
      protocols: { [INDEX_PROTOCOL]: traffic },
      stored: node.info().stored,
      ...nodeCounters?.snapshot(),
    };
  });

  add('node.republish', () => node.republish());

  return server;
}
