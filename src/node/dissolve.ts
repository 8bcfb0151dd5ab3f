/**
 * Dissolving a community: thesis algorithms 3.4, 4.11 and 4.20. A signed tombstone goes to the
 * replicas of every key and of the community's AddressesDHT entry; the owner keeps
 * republishing it for the tombstone lifetime, so a stale copy can never bring the community back.
 */
import type { SignedBlob } from '../index/records.ts';
import { communityAddressKey } from '../keys/rehash.ts';
import { signRecord } from '../net/records.ts';
import type { NodeContext } from './context.ts';
import { NetworkError, NotOwnerError } from './errors.ts';
import { inTurn } from './owner-lock.ts';
import { removeUnderKeys } from './store.ts';

export function dissolveCommunity(
  ctx: NodeContext,
  id: string,
): Promise<{ id: string; dissolved: true }> {
  return inTurn(ctx.owned, id, () => dissolve(ctx, id));
}

async function dissolve(ctx: NodeContext, id: string): Promise<{ id: string; dissolved: true }> {
  const cur = ctx.owned.get(id);
  if (cur === undefined) throw new NotOwnerError(id);
  if (cur.dissolved !== undefined) return { id, dissolved: true };
  const version = cur.version + 1;
  const tombstone = await signRecord(ctx.key, { kind: 'tombstone', id, nonce: cur.nonce, version });
  const reached = await sendTombstone(ctx, id, cur.keys, tombstone, cur.holders);
  if (reached === 0) throw new NetworkError('no peer took the tombstone');
  await ctx.owned.put({
    ...cur,
    version,
    dissolved: { tombstone, until: ctx.now() + ctx.timing.tombstoneTtlMs },
  });
  return { id, dissolved: true };
}

/**
 * Sends a tombstone under every ProfilesDHT key (to its closest peers and its known holders) and
 * the AddressesDHT key; returns the keys reached.
 */
export async function sendTombstone(
  ctx: NodeContext,
  id: string,
  keys: string[],
  tombstone: SignedBlob,
  holders: Record<string, string[]> = {},
): Promise<number> {
  const [profiles, addresses] = await Promise.all([
    removeUnderKeys(
      ctx,
      'profiles',
      keys.map((k) => ({ key: Buffer.from(k, 'hex'), rec: tombstone, holders: holders[k] ?? [] })),
    ),
    removeUnderKeys(ctx, 'addresses', [{ key: communityAddressKey(id), rec: tombstone }]),
  ]);
  return profiles + addresses;
}
