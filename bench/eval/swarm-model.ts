/**
 * A loss-free model of the swarm for the quality experiments: every DHT key is held by exactly
 * one table, every request reaches it. What a search returns then depends only on the index keys
 * (src/keys), the responder's ranking (src/index selectSimilar, algorithms 4.12–4.15) and the
 * requester's merge — the same code the nodes run — so thousands of queries and every (n, m)
 * can be scored in seconds. The simulator checks that a real swarm returns the same answers.
 *
 * Bytes are the protocol's own encodings (src/net codec, signed records), frame by frame:
 * they count the cidx messages, not the DHT's routing traffic (the simulator meters that).
 */
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { GroundTruth, type Ranked, type SearchScore, scoreSearch } from '../../sim/ground-truth.ts';
import type { DescriptorRecord } from '../../src/index/records.ts';
import { compareRanked, selectSimilar } from '../../src/index/select-similar.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { type IndexParams, resolveIndexParams } from '../../src/keys/params.ts';
import { blobToWire, encodeMessage, WIRE_VERSION } from '../../src/net/codec.ts';
import { communityId, NONCE_BYTES, signRecord } from '../../src/net/records.ts';
import { profileToWire } from '../../src/net/wire-profile.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { similarity } from '../../src/profile/similarity.ts';

const SWARM = new Uint8Array(32);

export interface Community {
  id: string;
  profile: Profile;
}

/** Signed descriptors (one owner key), made once and reused by every configuration. */
export async function signCommunities(
  list: readonly Community[],
): Promise<{ record: DescriptorRecord; name: string }[]> {
  const key: PrivateKey = await generateKeyPair('Ed25519');
  const owner = publicKeyToProtobuf(key.publicKey);
  const out: { record: DescriptorRecord; name: string }[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i] as Community;
    const nonce = new Uint8Array(NONCE_BYTES);
    new DataView(nonce.buffer).setUint32(0, i);
    const id = communityId(owner, nonce);
    const content = { kind: 'descriptor', id, nonce, version: 1, profile: c.profile } as const;
    const blob = await signRecord(key, content);
    out.push({ name: c.id, record: { ...content, owner, blob } });
  }
  return out;
}

export interface Costs {
  /** Index keys the operation touched (one DHT lookup each). */
  keys: number;
  requestBytes: number;
  replyBytes: number;
  /** Descriptors carried by the replies. */
  repliedDescriptors: number;
}

export interface ModelRun {
  index: IndexParams;
  scores: SearchScore[];
  search: Costs;
  create: Costs;
  /** Entries (descriptor copies, one per key, before replication) and their signed bytes. */
  entries: number;
  indexBytes: number;
  keysUsed: number;
  /** Largest number of entries under one key. */
  maxEntriesPerKey: number;
  /** Per query: Jaccard with the exact best community (0 when unanswerable). */
  exactJaccard: number[];
}

export interface ModelOptions {
  k: number;
  /** Similar descriptors a store returns (algorithm 4.13). */
  s: number;
}

/**
 * Creates every community in order (store under each key; the storing table answers with its
 * top-s similar), then runs every query (one request per key, top-k per key, merge, re-rank,
 * top-k) and scores it against the exact answer.
 */
