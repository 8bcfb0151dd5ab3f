/**
 * Creating a community: thesis algorithms 3.2, 4.7 (per attribute) and 4.18 (LSH), with 4.8
 * (StoreAndNotify): store the descriptor under every key, put the contacts on AddressesDHT,
 * rank what the storing nodes returned, notify the contacts of the l most similar.
 */
import { randomBytes } from 'node:crypto';
import { publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { NotificationKind } from '../index/inbox.ts';
import type { SignedBlob } from '../index/records.ts';
import { indexKeys } from '../keys/index-keys.ts';
import {
  checkContactAddr,
  communityId,
  MAX_CONTACTS,
  NONCE_BYTES,
  signRecord,
} from '../net/records.ts';
import { FieldError } from '../profile/errors.ts';
import type { Profile } from '../profile/profile.ts';
import { hex } from '../util/bytes.ts';
import { verifyBest } from './claims.ts';
import type { NodeContext } from './context.ts';
import { NetworkError } from './errors.ts';
import { notifyContacts } from './notify.ts';
import { putContacts, type StoreReport, storeUnderKeys } from './store.ts';

export interface ChangeResult {
  id: string;
  version: number;
  /** The most similar communities found by the storing nodes (at most `notify`). */
  similar: { id: string; similarity: number }[];
  /** Notifications accepted by contacts of those communities. */
  notified: number;
  /** Keys stored (or updated) on at least one replica, and keys no replica took. */
  keys: { stored: number; failed: number };
}

export interface CreateOptions {
  /**
   * Contact addresses; when absent, the addresses others can dial this node at (its relay
   * addresses behind a NAT), kept up to date as they change.
   */
  contacts?: string[];
  /** How many of the most similar communities to notify (default: the swarm's l). */
  notify?: number;
}

export async function createCommunity(
  ctx: NodeContext,
  profile: Profile,
  opts: CreateOptions = {},
): Promise<ChangeResult> {
  const contacts = checkContacts(opts.contacts ?? defaultContacts(ctx, ctx.holders.ownAddrs()));
  const l = checkNotify(opts.notify ?? ctx.swarm.params.l);
  const nonce = new Uint8Array(randomBytes(NONCE_BYTES));
  const id = communityId(publicKeyToProtobuf(ctx.key.publicKey), nonce);
  const version = 1;
  const descriptor = await signRecord(ctx.key, { kind: 'descriptor', id, nonce, version, profile });
  const contactsRecord = await signRecord(ctx.key, {
    kind: 'contacts',
    id,
    nonce,
    version,
    addrs: contacts,
  });
  const keys = indexKeys(profile, ctx.swarm.params.index);
  const owned = {
    id,
    nonce,
    version,
    profile,
    contacts,
    ...(opts.contacts === undefined ? { defaultContacts: true } : {}),
    keys: keys.map(hex),
    holders: {},
    descriptor,
    contactsRecord,
  };
  // Owned first, stored second: a crash in between leaves a community its owner completes by
  // republishing after the restart, never copies in the index that nobody owns or refreshes.
  await ctx.owned.put(owned);
  let report: Awaited<ReturnType<typeof storeUnderKeys>>;
  try {
    report = await storeUnderKeys(ctx, keys, 'store', descriptor, ctx.swarm.params.s);
    if (report.storedKeys === 0)
      throw new NetworkError(
        `no peer stored the new community under any of its ${keys.length} keys`,
      );
    await putContacts(ctx, id, contactsRecord, descriptor);
  } catch (err) {
    await ctx.owned.delete(id);
    throw err;
  }
  await ctx.owned.put({ ...owned, holders: report.holders });
  return storeAndNotify(ctx, 'created', { id, version, profile, descriptor }, report, l);
}

/** Algorithm 4.8: rank the descriptors the storing nodes returned and notify the best l. */
export async function storeAndNotify(
  ctx: NodeContext,
  kind: NotificationKind,
  c: { id: string; version: number; profile: Profile; descriptor: SignedBlob },
  report: StoreReport,
  l: number,
): Promise<ChangeResult> {
  // Brief store answers are claims: verified, with their contacts, through AddressesDHT.
  const best =
    report.claims.size === 0 || l === 0
      ? []
      : await verifyBest(ctx, c.profile, report.claims, { k: l, excludeId: c.id });
  const notified = best.length === 0 ? 0 : await notifyContacts(ctx, kind, c.descriptor, best);
  return {
    id: c.id,
    version: c.version,
    similar: best.map((r) => ({ id: r.id, similarity: r.similarity })),
    notified,
    keys: { stored: report.storedKeys, failed: report.failedKeys },
  };
}

/**
 * A community's contacts when none are given: the addresses others can dial this node at, or
 * `fallback` while it has none (a node behind a NAT before its first relay reservation; its
 * contacts are published again once it has one, contacts-refresh.ts).
 */
export function defaultContacts(ctx: NodeContext, fallback: string[]): string[] {
  const dialable = ctx.holders.addrs();
  return dialable.length > 0 ? dialable : fallback;
}

export function checkContacts(contacts: string[]): string[] {
  if (!Array.isArray(contacts) || contacts.length === 0)
    throw new FieldError('contacts', 'must hold at least one address');
  if (contacts.length > MAX_CONTACTS)
    throw new FieldError('contacts', `must hold at most ${MAX_CONTACTS} addresses`);
  contacts.forEach((a, i) => {
    try {
      if (typeof a !== 'string') throw new Error('must be a string');
      checkContactAddr(a);
    } catch (err) {
      throw new FieldError(`contacts[${i}]`, (err as Error).message);
    }
  });
  return [...contacts];
}

export function checkNotify(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw new FieldError('notify', 'must be an integer in [0, 1000]');
  return n;
}
