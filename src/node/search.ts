/**
 * Search and join: thesis algorithms 3.1, 4.5, 4.6 and 4.17 (one interest), 4.22 and 4.23
 * (one result per interest), for both index modes.
 */
import type { PeerId } from '@libp2p/interface';
import pLimit from 'p-limit';
import { MAX_SEEN_BYTES } from '../index/seen-filter.ts';
import { indexKeys } from '../keys/index-keys.ts';
import { type Request, WIRE_VERSION } from '../net/codec.ts';
import { profileToWire } from '../net/wire-profile.ts';
import { interests } from '../profile/interests.ts';
import type { Profile } from '../profile/profile.ts';
import { addClaim, type Claim, verifyBest } from './claims.ts';
import type { NodeContext } from './context.ts';
import { lookupCommunity, ReturnedDescriptors } from './lookup.ts';

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
 * With brief replies (the default) the queried nodes answer with (id, version, similarity)
 * summaries, and only the best candidates' descriptors travel: AddressesDHT returns each with
 * its contacts, which the search fetched anyway. The similarity is still computed here from
 * the verified descriptor, never taken from a responder (see `verifyBest`).
 */
export async function searchCommunities(
  ctx: NodeContext,
  profile: Profile,
  k: number,
): Promise<CommunityResult[]> {
  const brief = true;
  const keys = indexKeys(profile, ctx.swarm.params.index);
  const wire = profileToWire(profile);
  const limit = pLimit(ctx.limits.concurrency);
  const got = new ReturnedDescriptors(ctx);
  const claims = new Map<string, Claim>();
  const errors: unknown[] = [];
  // Which other nodes this search asks, and how often: what one request per peer would save.
  const asked = new Set<string>();
  let requests = 0;
  let repeatQueries = 0;
  const onSend = (peer: PeerId, req: Request) => {
    if (peer.equals(ctx.libp2p.peerId)) return;
    const id = peer.toString();
    requests++;
    if (asked.has(id) && req.t === 'query') repeatQueries++;
    asked.add(id);
  };
  const answerK = k;
  await Promise.all(
    keys.map((key) =>
      limit(async () => {
        try {
          // What earlier keys returned goes along as a filter: peers leave it out (the same
          // communities sit under many of a profile's keys). Summaries are too small to filter.
          const seen = brief ? null : got.seenFilter(MAX_SEEN_BYTES);
          const query: Request = {
            v: WIRE_VERSION,
            swarm: ctx.swarm.digest,
            t: 'query',
            key,
            profile: wire,
            k: answerK,
            ...(brief ? { brief: true as const } : {}),
            ...(seen === null ? {} : { seen: { k: seen.k, b: seen.bits } }),
          };
          const answers = await ctx.router.ask(
            'profiles',
            key,
            query,
            ctx.limits.queryReplicas,
            undefined,
            // Under churn the closest peer may have just joined and hold nothing yet: an empty
            // answer sends the search on to the next replica — with a probe (the key alone), as
            // most empty answers come from keys nobody stored anything under; the query
            // follows only to a replica that holds something. Records left out because we
            // hold them count as an answer.
            {
              counts: (a) =>
                (a.res.recs?.length ?? 0) +
                  (a.res.sums?.length ?? 0) +
                  (a.res.omitted ?? 0) +
                  (a.res.held ?? 0) >
                0,
              maxPeers: Math.max(ctx.limits.queryReplicas, ctx.swarm.params.replicas),
              next: { v: WIRE_VERSION, swarm: ctx.swarm.digest, t: 'probe', key },
              onSend,
            },
          );
          for (const [i, a] of answers.entries()) {
            if ((a.res.held ?? 0) > 0) {
              onSend(a.peer, query);
              answers[i] = { peer: a.peer, res: await ctx.router.send(a.peer, query) };
            }
          }
          for (const a of answers) {
            for (const s of a.res.sums ?? []) addClaim(claims, s, { peer: a.peer, query });
          }
          await got.add(answers.flatMap((a) => a.res.recs ?? []));
        } catch (err) {
          errors.push(err);
        }
      }),
    ),
  );
  ctx.onSearch?.({ keys: keys.length, requests, peers: asked.size, repeatQueries });
  if (errors.length === keys.length) throw errors[0];
  if (brief) return verifyBest(ctx, profile, k, claims);
  const ranked = got.rank(profile);
  const out: CommunityResult[] = [];
  // Contacts are fetched for the best candidates only, a batch at a time, skipping dissolved ones.
  for (let i = 0; i < ranked.length && out.length < k; ) {
    const batch = ranked.slice(i, i + k - out.length);
    i += batch.length;
    const entries = await Promise.all(
      batch.map((r) => lookupCommunity(ctx, r.record.id).catch(() => null)),
    );
    batch.forEach((r, j) => {
      const e = entries[j];
      if (e?.dissolved) return;
      out.push({
        id: r.record.id,
        version: r.record.version,
        similarity: r.similarity,
        profile: r.record.profile,
        contacts: e?.contacts?.addrs ?? [],
      });
    });
  }
  return out.slice(0, k);
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
