import pLimit from 'p-limit';
import type { SignedBlob } from '../index/records.ts';
import { communityAddressKey } from '../keys/rehash.ts';
import { blobToWire, type Request, WIRE_VERSION } from '../net/codec.ts';
import { hex } from '../util/bytes.ts';
import { addAnswers, type Claim } from './claims.ts';
import type { NodeContext } from './context.ts';
import type { DhtName } from './network.ts';

export interface StoreReport {
  /** What the storing nodes returned as similar (algorithm 4.13's selection), as brief claims. */
  claims: Map<string, Claim>;
  /** Per key (hex), the peers that hold the descriptor now: removals must reach them all. */
  holders: Record<string, string[]>;
  /** Keys where at least one replica stored or refreshed the descriptor. */
  storedKeys: number;
  /** Keys where no replica did (unreachable, or refused: stale, conflict, dissolved). */
  failedKeys: number;
}

const ACCEPTED = new Set(['stored', 'refreshed']);

/** Most holders remembered per key: the current replicas and a few that held it before. */
const MAX_HOLDERS = 8;

/** Known holders per key: the newest first, at most MAX_HOLDERS. */
export function mergeHolders(
  older: Record<string, string[]>,
  newer: Record<string, string[]>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const k of new Set([...Object.keys(newer), ...Object.keys(older)])) {
    out[k] = [...new Set([...(newer[k] ?? []), ...(older[k] ?? [])])].slice(0, MAX_HOLDERS);
  }
  return out;
}

/**
 * Stores (or updates) a descriptor under each key on its `replicas` closest peers, and on the
 * peers that held an earlier version (`previous`, per key hex) if they are not among those: a
 * lookup may find a slightly different closest set each time, and a holder left out would
 * keep serving the old version.
 */
export async function storeUnderKeys(
  ctx: NodeContext,
  keys: Uint8Array[],
  type: 'store' | 'update',
  descriptor: SignedBlob,
  s: number,
  previous: Record<string, string[]> = {},
): Promise<StoreReport> {
  const rec = blobToWire(descriptor);
  const limit = pLimit(ctx.limits.concurrency);
  const report: StoreReport = {
    claims: new Map(),
    holders: {},
    storedKeys: 0,
    failedKeys: 0,
  };
  await Promise.all(
    keys.map((key) =>
      limit(async () => {
        const k = hex(key);
        const req: Request = {
          v: WIRE_VERSION,
          swarm: ctx.swarm.digest,
          t: type,
          key,
          rec,
          s,
          // The selection comes back as summaries, verified by `verifyBest` if it is used.
          ...(s > 0 ? { brief: true as const } : {}),
        };
        try {
          const { answers } = await ctx.holders.ask('profiles', key, req, {
            replicas: ctx.swarm.params.replicas,
            alsoAsk: previous[k] ?? [],
          });
          const accepted = answers.filter((a) => ACCEPTED.has(a.res.outcome ?? ''));
          addAnswers(report.claims, accepted, req);
          report.holders[k] = accepted.map((a) => a.peer.toString()).slice(0, MAX_HOLDERS);
          if (accepted.length > 0) report.storedKeys++;
          else report.failedKeys++;
        } catch {
          report.holders[k] = previous[k] ?? [];
          report.failedKeys++;
        }
      }),
    ),
  );
  return report;
}

/**
 * Sends a signed removal or tombstone to the replicas of each key, and to the peers known to
 * hold it (`holders`); returns how many keys at least one peer took it for.
 */
export async function removeUnderKeys(
  ctx: NodeContext,
  dht: DhtName,
  items: { key: Uint8Array; rec: SignedBlob; holders?: string[] }[],
): Promise<number> {
  const limit = pLimit(ctx.limits.concurrency);
  let done = 0;
  await Promise.all(
    items.map(({ key, rec, holders }) =>
      limit(async () => {
        const req = {
          v: WIRE_VERSION,
          swarm: ctx.swarm.digest,
          t: 'remove',
          rec: blobToWire(rec),
        } as const;
        try {
          await ctx.holders.ask(dht, key, req, {
            replicas: ctx.swarm.params.replicas,
            alsoAsk: holders ?? [],
          });
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
    const { answers } = await ctx.holders.ask(
      'addresses',
      communityAddressKey(id),
      {
        v: WIRE_VERSION,
        swarm: ctx.swarm.digest,
        t: 'contacts-put',
        rec: blobToWire(contacts),
        desc: blobToWire(descriptor),
      },
      { replicas: ctx.swarm.params.replicas },
    );
    return answers.some((a) => ACCEPTED.has(a.res.outcome ?? ''));
  } catch {
    return false;
  }
}
