import pLimit from 'p-limit';
import type { ContactsRecord, DescriptorRecord, RankedDescriptor } from '../index/records.ts';
import { compareRanked } from '../index/select-similar.ts';
import { communityAddressKey } from '../keys/rehash.ts';
import { blobFromWire, type OkResponse, WIRE_VERSION, type WireSigned } from '../net/codec.ts';
import { openRecord } from '../net/records.ts';
import type { ParseOptions } from '../profile/parse.ts';
import type { Profile } from '../profile/profile.ts';
import { similarity } from '../profile/similarity.ts';
import type { NodeContext } from './context.ts';

/**
 * The descriptors peers returned to one operation, verified as they arrive (the second
 * filtering step of the thesis happens in `rank`): duplicates merged, the newest version of each
 * community kept, `excludeId` left out. Records that fail verification are dropped: a hostile
 * peer cannot inject one.
 */
export class ReturnedDescriptors {
  readonly #profileLimits: ParseOptions;
  readonly #excludeId: string | undefined;
  readonly #signatures = new Set<string>();
  readonly #newest = new Map<string, DescriptorRecord>();

  constructor(opts: { profileLimits: ParseOptions; excludeId?: string | undefined }) {
    this.#profileLimits = opts.profileLimits;
    this.#excludeId = opts.excludeId;
  }

  async add(blobs: WireSigned[]): Promise<void> {
    const fresh: WireSigned[] = [];
    for (const b of blobs) {
      const sig = Buffer.from(b.s).toString('base64');
      if (this.#signatures.has(sig)) continue;
      this.#signatures.add(sig);
      fresh.push(b);
    }
    const limit = pLimit(32);
    await Promise.all(
      fresh.map((b) =>
        limit(async () => {
          try {
            const rec = await openRecord(blobFromWire(b), this.#profileLimits);
            if (rec.kind !== 'descriptor' || rec.id === this.#excludeId) return;
            const cur = this.#newest.get(rec.id);
            if (cur === undefined || cur.version < rec.version) this.#newest.set(rec.id, rec);
          } catch {
            // an unverifiable record is not a result
          }
        }),
      ),
    );
  }

  /** The newest verified descriptor of a community, if one arrived. */
  get(id: string): DescriptorRecord | undefined {
    return this.#newest.get(id);
  }

  /** Similarity computed here — never taken from the responder — best first, zeros dropped. */
  rank(profile: Profile): RankedDescriptor[] {
    const ranked: RankedDescriptor[] = [];
    for (const record of this.#newest.values()) {
      const s = similarity(profile, record.profile);
      if (s > 0) ranked.push({ record, similarity: s });
    }
    return ranked.sort(compareRanked);
  }
}

export interface CommunityEntry {
  contacts?: ContactsRecord;
  descriptor?: DescriptorRecord;
  dissolved: boolean;
}

/**
 * A community's entry in AddressesDHT: contacts and current descriptor, or the fact that it was
 * dissolved. Where a read routed over open connections (Holders.routed) brings the entry, in
 * full and verified, that one replica's answer is the entry. Otherwise the closest replica is
 * asked in full and the others, in the same round, for the versions they hold (`brief`): a
 * replica that holds a newer version than the full answers brought is then asked in full, so
 * the newest found anywhere wins, as when every replica answered in full, for one full
 * answer's bytes instead of one per replica. Asks the closest peers until one holds it; a
 * verified tombstone anywhere wins.
 */
export async function lookupCommunity(ctx: NodeContext, id: string): Promise<CommunityEntry> {
  const full = { v: WIRE_VERSION, swarm: ctx.swarm.digest, t: 'contacts-get', id } as const;
  // Routed, the replica reached answers alone, if it holds the entry; otherwise the lookup.
  const routed = await ctx.holders.routed(full, []);
  if (routed !== undefined && holdsInFull(routed.res)) {
    const entry: CommunityEntry = { dissolved: false };
    await absorb(ctx, id, entry, routed.res);
    if (entry.dissolved) return { dissolved: true };
    if (entry.contacts !== undefined) return entry;
  }
  const { answers } = await ctx.holders.ask('addresses', communityAddressKey(id), full, {
    replicas: ctx.swarm.params.replicas,
    brief: { ...full, brief: true },
    held: holdsInFull,
    until: (got) => got.some((a) => holdsEntry(a.res)),
    speculate: true,
  });
  const entry: CommunityEntry = { dissolved: false };
  for (const { res } of answers) await absorb(ctx, id, entry, res);
  if (entry.dissolved) return { dissolved: true };
  // The newest claim first: one full answer usually brings it; a claim that turns out false
  // (or a replica gone since) costs the next one.
  const behind = (res: OkResponse) =>
    (res.recV ?? 0) > (entry.contacts?.version ?? 0) ||
    (res.descV ?? 0) > (entry.descriptor?.version ?? 0);
  const newest = (res: OkResponse) => Math.max(res.recV ?? 0, res.descV ?? 0);
  const claims = answers
    .filter((a) => newest(a.res) > 0)
    .sort((a, b) => newest(b.res) - newest(a.res));
  for (const c of claims) {
    if (!behind(c.res)) continue;
    try {
      await absorb(ctx, id, entry, await ctx.holders.send(c.peer, full));
    } catch {
      // gone since its brief answer: the next claim
    }
    if (entry.dissolved) return { dissolved: true };
  }
  return entry;
}

/** A full answer that holds the community's entry: its contacts or its tombstone. */
function holdsInFull(res: OkResponse): boolean {
  return res.rec !== undefined || res.tomb !== undefined;
}

/** An answer that holds the community's entry, in full or (brief) as versions. */
function holdsEntry(res: OkResponse): boolean {
  return holdsInFull(res) || res.recV !== undefined || res.descV !== undefined;
}

/** The verified records of one contacts-get answer, the newest of each kind kept. */
async function absorb(
  ctx: NodeContext,
  id: string,
  entry: CommunityEntry,
  res: OkResponse,
): Promise<void> {
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
