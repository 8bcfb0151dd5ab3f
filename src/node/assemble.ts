import type { PrivateKey } from '@libp2p/interface';
import { Inbox, type Notification } from '../index/inbox.ts';
import { IndexTable } from '../index/index-table.ts';
import { type ResolvedSwarm, resolveSwarm } from '../index/swarm.ts';
import { IndexClient } from '../net/client.ts';
import { createHandlers, type HandlerComponents } from '../net/handlers/index.ts';
import type { CidxLibp2p } from '../net/libp2p.ts';
import { Meter } from '../net/meter.ts';
import { type RoundTrips, roundTrips } from '../net/round-trips.ts';
import { Router } from '../net/route.ts';
import { IndexServer } from '../net/server.ts';
import {
  type Limits,
  type NodeOptions,
  resolveLimits,
  resolveTiming,
  type Timing,
} from './config.ts';
import { createContext, type NodeContext } from './context.ts';
import { Libp2pNetwork } from './libp2p-network.ts';
import type { OwnedStore } from './ownership.ts';
import { TablePersister } from './persist.ts';
import { RoutingTables } from './routing-tables.ts';
import type { NodeStorage } from './storage.ts';
import { SwarmCheck } from './swarm-check.ts';

/** The parts of a node, wired together. */
export interface NodeParts {
  swarm: ResolvedSwarm;
  timing: Timing;
  limits: Limits;
  table: IndexTable;
  inbox: Inbox;
  meter: Meter;
  /** The responder side: the cidx protocol's handlers behind the server. */
  server: IndexServer;
  /** The requester side: what the algorithms share. */
  ctx: NodeContext;
  /** Writes the table's changes to the store, in order. */
  persister: TablePersister;
  check: SwarmCheck;
  tables: RoutingTables;
  /** The deadlines this node's dials, requests and lookups get, from the round trips it saw. */
  waits: RoundTrips;
}

/**
 * Wires a node on its libp2p host: the index table and inbox, the handlers that serve them
 * (writing every change to `storage` before they answer), the server and client of the cidx
 * protocol, the requester's network and context, the swarm check and the routing-table watch.
 */
export function assembleNode(
  libp2p: CidxLibp2p,
  key: PrivateKey,
  opts: NodeOptions,
  owned: OwnedStore,
  storage: NodeStorage | undefined,
  notified: (n: Notification) => void,
): NodeParts {
  const swarm = resolveSwarm(opts.swarm);
  const timing = resolveTiming(opts.timing);
  const limits = resolveLimits(opts.limits);
  const now = opts.now ?? Date.now;
  const meter = new Meter();
  const table = new IndexTable(
    { recordTtlMs: timing.recordTtlMs, tombstoneTtlMs: timing.tombstoneTtlMs },
    { perOwnerPerKey: limits.quotaPerOwnerPerKey, perOwner: limits.quotaPerOwner },
  );
  const inbox = new Inbox({ capacity: limits.inboxCapacity, filterCells: limits.inboxFilterCells });
  const persister = new TablePersister(table, storage);
  const profileLimits = { maxAttributes: limits.maxAttributes, maxRelations: limits.maxRelations };
  const components: HandlerComponents = {
    table,
    inbox,
    swarm,
    profileLimits,
    responseBudget: limits.maxFrameBytes - 1024,
    now,
    persist: () => persister.persist(),
    notified: async (n) => {
      await storage?.saveNotification(n, inbox.capacity);
      notified(n);
    },
  };
  const handlers = createHandlers(components);
  const server = new IndexServer(
    libp2p,
    handlers,
    {
      timeoutMs: timing.requestTimeoutMs,
      maxFrameBytes: limits.maxFrameBytes,
      maxInboundStreams: limits.maxInboundStreams,
      peerRequestsPerSecond: limits.peerRequestsPerSecond,
      profileLimits,
      swarmDigest: swarm.digest,
      swarmParams: swarm.params,
      // The DHT's own mode: it decides whether the node is in others' routing tables.
      serves: (dht) => libp2p.services[dht].getMode() === 'server',
      ...(opts.onServed ? { onServed: opts.onServed } : {}),
      now,
    },
    meter,
  );
  const waits = roundTrips(timing);
  const client = new IndexClient(
    libp2p,
    {
      timeoutMs: timing.requestTimeoutMs,
      maxFrameBytes: limits.maxFrameBytes,
      roundTrips: waits,
    },
    meter,
  );
  const router = new Router(libp2p, {
    replicas: swarm.params.replicas,
    maxHops: limits.routeHops,
    tableDials: limits.routeDials,
    send: (peer, req) => client.request(peer, req),
    answer: (from, req) => server.dispatch(from, req),
  });
  components.router = router;
  const network = new Libp2pNetwork(libp2p, client, server, {
    router,
    lookupTimeoutMs: timing.lookupTimeoutMs,
    roundTrips: waits,
    lookupConverged: timing.lookupConverged,
    ...(opts.onLookup ? { onLookup: opts.onLookup } : {}),
  });
  const ctx = createContext(network, {
    swarm,
    timing,
    limits,
    key,
    owned,
    now,
    ...(opts.onSearch ? { onSearch: opts.onSearch } : {}),
  });
  return {
    swarm,
    timing,
    limits,
    table,
    inbox,
    meter,
    server,
    ctx,
    persister,
    check: new SwarmCheck(ctx.holders, swarm),
    tables: new RoutingTables(libp2p),
    waits,
  };
}
