/**
 * A peer that refused a connection is not dialled again for a while. libp2p 3.3 refuses every
 * inbound connection at its connection limit, closing before the handshake (the dialler sees
 * `EncryptionFailedError`), and its dialler has no backoff: every lookup or request that meets
 * the peer dials it again, each time through the dial queue, the transport, the start of a
 * handshake and a peer-store write of the failure. In a 2000-node simulation the nodes holding
 * popular keys sat at their limit and most connections a search opened were such refusals
 * (docs/BENCHMARKS.md, "Refused connections at 2000 nodes"). go-libp2p's swarm backs off from
 * a peer whose dial failed for the same reason.
 *
 * For `backoffMs` after a refusal, a dial of that peer (by peer id, with no connection open to
 * it) fails at once with `DialBackoffError`: kad-dht counts the peer as not answering and goes on
 * to the next, as after the refusal itself. Only a peer closing before the handshake starts a
 * backoff (a node of another private swarm does that too, and is not worth redialling either);
 * timeouts and aborts, which the node's adaptive deadlines judge, do not. libp2p has no option
 * for this; reached through its connection manager's `openConnection` (which its `openStream`
 * calls too), checked by `refusalBackoffMissing`, left alone if its shape changes.
 */
import type { Connection, PeerId } from '@libp2p/interface';
import { isPeerId } from '@libp2p/interface';
import type { Libp2p } from 'libp2p';
import { RecentPeers } from './recent-peers.ts';

const INSTALLED = Symbol('cidx.refusalBackoff');

/** A dial not tried: the peer refused a connection a moment ago. */
export class DialBackoffError extends Error {
  override name = 'DialBackoffError';
}

/** Dials refused by peers, and dials not tried because of an earlier refusal. */
export interface BackoffCounts {
  refusals: number;
  skipped: number;
}

interface ManagerInsides {
  openConnection?: (peer: unknown, options?: unknown) => Promise<Connection>;
  getConnections?: (peerId?: PeerId) => Connection[];
}

/** How a refusal at the limit reaches the dialler: the far end closed before the handshake. */
function isRefusal(err: unknown): boolean {
  return err instanceof Error && err.name === 'EncryptionFailedError';
}

/**
 * Installs it on a host (before or after start). `backoffMs` 0 changes nothing. The counts, or
 * undefined if nothing was installed.
 */
export function backOffAfterRefusal(
  host: Libp2p,
  backoffMs: number,
  now: () => number = performance.now.bind(performance),
): BackoffCounts | undefined {
  const cm = (host as unknown as { components?: { connectionManager?: ManagerInsides } }).components
    ?.connectionManager;
  const open = cm?.openConnection;
  if (
    cm === undefined ||
    backoffMs <= 0 ||
    typeof open !== 'function' ||
    typeof cm.getConnections !== 'function'
  )
    return undefined;
  const connections = cm.getConnections.bind(cm);
  const refused = new RecentPeers(now);
  const counts: BackoffCounts = { refusals: 0, skipped: 0 };

  cm.openConnection = async (peer, options) => {
    if (!isPeerId(peer)) return open.call(cm, peer, options);
    const since = refused.sinceMs(peer);
    if (since !== undefined && since < backoffMs && connections(peer).length === 0) {
      counts.skipped++;
      throw new DialBackoffError(`${peer} refused a connection ${Math.round(since)} ms ago`);
    }
    try {
      return await open.call(cm, peer, options);
    } catch (err) {
      if (isRefusal(err)) {
        counts.refusals++;
        refused.note(peer);
      }
      throw err;
    }
  };
  (host as unknown as Record<symbol, BackoffCounts>)[INSTALLED] = counts;
  return counts;
}

/** The counts of a host it is installed on. */
export function backoffCounts(host: Libp2p): BackoffCounts | undefined {
  return (host as unknown as Record<symbol, BackoffCounts | undefined>)[INSTALLED];
}

/** Empty when installed; else why not, in one line. */
export function refusalBackoffMissing(host: Libp2p): string[] {
  return backoffCounts(host) !== undefined
    ? []
    : ["libp2p's openConnection was not found; a peer that refused is dialled again at once"];
}
