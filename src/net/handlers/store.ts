import type { PeerId } from '@libp2p/interface';
import { storeDescriptor, updateDescriptor } from '../../index/responder.ts';
import { indexKeys } from '../../keys/index-keys.ts';
import { FieldError } from '../../profile/errors.ts';
import { blobFromWire, blobToWire, fitToFrame, type Request, type Response } from '../codec.ts';
import { openRecord, RecordError } from '../records.ts';
import { type Handler, ok } from '../server.ts';
import type { HandlerComponents } from './components.ts';
import { summaries } from './query.ts';

/**
 * StoreDescriptor and UpdateDescriptor (algorithms 4.13, 4.14): verify the owner's signature,
 * check that the key is one of the descriptor's own index keys (nobody may plant a descriptor
 * under keys its profile does not map to), select the s most similar, store.
 */
export class StoreHandler implements Handler<'store' | 'update'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(_from: PeerId, req: Extract<Request, { t: 'store' | 'update' }>): Promise<Response> {
    const rec = await openRecord(blobFromWire(req.rec), this.#c.profileLimits);
    if (rec.kind !== 'descriptor')
      throw new RecordError(`${req.t} needs a descriptor, got a ${rec.kind}`);
    const keys = indexKeys(rec.profile, this.#c.swarm.params.index);
    if (!keys.some((k) => Buffer.compare(k, req.key) === 0)) {
      throw new FieldError('key', "is not one of the descriptor's index keys");
    }
    const apply = req.t === 'update' ? updateDescriptor : storeDescriptor;
    const { outcome, similar } = apply(this.#c.table, req.key, rec, req.s, this.#c.now());
    await this.#c.persist();
    if (req.brief === true) return ok({ outcome, sums: summaries(similar) });
    return ok({
      outcome,
      recs: fitToFrame(
        similar.map((r) => blobToWire(r.record.blob)),
        this.#c.responseBudget,
      ),
    });
  }
}
