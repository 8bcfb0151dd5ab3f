import type { PeerId } from '@libp2p/interface';
import { distanceFrom, sortByDistance } from '../net/closest.ts';
import type { OkResponse, Request } from '../net/codec.ts';

/** What goes ahead of one lookup, and to how many of the closest peers heard of. */
export interface ReadAheadPlan {
  key: Uint8Array;
  /** To the `want` closest heard of. */
  req: Request;
  want: number;
  /** To the next `count` closest heard of. */
  later?: { req: Request; count: number } | undefined;
  /** Peers whose answer to `req` held what was asked, as `test` tells; filled as answers come. */
  held?: { by: Set<string>; test: (res: OkResponse) => boolean } | undefined;
  /**
   * How far from the key (a fraction of the id space) a peer may be and still be sent `req`
   * ahead: a farther one is seldom the lookup's final closest (ClosestDistance). None: any.
   */
  radius?: number | undefined;
}

/** The requester's side of reading ahead. */
export interface ReadAheadPeers {
  self: PeerId;
  /** Requests per peer wanted, at most, over one lookup (`limits.readsAhead`). */
  readsAhead: number;
  /** A peer not worth a request. */
  skip(peer: PeerId): boolean;
  /** Sends one request (and records it). */
  send(peer: PeerId, req: Request): Promise<OkResponse>;
}

/**
 * Reads sent ahead while a lookup runs: each time the lookup hears of peers, `req` goes to
 * those now among the `want` closest heard of (this node included) that were not sent it yet,
 * at most `readsAhead` × `want` in all. A lookup's last round only confirms the
 * closest peer it found; asking that peer meanwhile saves the query's round trips after the
 * lookup. With `later`, the next `later.count` closest heard of (not this node) get
 * `later.req` — a key's probes — at most `readsAhead` × `later.count` in all: a key whose
 * closest peer holds nothing then ends with its lookup instead of a round of probes after it.
 * The caller uses the answer of a peer only if the lookup keeps it among the closest, so a
 * search returns what it would have without reading ahead. With `held`, once an answer to
 * `req` holds what was asked, the closest peers heard of after it get `later.req` instead: the
 * answer in full is in hand, and they are asked for what a brief answer tells. With `radius`,
 * a peer farther from the key is not sent `req` ahead while it is among the closest heard of:
 * if the lookup ends with it, it is asked then, a round trip later.
 *
 * Returns what the lookup calls with the peers it hears of; `early` gets each answer's promise
 * by peer id.
 */
export function readAhead(
  plan: ReadAheadPlan,
  peers: ReadAheadPeers,
  early: Map<string, Promise<OkResponse>>,
): (heard: PeerId[]) => void {
  const { key, req, want, later, held, radius } = plan;
  const { self } = peers;
  const distance = radius === undefined ? undefined : distanceFrom(key);
  // Our own answer costs no round trip: never held back.
  const beyond = (p: PeerId) =>
    distance !== undefined && !p.equals(self) && distance(p) > (radius as number);
  const heard = new Map<string, PeerId>([[self.toString(), self]]);
  const budget = peers.readsAhead * want;
  const laterBudget = peers.readsAhead * (later?.count ?? 0);
  let laterSent = 0;
  const send = (p: PeerId, r: Request) => {
    const answer = peers.send(p, r);
    answer.then(
      (res) => {
        if (r === req && held?.test(res) === true) held.by.add(p.toString());
      },
      () => {}, // an unused answer's failure is nobody's concern
    );
    early.set(p.toString(), answer);
  };
  return (news) => {
    for (const p of news) if (!peers.skip(p)) heard.set(p.toString(), p);
    let first = early.size - laterSent;
    // Both budgets spent: nothing more to send (and no sort of every peer heard of).
    if (first >= budget && laterSent >= laterBudget) return;
    const closest = sortByDistance(heard.values(), key);
    for (const p of closest.slice(0, want)) {
      if (early.has(p.toString()) || first >= budget) continue;
      const r = later !== undefined && (held?.by.size ?? 0) > 0 ? later.req : req;
      // A brief request costs little: only `req` is held back.
      if (r === req && beyond(p)) continue;
      first++;
      send(p, r);
    }
    if (later === undefined) return;
    for (const p of closest.slice(want, want + later.count)) {
      // Our own answer costs no round trip: nothing to gain by asking it ahead.
      if (p.equals(self) || early.has(p.toString()) || laterSent >= laterBudget) continue;
      laterSent++;
      send(p, later.req);
    }
  };
}
