/**
 * Changing a community's profile: thesis algorithms 3.3, 4.9/4.19 and 4.10 (PerformUpdate).
 * Keys of the old profile only get a signed removal, kept keys an update, new keys a store;
 * then the contacts of the l most similar communities are notified. The contact list may be
 * replaced in the same step.
 */

import { indexKeys } from '../keys/index-keys.ts';
import { signRecord } from '../net/records.ts';
import type { Profile } from '../profile/profile.ts';
import { hex } from '../util/bytes.ts';
import { mergeClaims } from './claims.ts';
import type { NodeContext } from './context.ts';
import {
  type ChangeResult,
  checkContacts,
  checkNotify,
  defaultContacts,
  storeAndNotify,
} from './create.ts';
import { NetworkError, NotOwnerError, UnknownCommunityError } from './errors.ts';
import { inTurn } from './owner-lock.ts';
import { putContacts, removeUnderKeys, storeUnderKeys } from './store.ts';

export function updateCommunity(
  ctx: NodeContext,
  id: string,
  profile: Profile,
  opts: { notify?: number; contacts?: string[] } = {},
): Promise<ChangeResult> {
  return inTurn(ctx.owned, id, () => update(ctx, id, profile, opts));
}

async function update(
  ctx: NodeContext,
  id: string,
  profile: Profile,
  opts: { notify?: number; contacts?: string[] },
): Promise<ChangeResult> {
  const cur = ctx.owned.get(id);
  if (cur === undefined) throw new NotOwnerError(id);
  if (cur.dissolved !== undefined) throw new UnknownCommunityError(id, 'dissolved community');
  const l = checkNotify(opts.notify ?? ctx.swarm.params.l);
  // Contacts that were defaulted follow the node's addresses; given ones stay until replaced.
  const contacts = checkContacts(
    opts.contacts ??
      (cur.defaultContacts === true ? defaultContacts(ctx, cur.contacts) : cur.contacts),
  );
  const followsAddrs = opts.contacts === undefined && cur.defaultContacts === true;
  const version = cur.version + 1;
  const { nonce } = cur;
  const newKeys = indexKeys(profile, ctx.swarm.params.index);
  const newHex = newKeys.map(hex);
  const oldSet = new Set(cur.keys);
  const newSet = new Set(newHex);
  const oldOnly = cur.keys.filter((k) => !newSet.has(k));
  const kept: Uint8Array[] = [];
  const added: Uint8Array[] = [];
  for (const k of newKeys) (oldSet.has(hex(k)) ? kept : added).push(k);

  const descriptor = await signRecord(ctx.key, { kind: 'descriptor', id, nonce, version, profile });
  const contactsRecord = await signRecord(ctx.key, {
    kind: 'contacts',
    id,
    nonce,
    version,
    addrs: contacts,
  });
  const removals = await Promise.all(
    oldOnly.map(async (k) => {
      const key = Buffer.from(k, 'hex');
      const rec = await signRecord(ctx.key, { kind: 'removal', id, nonce, version, key });
      return { key, rec, holders: cur.holders?.[k] ?? [] };
    }),
  );
  const [updated, stored] = await Promise.all([
    storeUnderKeys(ctx, kept, 'update', descriptor, ctx.swarm.params.s, cur.holders),
    storeUnderKeys(ctx, added, 'store', descriptor, ctx.swarm.params.s),
  ]);
  await removeUnderKeys(ctx, 'profiles', removals);
  const report = {
    claims: mergeClaims(updated.claims, stored.claims),
    holders: { ...updated.holders, ...stored.holders },
    storedKeys: updated.storedKeys + stored.storedKeys,
    failedKeys: updated.failedKeys + stored.failedKeys,
  };
  if (report.storedKeys === 0) {
    throw new NetworkError(
      `no peer stored the new version under any of its ${newKeys.length} keys`,
    );
  }
  await putContacts(ctx, id, contactsRecord, descriptor);
  const { defaultContacts: _, ...rest } = cur;
  await ctx.owned.put({
    ...rest,
    version,
    profile,
    contacts,
    ...(followsAddrs ? { defaultContacts: true } : {}),
    keys: newHex,
    holders: report.holders,
    descriptor,
    contactsRecord,
  });
  return storeAndNotify(ctx, 'updated', { id, version, profile, descriptor }, report, l);
}