export function runModel(
  index: IndexParams,
  communities: readonly { record: DescriptorRecord; name: string }[],
  queries: readonly Community[],
  opts: ModelOptions,
  exact?: Map<string, Ranked[]>,
): ModelRun {
  resolveIndexParams(index);
  const table = new Map<string, DescriptorRecord[]>();
  const create: Costs = { keys: 0, requestBytes: 0, replyBytes: 0, repliedDescriptors: 0 };
  let entries = 0;
  let indexBytes = 0;
  for (const { record } of communities) {
    const wireRec = blobToWire(record.blob);
    const score = memoScore(record.profile);
    const recBytes = record.blob.payload.length + record.blob.owner.length + record.blob.sig.length;
    for (const key of indexKeys(record.profile, index)) {
      const hexKey = Buffer.from(key).toString('hex');
      let held = table.get(hexKey);
      if (held === undefined) {
        held = [];
        table.set(hexKey, held);
      }
      if (held.some((r) => r.id === record.id)) continue;
      const similar = selectSimilar(held, record.profile, opts.s, record.id, score);
      held.push(record);
      entries++;
      indexBytes += recBytes;
      create.keys++;
      create.requestBytes += encodeMessage({
        v: WIRE_VERSION,
        swarm: SWARM,
        t: 'store',
        key,
        rec: wireRec,
        s: opts.s,
      }).length;
      create.replyBytes += encodeMessage({
        v: WIRE_VERSION,
        ok: true,
        outcome: 'stored',
        recs: similar.map((r) => blobToWire(r.record.blob)),
      }).length;
      create.repliedDescriptors += similar.length;
    }
  }

  const truth = new GroundTruth();
  for (const c of communities) truth.set(c.record.id, c.record.profile);
  const search: Costs = { keys: 0, requestBytes: 0, replyBytes: 0, repliedDescriptors: 0 };
  const scores: SearchScore[] = [];
  const exactJaccard: number[] = [];
  const byId = new Map(communities.map((c) => [c.record.id, c.record]));
  for (const q of queries) {
    const wire = profileToWire(q.profile);
    const found = new Map<string, DescriptorRecord>();
    const score = memoScore(q.profile);
    for (const key of indexKeys(q.profile, index)) {
      const held = table.get(Buffer.from(key).toString('hex')) ?? [];
      const top = selectSimilar(held, q.profile, opts.k, undefined, score);
      search.keys++;
      search.requestBytes += encodeMessage({
        v: WIRE_VERSION,
        swarm: SWARM,
        t: 'query',
        key,
        profile: wire,
        k: opts.k,
      }).length;
      search.replyBytes += encodeMessage({
        v: WIRE_VERSION,
        ok: true,
        recs: top.map((r) => blobToWire(r.record.blob)),
      }).length;
      search.repliedDescriptors += top.length;
      for (const r of top) found.set(r.record.id, r.record);
    }
    const returned = selectSimilar(found.values(), q.profile, opts.k, undefined, score)
      .sort(compareRanked)
      .map((r) => ({ id: r.record.id, similarity: r.similarity }));
    const answer = exact?.get(q.id) ?? truth.rank(q.profile);
    exact?.set(q.id, answer);
    scores.push(scoreSearch(returned, answer, opts.k));
    const best = answer[0] === undefined ? undefined : byId.get(answer[0].id);
    exactJaccard.push(best === undefined ? 0 : jaccardOf(q.profile, best.profile));
  }
  let maxEntriesPerKey = 0;
  for (const held of table.values()) maxEntriesPerKey = Math.max(maxEntriesPerKey, held.length);
  return {
    index,
    scores,
    search,
    create,
    entries,
    indexBytes,
    keysUsed: table.size,
    maxEntriesPerKey,
    exactJaccard,
  };
}

/** Every responder holding a descriptor scores it alike: compute each score once. */
function memoScore(profile: Profile): (r: DescriptorRecord) => number {
  const memo = new Map<string, number>();
  return (r) => {
    let v = memo.get(r.id);
    if (v === undefined) {
      v = similarity(profile, r.profile);
      memo.set(r.id, v);
    }
    return v;
  };
}

function jaccardOf(a: Profile, b: Profile): number {
  let common = 0;
  for (const x of a.attributes()) if (b.has(x)) common++;
  return common / (a.size + b.size - common);
}

/** The §5.4 measures over a run's scores. */
export function summarise(scores: readonly SearchScore[]): {
  queries: number;
  answerable: number;
  top1: number;
  precision: number;
  meanRelError: number;
  unresolved: number;
} {
  const a = scores.filter((s) => s.answerable);
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length);
  return {
    queries: scores.length,
    answerable: a.length,
    top1: mean(a.map((s) => (s.top1 ? 1 : 0))),
    precision: mean(a.flatMap((s) => (s.precision === null ? [] : [s.precision]))),
    meanRelError: mean(a.flatMap((s) => (s.relError === null ? [] : [s.relError]))),
    unresolved: mean(a.map((s) => (s.unresolved ? 1 : 0))),
  };
}
