/**
 * Brief answers: what responders claim (id, version, similarity) and how the requester turns
 * claims into verified results — the second filtering step of the thesis without every
 * candidate's descriptor crossing the wire. Used by searches (query answers) and by creates
 * and updates (store answers, algorithm 4.13's selection).
 */
import type { DescriptorRecord } from '../index/records.ts';
import type { Profile } from '../profile/profile.ts';
import { similarity as similarityOf } from '../profile/similarity.ts';
import type { NodeContext } from './context.ts';
import type { Answer, AnswerSource } from './holders.ts';
import { type CommunityEntry, lookupCommunity, ReturnedDescriptors } from './lookup.ts';
import type { CommunityResult } from './search.ts';

/** What responders said of one community: its newest version and best similarity. */
export interface Claim {
  id: string;
  version: number;
  sim: number;
  /** The answer that first made the claim (asked again in full if need be). */
  source: AnswerSource;
}

/** Adds the summaries of brief answers to `req` to the claims. */
export function addAnswers(
  claims: Map<string, Claim>,
  answers: readonly Answer[],
  req: AnswerSource['req'],
): void {
  for (const a of answers) {
    const source: AnswerSource = { peer: a.peer, req };
    for (const s of a.res.sums ?? []) addClaim(claims, s, source);
  }
}

export function addClaim(
  claims: Map<string, Claim>,
  s: { id: Uint8Array; v: number; sim: number },
  source: AnswerSource,
): void {
  putClaim(claims, { id: Buffer.from(s.id).toString('hex'), version: s.v, sim: s.sim, source });
}

/** Keeps each community's newest version and best similarity (the first source stays). */
function putClaim(claims: Map<string, Claim>, c: Claim): void {
  const cur = claims.get(c.id);
  if (cur === undefined) claims.set(c.id, { ...c });
  else {
    cur.version = Math.max(cur.version, c.version);
    cur.sim = Math.max(cur.sim, c.sim);
  }
}

/** Both maps' claims, each community's newest version and best similarity. */
export function mergeClaims(a: Map<string, Claim>, b: Map<string, Claim>): Map<string, Claim> {
  const out = new Map<string, Claim>();
  for (const m of [a, b]) for (const c of m.values()) putClaim(out, c);
  return out;
}

/** The claimed descriptor, from the claiming peer's full answer to the same query (verified). */
async function askInFull(ctx: NodeContext, c: Claim): Promise<DescriptorRecord | undefined> {
  const got = new ReturnedDescriptors({ profileLimits: ctx.profileLimits });
  await got.add(await ctx.holders.askInFull(c.source));
  return got.get(c.id);
}

/** Fetches per brief search at most this many times k descriptors: inflated claims cost little. */
const MAX_FETCH_FACTOR = 4;

/** Community entries fetched from AddressesDHT before `verifyBest` asks for them, by id. */
export type FetchedAhead = Map<string, Promise<CommunityEntry | null>>;

/** Claims best first: highest claimed similarity, ties by id (the order verifyBest fetches in). */
function byClaim(a: Claim, b: Claim): number {
  return b.sim - a.sim || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Starts fetching the AddressesDHT entries of the k best claims so far, while the search's
 * other keys are still being asked: `verifyBest` fetches the best claims first, and these are
 * most often still among them when the last key answers. A claim pushed out by better ones
 * later was fetched for nothing (the whole search fetches at most the budget verifyBest has).
 * What `verifyBest` returns does not change: it takes an entry fetched ahead where it would
 * have fetched it.
 */
export function fetchAhead(
  ctx: NodeContext,
  claims: ReadonlyMap<string, Claim>,
  k: number,
  ahead: FetchedAhead,
): void {
  const budget = k * MAX_FETCH_FACTOR;
  for (const c of [...claims.values()].sort(byClaim).slice(0, k)) {
    if (ahead.size >= budget) return;
    if (!ahead.has(c.id))
      ahead.set(
        c.id,
        lookupCommunity(ctx, c.id).catch(() => null),
      );
  }
}

/**
 * The second filtering step for brief answers: fetch the candidates in order of claimed
 * similarity from AddressesDHT (descriptor and contacts, verified), compute each similarity
 * here, and stop once k are held and the k-th is at least as similar as the best claim not
 * fetched yet. Honest responders compute the same similarity from the same profile, so this
 * fetches k descriptors (plus dissolved ones) and returns what full answers would have given.
 * A responder that inflates a claim makes the search fetch one more descriptor, never rank it
 * higher. A candidate whose AddressesDHT entry cannot be found (under churn its holders may
 * have left) is asked of the peer that claimed it, in full (a search's claims only): it is
 * returned as full answers would have returned it, without contacts.
 */
export async function verifyBest(
  ctx: NodeContext,
  profile: Profile,
  claims: ReadonlyMap<string, Claim>,
  opts: { k: number; excludeId?: string; ahead?: FetchedAhead },
): Promise<CommunityResult[]> {
  const { k, excludeId, ahead } = opts;
  const order = [...claims.values()].filter((c) => c.id !== excludeId).sort(byClaim);
  const held: CommunityResult[] = [];
  const byRank = (a: CommunityResult, b: CommunityResult) =>
    b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  let next = 0;
  const budget = Math.min(order.length, k * MAX_FETCH_FACTOR);
  while (next < budget) {
    if (held.length >= k) {
      held.sort(byRank);
      const last = held[k - 1] as CommunityResult;
      const claim = order[next] as Claim;
      // Ties rank by id, as in full answers.
      if (last.similarity > claim.sim || (last.similarity === claim.sim && last.id < claim.id))
        break;
    }
    const batch = order.slice(next, Math.min(budget, next + Math.max(1, k - held.length)));
    next += batch.length;
    const entries = await Promise.all(
      batch.map(async (c) => {
        const e = await (ahead?.get(c.id) ?? lookupCommunity(ctx, c.id).catch(() => null));
        if (e?.dissolved === true || e?.descriptor !== undefined) return e;
        return { dissolved: false, ...e, descriptor: await askInFull(ctx, c) };
      }),
    );
    for (const e of entries) {
      const d = e?.descriptor;
      if (e === null || e.dissolved || d === undefined) continue;
      const similarity = similarityOf(profile, d.profile);
      if (similarity <= 0) continue;
      held.push({
        id: d.id,
        version: d.version,
        similarity,
        profile: d.profile,
        contacts: e.contacts?.addrs ?? [],
      });
    }
  }
  return held.sort(byRank).slice(0, k);
}
