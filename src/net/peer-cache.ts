/**
 * libp2p's peer store (12.x) keeps each peer's record encoded in the datastore, and every call
 * — a read as much as a write — takes the peer's lock (a mortice instance and a queued job,
 * created for the call), reads the record, decodes it and builds its multiaddrs. libp2p reads
 * and writes the same records many times within moments: kad-dht reads the record of each peer
 * it names in an answer and merges the addresses of each peer an answer names, so a lookup
 * writes the same unchanged addresses again and again; a new connection brings about twenty
 * calls on one record (identify, the registrar, kad-dht's topology, the dialler). Measured
 * (docs/BENCHMARKS.md, "What a new connection and a stream cost"): the peer store was over
 * 40 % of what a new connection allocates.
 *
 * `cachePeerRecords` puts, in front of one peer store, the record each call last read or
 * wrote, for `FRESH_MS`:
 * - a read is answered from it while no write of that peer is under way;
 * - a merge of addresses, protocols or tags that a record written within `FRESH_MS` already
 *   holds as given returns it without writing — the write would have changed nothing but the
 *   record's last-update time, by which the store expires records after hours;
 * - every other call goes to the store, and a record is kept only if no write of that peer
 *   began or ended while the call ran (calls on one peer may interleave).
 * Every write goes through the store's own methods, so a kept record is the stored one; what
 * may differ is the filtering by age a read applies (addresses not seen for an hour, expired
 * tags), late by at most `FRESH_MS`; a timer drops records past it, so an idle node holds
 * none. Records are shared between callers, as libp2p's own code
 * never changes a record it was handed. No option of libp2p does this.
 *
 * Beside the records, and past `FRESH_MS`, it keeps one fact of each record a call last read or
 * wrote: whether its protocols name cidx's (`speaksIndex`). Every hop of a routed read asks it
 * of a connected peer, and a lookup of each peer it returns; a swarm's larger, the fewer of
 * those asks fall within `FRESH_MS` of the record's last call, and each other ask was a read of
 * the store (a lock, a decode) whose objects outlived a young collection. The protocols a
 * store holds do not age, and the fact is dropped while a write of the peer runs, as a
 * record is, so it stays what a read of the store would say.
 */
import type { Peer, PeerId, PeerStore, Tag } from '@libp2p/interface';
import { INDEX_PROTOCOL } from './codec.ts';

/** How long a record read or written is answered from memory (ms). */
export const FRESH_MS = 5_000;
/** Records kept per store, at most: memory stays bounded on thousands of simulated nodes. */
export const MAX_RECORDS = 256;
/** Peers whose `Speaks` is kept per store, at most (the ones last read or written). */
export const MAX_SPEAKS = 256;
const CACHED = Symbol('cidx.peerCache');

interface Entry {
  peer: Peer;
  at: number;
  /** Kept from a write: a merge that changes nothing is skipped only then. */
  written: boolean;
}
interface Busy {
  calls: number;
  writes: number;
  /** Bumped when a write begins and when it ends: a call that saw it change keeps nothing. */
  epoch: number;
}
type MergeData = Parameters<PeerStore['merge']>[1];

function holdsAll(peer: Peer, data: MergeData, filtersAddresses: boolean): boolean {
  const own = `/p2p/${peer.id.toString()}`;
  for (const key of Object.keys(data)) {
    if (key === 'multiaddrs') {
      if (filtersAddresses) return false;
      const have = new Set(peer.addresses.map((a) => a.multiaddr.toString()));
      for (const ma of data.multiaddrs ?? []) {
        const s = ma.toString();
        // The store keeps an address without the peer's own id at its end.
        if (!have.has(s.endsWith(own) ? s.slice(0, -own.length) : s)) return false;
      }
    } else if (key === 'protocols') {
      for (const p of data.protocols ?? []) if (!peer.protocols.includes(p)) return false;
    } else if (key === 'tags') {
      const tags = data.tags instanceof Map ? [...data.tags] : Object.entries(data.tags ?? {});
      for (const [name, want] of tags) {
        const had = peer.tags.get(name) as (Tag & { expiry?: bigint }) | undefined;
        const w = want as { value?: number; ttl?: number } | undefined;
        // A tag with a lifetime is renewed by writing it: always written.
        if (w == null || had === undefined || w.ttl != null || had.expiry != null) return false;
        if ((w.value ?? 0) !== had.value) return false;
      }
    } else if ((data as Record<string, unknown>)[key] !== undefined) {
      return false;
    }
  }
  return true;
}

/**
 * What a peer's record says of cidx's protocol: named, not named among the others, or no
 * protocols at all (identify has not told them yet, or the peer is not in the store).
 */
export type Speaks = 'yes' | 'no' | 'unknown';

function speaksOf(peer: Pick<Peer, 'protocols'>): Speaks {
  if (peer.protocols.length === 0) return 'unknown';
  return peer.protocols.includes(INDEX_PROTOCOL) ? 'yes' : 'no';
}

/** What a test or a census may ask of the records kept. */
export interface PeerRecordCache {
  size(): number;
  /** What the record of the peer's last read or write said, if kept (no write under way). */
  speaks(peer: PeerId): Speaks | undefined;
}
type Schedule = (run: () => void, ms: number) => void;
const unrefTimer: Schedule = (run, ms) => {
  setTimeout(run, ms).unref?.();
};

