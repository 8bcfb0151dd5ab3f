import type { PeerId } from '@libp2p/interface';
import type { DescriptorRecord } from '../../index/records.ts';
import { definedOnly } from '../../util/defined.ts';
import { blobFromWire, blobToWire, type Request, type Response } from '../codec.ts';
import { openRecord, RecordError } from '../records.ts';
import { type Handler, ok } from '../server.ts';
import type { HandlerComponents } from './components.ts';

/** AddressesDHT writes: a community's signed contact list, with its current descriptor. */
export class ContactsPutHandler implements Handler<'contacts-put'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(from: PeerId, req: Extract<Request, { t: 'contacts-put' }>): Promise<Response> {
    const rec = await openRecord(blobFromWire(req.rec), this.#c.profileLimits);
    if (rec.kind !== 'contacts')
      throw new RecordError(`contacts-put needs a contact list, got a ${rec.kind}`);
    let desc: DescriptorRecord | undefined;
    if (req.desc !== undefined) {
      const d = await openRecord(blobFromWire(req.desc), this.#c.profileLimits);
      if (d.kind !== 'descriptor' || d.id !== rec.id || d.version !== rec.version) {
        throw new RecordError(
          'the descriptor must be of the same community and version as the contacts',
        );
      }
      desc = d;
    }
    const outcome = this.#c.table.putContacts(rec, desc, this.#c.now());
    await this.#c.persist();
    // A version new here goes on towards the key's replicas as tables have them
    // (src/net/route.ts): where routed reads end.
    if (outcome === 'stored') this.#c.router?.spread(rec.id, req, from);
    return ok({ outcome });
  }
}

/**
 * AddressesDHT reads: contacts and descriptor of a community, or its tombstone. Brief: the
 * versions of the contacts and descriptor instead of the records (a tombstone still in full:
 * it is small, and it wins wherever it is found).
 */
export class ContactsGetHandler implements Handler<'contacts-get'> {
  readonly #c: HandlerComponents;
  constructor(c: HandlerComponents) {
    this.#c = c;
  }

  async handle(_from: PeerId, req: Extract<Request, { t: 'contacts-get' }>): Promise<Response> {
    const { contacts, descriptor, tombstone } = this.#c.table.contacts(req.id, this.#c.now());
    if (req.brief === true) {
      return ok(
        definedOnly({
          recV: contacts?.version,
          descV: descriptor?.version,
          tomb: tombstone && blobToWire(tombstone.blob),
        }),
      );
    }
    return ok(
      definedOnly({
        rec: contacts && blobToWire(contacts.blob),
        desc: descriptor && blobToWire(descriptor.blob),
        tomb: tombstone && blobToWire(tombstone.blob),
      }),
    );
  }
}
