/**
 * Room for new peers at a node many peers reach. libp2p 3.3 refuses every inbound connection
 * once a node holds `maxConnections`, and its pruner acts only above the limit, closing the
 * newest connections first. A node holding the descriptors of popular keys gathers a connection
 * from every peer that ever searched them, reaches the limit with connections long idle, and
 * then refuses every new searcher: measured in a 2000-node simulation (docs/BENCHMARKS.md,
 * "Room for new peers"), most of the connections a search opened were such refusals.
 *
 * As go-libp2p's connection manager does with its watermarks, once a connection opens past the
 * high mark (90 % of the limit) the node closes idle connections down to the low mark (80 %):
 * those without streams and open longer than a grace period, the least valued first (the sum of
 * the peer's tags, as libp2p's pruner counts them: kad-dht's routing-table and closest peers
 * are worth more than a past searcher), then the oldest. A peer that needs the node again dials
 * it anew, as libp2p's pruner would make it. libp2p's refusal and pruner stay, at the limit.
 * No option of libp2p does this.
 */
import type { Connection, PeerId, PeerStore, Tag } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import { connectedRecords } from './connected-records.ts';

/** Trimming starts when a connection opens past this share of the limit… */
export const HIGH_MARK = 0.9;
/** …and closes idle connections down to this share. */
export const LOW_MARK = 0.8;
/** A connection younger than this is never trimmed: its first request may be on its way (ms). */
export const GRACE_MS = 30_000;
const CLOSE_MS = 1000;
const INSTALLED = Symbol('cidx.connectionHeadroom');

type StoredTags = Map<string, Tag & { expiry?: bigint }>;
interface ManagerInsides {
  getMaxConnections?: () => number;
}

function tagSum(tags: StoredTags, now: number): number {
  let sum = 0;
  for (const t of tags.values()) if (t.expiry == null || t.expiry >= BigInt(now)) sum += t.value;
  return sum;
}

/** Installs it on a host (before start). Returns false, and does nothing, if libp2p lacks a part. */
export function keepConnectionHeadroom(host: Libp2p, o: { graceMs?: number } = {}): boolean {
  const cm = (host as unknown as { components?: { connectionManager?: ManagerInsides } }).components
    ?.connectionManager;
  if (typeof cm?.getMaxConnections !== 'function') return false;
  const max = cm.getMaxConnections.bind(cm);
  const graceMs = o.graceMs ?? GRACE_MS;
  const records = connectedRecords(host);
  const store: Pick<PeerStore, 'get'> = host.peerStore;
  let trimming = false;

  const valueOfPeer = async (peerId: PeerId, at: number): Promise<number> => {
    const known = records.get(peerId);
    if (known !== undefined) return tagSum(known.peer.tags as StoredTags, at);
    try {
      const peer = await records.through(peerId, false, () => store.get(peerId));
      return tagSum(peer.tags as StoredTags, at);
    } catch {
      return 0; // no record: nothing tagged it
    }
  };

  const trim = async (): Promise<void> => {
    const all = host.getConnections();
    const limit = max();
    if (all.length <= Math.floor(limit * HIGH_MARK)) return;
    const at = Date.now(); // the clock of libp2p's connection timelines
    const idle = (c: Connection) =>
      c.status === 'open' && c.streams.length === 0 && at - c.timeline.open >= graceMs;
    const candidates = all.filter(idle);
    if (candidates.length === 0) return;
    const values = new Map<string, number>();
    for (const c of candidates) {
      const key = c.remotePeer.toString();
      if (!values.has(key)) values.set(key, await valueOfPeer(c.remotePeer, at));
    }
    candidates.sort(
      (a, b) =>
        (values.get(a.remotePeer.toString()) ?? 0) - (values.get(b.remotePeer.toString()) ?? 0) ||
        a.timeline.open - b.timeline.open,
    );
    const excess = host.getConnections().length - Math.floor(limit * LOW_MARK);
    const close = candidates.slice(0, Math.max(0, excess)).filter(idle);
    await Promise.all(
      close.map((c) =>
        c.close({ signal: AbortSignal.timeout(CLOSE_MS) }).catch((err: Error) => c.abort(err)),
      ),
    );
  };

  host.addEventListener('connection:open', () => {
    if (trimming) return;
    trimming = true;
    void trim()
      .catch(() => {}) // a close that fails aborts the connection; nothing else can throw
      .finally(() => {
        trimming = false;
      });
  });
  (host as unknown as Record<symbol, boolean>)[INSTALLED] = true;
  return true;
}

/** Empty when installed; else why not, in one line. */
export function connectionHeadroomMissing(host: Libp2p): string[] {
  return (host as unknown as Record<symbol, boolean>)[INSTALLED]
    ? []
    : ["libp2p's connection limit was not found; a node at its limit refuses every new peer"];
}