export function cachePeerRecords(
  store: PeerStore,
  now: () => number = Date.now,
  schedule: Schedule = unrefTimer,
): PeerRecordCache {
  const installed = (store as { [CACHED]?: PeerRecordCache })[CACHED];
  if (installed !== undefined) return installed;
  const real = {
    get: store.get.bind(store),
    save: store.save.bind(store),
    patch: store.patch.bind(store),
    merge: store.merge.bind(store),
    delete: store.delete.bind(store),
  };
  const filtersAddresses =
    (store as unknown as { store?: { addressFilter?: unknown } }).store?.addressFilter != null;
  const entries = new Map<string, Entry>();
  const busy = new Map<string, Busy>();
  const speaks = new Map<string, Speaks>();

  const fresh = (key: string): Entry | undefined => {
    const e = entries.get(key);
    if (e === undefined) return undefined;
    if (now() - e.at < FRESH_MS) return e;
    entries.delete(key);
    return undefined;
  };
  /** Drops records past FRESH_MS, oldest first (the map holds them in the order kept). */
  const drop = () => {
    const t = now();
    for (const [k, e] of entries) {
      if (entries.size <= MAX_RECORDS && t - e.at < FRESH_MS) break;
      entries.delete(k);
    }
  };
  // An idle node holds no records: one timer while any are kept (thousands of simulated nodes
  // sit idle most of a run).
  let sweeping = false;
  const sweep = () => {
    drop();
    sweeping = entries.size > 0;
    if (sweeping) schedule(sweep, FRESH_MS);
  };
  const keep = (key: string, peer: Peer, written: boolean) => {
    entries.delete(key);
    entries.set(key, { peer, at: now(), written });
    drop();
    speaks.delete(key);
    speaks.set(key, speaksOf(peer));
    if (speaks.size > MAX_SPEAKS) speaks.delete(speaks.keys().next().value as string);
    if (!sweeping) {
      sweeping = true;
      schedule(sweep, FRESH_MS);
    }
  };
  /** Runs a call on the store; keeps its record if no write of the peer overlapped it. */
  const call = async (
    peerId: PeerId,
    write: boolean,
    run: () => Promise<Peer | undefined>,
  ): Promise<Peer | undefined> => {
    const key = peerId.toString();
    const b = busy.get(key) ?? { calls: 0, writes: 0, epoch: 0 };
    busy.set(key, b);
    b.calls++;
    if (write) {
      // Dropped for the write's whole run: no read is answered from memory meanwhile.
      b.writes++;
      b.epoch++;
      entries.delete(key);
      speaks.delete(key);
    }
    const epoch = b.epoch;
    let kept: Peer | undefined;
    try {
      kept = await run();
      return kept;
    } finally {
      if (write) {
        b.writes--;
        b.epoch++;
      }
      const alone = b.writes === 0 && b.epoch === epoch + (write ? 1 : 0);
      if (kept !== undefined && alone) keep(key, kept, write);
      if (--b.calls === 0) busy.delete(key);
    }
  };

  const overrides: Partial<PeerStore> = {
    get: async (peerId, options) => {
      const key = peerId.toString();
      const e = fresh(key);
      if (e !== undefined) return e.peer;
      return (await call(peerId, false, () => real.get(peerId, options))) as Peer;
    },
    merge: async (peerId, data, options) => {
      const key = peerId.toString();
      const e = fresh(key);
      if (e?.written && holdsAll(e.peer, data, filtersAddresses)) return e.peer;
      return (await call(peerId, true, () => real.merge(peerId, data, options))) as Peer;
    },
    save: async (peerId, data, options) =>
      (await call(peerId, true, () => real.save(peerId, data, options))) as Peer,
    patch: async (peerId, data, options) =>
      (await call(peerId, true, () => real.patch(peerId, data, options))) as Peer,
    delete: async (peerId, options) => {
      await call(peerId, true, async () => {
        await real.delete(peerId, options);
        return undefined;
      });
    },
  };
  // Own properties of the instance: every holder of the store (libp2p keeps it in several
  // places) calls these, and the store's own methods reach them through `this`.
  const cache: PeerRecordCache = {
    size: () => entries.size,
    speaks: (peer) => speaks.get(peer.toString()),
  };
  Object.assign(store, overrides, { [CACHED]: cache });
  return cache;
}

/** Whether a store answers from the records above. */
export function cachesPeerRecords(store: PeerStore): boolean {
  return (store as { [CACHED]?: PeerRecordCache })[CACHED] !== undefined;
}

/**
 * Whether the peer's record names cidx's protocol: from memory where `cachePeerRecords`
 * kept it, otherwise read from the store ('unknown' if it holds no record of the peer).
 */
export async function speaksIndex(
  store: { get(peer: PeerId): Promise<Pick<Peer, 'protocols'>> },
  peer: PeerId,
): Promise<Speaks> {
  const kept = (store as { [CACHED]?: PeerRecordCache })[CACHED]?.speaks(peer);
  if (kept !== undefined) return kept;
  try {
    return speaksOf(await store.get(peer));
  } catch {
    return 'unknown';
  }
}
