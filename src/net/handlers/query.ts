import type { PeerId } from '@libp2p/interface';
import type { RankedDescriptor } from '../../index/records.ts';
import { getSimilarCommunities, leaveOutSeen } from '../../index/responder.ts';
import { hex } from '../../util/bytes.ts';
import { blobToWire, fitToFrame, type Request, type Response } from '../codec.ts';
import { type Handler, ok } from '../server.ts';
import { profileFromWire } from '../wire-profile.ts';
import type { HandlerComponents } from './components.ts';

/** Ranked descriptors as a brief answer carries them. */
export function summaries(
  ranked: RankedDescriptor[],
): { id: Uint8Array; v: number; sim: number }[] {
  return ranked.map((r) => ({
    id: Buffer.from(r.record.id, 'hex'),
    v: r.record.version,
    sim: r.similarity,
  }));
}

/**
 * GetSimilarCommunities (algorithm 4.12): the k stored descriptors most similar to the query,
 * as signed records or, for a brief query, as (id, version, similarity) summaries.
 */
export class QueryHandler implements Handler<'query'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(_from: PeerId, req: Extract<Request, { t: 'query' }>): Promise<Response> {
    const profile = profileFromWire(req.profile, this.#c.profileLimits);
    const ranked = getSimilarCommunities(this.#c.table, req.key, profile, req.k, this.#c.now());
    // The top k is chosen first and only then are the requester's records left out: it gets
    // exactly the candidates it would have got, minus what it already has.
    const { kept, omitted } = leaveOutSeen(
      ranked,
      req.seen === undefined ? undefined : { k: req.seen.k, bits: req.seen.b },
    );
    if (req.brief === true) {
      const sums = summaries(kept);
      return ok(omitted > 0 ? { sums, omitted } : { sums });
    }
    const recs = fitToFrame(
      kept.map((r) => blobToWire(r.record.blob)),
      this.#c.responseBudget,
    );
    return ok(omitted > 0 ? { recs, omitted } : { recs });
  }
}

/** Probe: how many live descriptors this node holds under the key (no profile needed). */
export class ProbeHandler implements Handler<'probe'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(_from: PeerId, req: Extract<Request, { t: 'probe' }>): Promise<Response> {
    let held = 0;
    for (const _ of this.#c.table.descriptors(hex(req.key), this.#c.now())) held++;
    return ok({ held });
  }
}
