import type { PeerId } from '@libp2p/interface';
import { blobFromWire, type Request, type Response } from '../codec.ts';
import { openRecord, RecordError } from '../records.ts';
import { type Handler, ok } from '../server.ts';
import type { HandlerComponents } from './components.ts';

/** NotifyNewCommunity / NotifyNewDescriptor: verified, de-duplicated, kept in the inbox. */
export class NotifyHandler implements Handler<'notify'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(_from: PeerId, req: Extract<Request, { t: 'notify' }>): Promise<Response> {
    const rec = await openRecord(blobFromWire(req.rec), this.#c.profileLimits);
    if (rec.kind !== 'descriptor')
      throw new RecordError(`notify needs a descriptor, got a ${rec.kind}`);
    const n = this.#c.inbox.add(req.kind, rec, req.sim, req.for, this.#c.now());
    if (n === null) return ok({ outcome: 'duplicate' });
    await this.#c.notified(n);
    return ok({ outcome: 'accepted' });
  }
}
