import type { PeerId } from '@libp2p/interface';
import { blobFromWire, type Request, type Response } from '../codec.ts';
import { openRecord, RecordError } from '../records.ts';
import { type Handler, ok } from '../server.ts';
import type { HandlerComponents } from './components.ts';

/**
 * RemoveDescriptor: a signed removal takes the descriptor off the one key it names (an update's
 * old-only keys); a signed tombstone dissolves the community here for good (every key, its
 * contacts, and any later write).
 */
export class RemoveHandler implements Handler<'remove'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(from: PeerId, req: Extract<Request, { t: 'remove' }>): Promise<Response> {
    const rec = await openRecord(blobFromWire(req.rec), this.#c.profileLimits);
    let outcome: string;
    if (rec.kind === 'removal') outcome = this.#c.table.removeDescriptor(rec, this.#c.now());
    else if (rec.kind === 'tombstone') outcome = this.#c.table.putTombstone(rec, this.#c.now());
    else throw new RecordError(`remove needs a removal or a tombstone, got a ${rec.kind}`);
    await this.#c.persist();
    // A tombstone new here goes on towards the key's replicas as tables have them
    // (src/net/route.ts).
    if (rec.kind === 'tombstone' && outcome === 'stored') this.#c.router?.spread(rec.id, req, from);
    return ok({ outcome });
  }
}
