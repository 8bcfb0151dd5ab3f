import pLimit from 'p-limit';
import type { SignedBlob } from '../index/records.ts';
import { communityAddressKey } from '../keys/rehash.ts';
import { blobToWire, WIRE_VERSION, type WireSigned } from '../net/codec.ts';
import type { NodeContext } from './context.ts';

export interface StoreReport {
  /** Descriptors the storing nodes returned as similar (algorithm 4.13's selection). */
  similar: WireSigned[];
  /** Keys where at least one replica stored or refreshed the descriptor. */
  storedKeys: number;
  /** Keys where no replica did (unreachable, or refused: stale, conflict, dissolved). */
  failedKeys: number;
}

const ACCEPTED = new Set(['stored', 'refreshed']);

/** Stores (or updates) a descriptor under each key on its `replicas` closest peers. */
export async function storeUnderKeys(
  ctx: NodeContext,
  keys: Uint8Array[],
  type: 'store' | 'update',
  descriptor: SignedBlob,
  s: number,
): Promise<StoreReport> {
  const rec = blobToWire(descriptor);
  const limit = pLimit(ctx.limits.concurrency);
  const report: StoreReport = { similar: [], storedKeys: 0, failedKeys: 0 };
  await Promise.all(
    keys.map((key) =>
      limit(async () => {
        try {
          const answers = await ctx.router.ask(
            'profiles',
            key,
            { v: WIRE_VERSION, swarm: ctx.swarm.digest, t: type, key, rec, s },
            ctx.swarm.params.replicas,
          );
          const accepted = answers.filter((a) => ACCEPTED.has(a.res.outcome ?? ''));
          for (const a of accepted) report.similar.push(...(a.res.recs ?? []));
          if (accepted.length > 0) report.storedKeys++;
          else report.failedKeys++;
        } catch {
          report.failedKeys++;
        }
      }),
    ),
  );
  return report;
}

/** Sends a signed removal or tombstone to the replicas of each key; returns how many took it. */
export async function removeUnderKeys(
  ctx: NodeContext,
  dht: 'profiles' | 'addresses',
  items: { key: Uint8Array; rec: SignedBlob }[],
): Promise<number> {
  const limit = pLimit(ctx.limits.concurrency);
  let done = 0;
  await Promise.all(
    items.map(({ key, rec }) =>
      limit(async () => {
        try {
          await ctx.router.ask(
            dht,
            key,
            { v: WIRE_VERSION, swarm: ctx.swarm.digest, t: 'remove', rec: blobToWire(rec) },
            ctx.swarm.params.replicas,
          );
          done++;
        } catch {
          // counted as not done; the owner's republish retries
        }
      }),
    ),
  );
  return done;
}

/** Puts a community's contacts (with its descriptor) on AddressesDHT; true if a replica took it. */
export async function putContacts(
  ctx: NodeContext,
  id: string,
  contacts: SignedBlob,
  descriptor: SignedBlob,
): Promise<boolean> {
  try {
    const answers = await ctx.router.ask(
      'addresses',
      communityAddressKey(id),
      {
        v: WIRE_VERSION,
        swarm: ctx.swarm.digest,
        t: 'contacts-put',
        rec: blobToWire(contacts),
        desc: blobToWire(descriptor),
      },
      ctx.swarm.params.replicas,
    );
    return answers.some((a) => ACCEPTED.has(a.res.outcome ?? ''));
  } catch {
    return false;
  }
}
