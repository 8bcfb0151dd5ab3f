/**
 * Search and join: thesis algorithms 3.1, 4.5, 4.6 and 4.17 (one interest), 4.22 and 4.23
 * (one result per interest), for both index modes.
 */
import type { PeerId } from '@libp2p/interface';
import pLimit from 'p-limit';
import { indexKeys } from '../keys/index-keys.ts';
import { WIRE_VERSION } from '../net/codec.ts';
import { profileToWire } from '../net/wire-profile.ts';
import { interests } from '../profile/interests.ts';
import type { Profile } from '../profile/profile.ts';
import { addAnswers, type Claim, type FetchedAhead, fetchAhead, verifyBest } from './claims.ts';
import type { SearchStats } from './config.ts';
import type { NodeContext } from './context.ts';
import type { Sent } from './holders.ts';

export interface CommunityResult {
  id: string;
  version: number;
  similarity: number;
  profile: Profile;
  /** Contact peers (multiaddrs ending in /p2p/…); empty if AddressesDHT had none. */
  contacts: string[];
}

/**
 * Algorithms 4.5/4.17 + 4.6 (GetSimilarCommunitiesData): query ProfilesDHT once per key of the
 * profile, in parallel with bounded concurrency, sending the profile along; merge, verify and
 * re-rank what the queried nodes returned; take the best k that are not dissolved, with their
 * contact peers from AddressesDHT.
 *
 * The queried nodes answer briefly, with (id, version, similarity) summaries of their top k
 * (algorithm 4.12), and only the best candidates' descriptors travel: AddressesDHT returns each
 * with its contacts, which the search needs anyway — fetched for the best claims so far while
 * other keys are still asked (`fetchAhead`). The similarity is computed here from the
 * verified descriptor, never taken from a responder (`verifyBest`).
 */
export async function searchCommunities(
  ctx: NodeContext,
  profile: Profile,
  k: number,
): Promise<CommunityResult[]> {
  const index = ctx.swarm.params.index;
  const keys = indexKeys(profile, index);
  const wire = profileToWire(profile);
  const limit = pLimit(ctx.limits.concurrency);
  const claims = new Map<string, Claim>();
  const ahead: FetchedAhead = new Map();
  const sent: Sent[] = [];
  const errors: unknown[] = [];
  const wanted = keysWanted(keys.length, index.mode, ctx.limits.searchQuorum);
  // Ends the keys still asked once `wanted` have answered: their lookups stop, nothing more is
  // sent for them, and what they would still answer is not waited for. Keys that fail do not
  // count: where many fail, the others are all waited for, as without a quorum.
  const drop = new AbortController();
  let answered = 0;
  let routed = 0;
  let enough: () => void = () => {};
  const quorum = new Promise<void>((resolve) => {
    enough = resolve;
  });
  const tasks = keys.map((key) =>
    limit(async () => {
      if (drop.signal.aborted) return;
      const query = {
        v: WIRE_VERSION,
        swarm: ctx.swarm.digest,
        t: 'query',
        key,
        profile: wire,
        k,
        brief: true,
      } as const;
      try {
        const asked = await ctx.holders.getSimilarCommunities(key, query, {
          replicas: ctx.limits.queryReplicas,
          maxPeers: Math.max(ctx.limits.queryReplicas, ctx.swarm.params.replicas),
          signal: drop.signal,
        });
        if (drop.signal.aborted) return;
        sent.push(...asked.sent);
        if (asked.routed === true) routed++;
        addAnswers(claims, asked.answers, query);
        if (++answered >= wanted) enough();
        if (ctx.limits.readsAhead > 0) fetchAhead(ctx, claims, k, ahead);
      } catch (err) {
        if (drop.signal.aborted) return;
        errors.push(err);
      }
    }),
  );
  await Promise.race([Promise.all(tasks), quorum]);
  drop.abort();
  ctx.onSearch?.({
    ...searchStats(ctx.holders.self, keys.length, sent),
    keysDropped: keys.length - answered - errors.length,
    keysRouted: routed,
  });
  if (answered === 0 && errors.length > 0) throw errors[0];
  return verifyBest(ctx, profile, claims, { k, ahead });
}

/**
 * How many of a search's keys must answer before it ends: `quorum` percent of an LSH index's
 * bands, at least one; every key of the attribute index, whose answer is exact.
 */
export function keysWanted(keys: number, mode: 'lsh' | 'attribute', quorum: number): number {
  if (mode === 'attribute' || keys === 0) return keys;
  return Math.min(keys, Math.max(1, Math.ceil((keys * quorum) / 100)));
}

/** How a search's requests to other nodes spread: what one request per peer would save. */
export function searchStats(
  self: PeerId,
  keys: number,
  sent: readonly Sent[],
): Omit<SearchStats, 'keysDropped' | 'keysRouted'> {
  const asked = new Set<string>();
  let requests = 0;
  let repeatQueries = 0;
  for (const s of [...sent].sort((a, b) => a.seq - b.seq)) {
    if (s.peer.equals(self)) continue;
    const id = s.peer.toString();
    requests++;
    // A route carries the profile too.
    if (asked.has(id) && (s.t === 'query' || s.t === 'route')) repeatQueries++;
    asked.add(id);
  }
  return { keys, requests, peers: asked.size, repeatQueries };
}

export interface JoinOptions {
  /** Split a matrix profile into interests: relations below minFreq pruned (default 0.25). */
  minFreq?: number;
  /** Interests with fewer attributes are dropped (default 20). */
  minSize?: number;
  k?: number;
}

export interface JoinResult {
  interests: { profile: Profile; community: CommunityResult | null }[];
}

/**
 * Algorithm 3.1 with 4.22/4.23: the best community (and its contacts) for each of the user's
 * interests. A matrix profile — or any profile when minFreq/minSize are given — is split into
 * interests (connected components); a weighted vector is one interest.
 */
export async function joinCommunities(
  ctx: NodeContext,
  profile: Profile,
  opts: JoinOptions = {},
): Promise<JoinResult> {
  const split = profile.isMatrix || opts.minFreq !== undefined || opts.minSize !== undefined;
  const parts = split
    ? interests(profile, { minFreq: opts.minFreq ?? 0.25, minSize: opts.minSize ?? 20 })
    : [profile];
  const k = opts.k ?? ctx.swarm.params.k;
  const found = await Promise.all(parts.map((p) => searchCommunities(ctx, p, k)));
  return { interests: parts.map((p, i) => ({ profile: p, community: found[i]?.[0] ?? null })) };
}
