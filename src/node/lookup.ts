import pLimit from 'p-limit';
import type { ContactsRecord, DescriptorRecord, RankedDescriptor } from '../index/records.ts';
import { compareRanked } from '../index/select-similar.ts';
import { communityAddressKey } from '../keys/rehash.ts';
import { blobFromWire, WIRE_VERSION, type WireSigned } from '../net/codec.ts';
import { openRecord } from '../net/records.ts';
import type { Profile } from '../profile/profile.ts';
import { similarity } from '../profile/similarity.ts';
import type { NodeContext } from './context.ts';

/**
 * Verifies the descriptors peers returned and ranks them against a profile at the requester
 * (the second filtering step of the thesis): duplicates merged, the newest version of each
 * community kept, similarity computed here — never taken from the responder — and `excludeId`
 * left out. Records that fail verification are dropped: a hostile peer cannot inject one.
 */
export async function rankReturned(
  ctx: NodeContext,
  blobs: WireSigned[],
  profile: Profile,
  excludeId?: string,
): Promise<RankedDescriptor[]> {
  const unique = new Map<string, WireSigned>();
  for (const b of blobs) unique.set(Buffer.from(b.s).toString('base64'), b);
  const newest = new Map<string, DescriptorRecord>();
  const limit = pLimit(32);
  await Promise.all(
    [...unique.values()].map((b) =>
      limit(async () => {
        try {
          const rec = await openRecord(blobFromWire(b), ctx.profileLimits);
          if (rec.kind !== 'descriptor' || rec.id === excludeId) return;
          const cur = newest.get(rec.id);
          if (cur === undefined || cur.version < rec.version) newest.set(rec.id, rec);
        } catch {
          // an unverifiable record is not a result
        }
      }),
    ),
  );
  const ranked: RankedDescriptor[] = [];
  for (const record of newest.values()) {
    const s = similarity(profile, record.profile);
    if (s > 0) ranked.push({ record, similarity: s });
  }
  return ranked.sort(compareRanked);
}

export interface CommunityEntry {
  contacts?: ContactsRecord;
  descriptor?: DescriptorRecord;
  dissolved: boolean;
}

/**
 * A community's entry in AddressesDHT: contacts and current descriptor, or the fact that it was
 * dissolved. Asks the closest peers until one holds it; a verified tombstone anywhere wins.
 */
export async function lookupCommunity(ctx: NodeContext, id: string): Promise<CommunityEntry> {
  const answers = await ctx.router.ask(
    'addresses',
    communityAddressKey(id),
    { v: WIRE_VERSION, swarm: ctx.swarm.digest, t: 'contacts-get', id },
    ctx.swarm.params.replicas,
    (got) => got.some((a) => a.res.rec !== undefined || a.res.tomb !== undefined),
  );
  const entry: CommunityEntry = { dissolved: false };
  for (const { res } of answers) {
    for (const [field, blob] of [
      ['tomb', res.tomb],
      ['rec', res.rec],
      ['desc', res.desc],
    ] as const) {
      if (blob === undefined) continue;
      let rec: Awaited<ReturnType<typeof openRecord>>;
      try {
        rec = await openRecord(blobFromWire(blob), ctx.profileLimits);
      } catch {
        continue;
      }
      if (rec.id !== id) continue;
      if (field === 'tomb' && rec.kind === 'tombstone') entry.dissolved = true;
      else if (
        rec.kind === 'contacts' &&
        (entry.contacts === undefined || entry.contacts.version < rec.version)
      ) {
        entry.contacts = rec;
      } else if (
        rec.kind === 'descriptor' &&
        (entry.descriptor === undefined || entry.descriptor.version < rec.version)
      ) {
        entry.descriptor = rec;
      }
    }
  }
  if (entry.dissolved) return { dissolved: true };
  return entry;
}
