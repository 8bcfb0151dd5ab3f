/**
 * A loss-free model of the swarm for the quality experiments: one simulated peer holds every
 * DHT key, and every request reaches it. The requester algorithms are the nodes' own
 * (src/node: store, put contacts, search — query every key, merge the brief answers, verify,
 * re-rank, fetch contacts) on the in-memory network (src/node/memory-network.ts), which answers
 * through the protocol's handlers and the responder logic of src/index (algorithms
 * 4.12–4.15). What a search returns then depends only on the index keys (src/keys), the
 * responder's ranking and the requester's merge, so thousands of queries and every (n, m) can
 * be scored; the simulator checks that a real swarm returns the same answers.
 *
 * Bytes are the protocol's own encodings (src/net codec, signed records), frame by frame, of
 * every request and answer the operation sends (a create: its stores and its contacts; a
 * search: its queries and the fetches of its best candidates); they count the cidx messages,
 * not the DHT's routing traffic (the simulator meters that).
 */
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { GroundTruth, type Ranked, type SearchScore, scoreSearch } from '../../sim/ground-truth.ts';
import type { DescriptorRecord, SignedBlob } from '../../src/index/records.ts';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { type IndexParams, resolveIndexParams } from '../../src/keys/params.ts';
import type { Response } from '../../src/net/codec.ts';
import { communityId, NONCE_BYTES, signRecord } from '../../src/net/records.ts';
import { type Exchange, MemoryNetwork } from '../../src/node/memory-network.ts';
import { searchCommunities } from '../../src/node/search.ts';
import { putContacts, storeUnderKeys } from '../../src/node/store.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { hex } from '../../src/util/bytes.ts';

export interface Community {
  id: string;
  profile: Profile;
}

/** A community's signed descriptor and contacts (version 1), and its name in the data set. */
export interface SignedCommunity {
  record: DescriptorRecord;
  contacts: SignedBlob;
  name: string;
}

/** Signed descriptors and contacts (one owner key), made once and reused by every configuration. */
export async function signCommunities(list: readonly Community[]): Promise<SignedCommunity[]> {
  const key: PrivateKey = await generateKeyPair('Ed25519');
  const owner = publicKeyToProtobuf(key.publicKey);
  const addr = `/memory/owner/p2p/${peerIdFromPrivateKey(key).toString()}`;
  const out: SignedCommunity[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i] as Community;
    const nonce = new Uint8Array(NONCE_BYTES);
    new DataView(nonce.buffer).setUint32(0, i);
    const id = communityId(owner, nonce);
    const content = { kind: 'descriptor', id, nonce, version: 1, profile: c.profile } as const;
    const blob = await signRecord(key, content);
    const contacts = await signRecord(key, {
      kind: 'contacts',
      id,
      nonce,
      version: 1,
      addrs: [addr],
    });
    out.push({ name: c.id, record: { ...content, owner, blob }, contacts });
  }
  return out;
}

interface Costs {
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

/** One model peer holds everything: no per-owner quota may refuse the single owner's records. */
const NO_QUOTA = { perOwnerPerKey: Number.MAX_SAFE_INTEGER, perOwner: Number.MAX_SAFE_INTEGER };

/**
 * Creates every community in order (store under each key — the storing table answers with its
 * top-s similar — and put its contacts), then runs every query through the nodes' search and
 * scores it against the exact answer.
 */
export async function runModel(
  index: IndexParams,
  communities: readonly SignedCommunity[],
  queries: readonly Community[],
  opts: ModelOptions,
  exact?: Map<string, Ranked[]>,
): Promise<ModelRun> {
  resolveIndexParams(index);
  const swarm = resolveSwarm({ index, k: opts.k, s: opts.s, replicas: 1 });
  const create: Costs = { keys: 0, requestBytes: 0, replyBytes: 0, repliedDescriptors: 0 };
  const search: Costs = { keys: 0, requestBytes: 0, replyBytes: 0, repliedDescriptors: 0 };
  let phase = create;
  const net = await MemoryNetwork.create(1, {
    swarm,
    quotas: NO_QUOTA,
    onExchange: (e: Exchange) => {
      phase.requestBytes += e.requestBytes;
      phase.replyBytes += e.responseBytes;
      phase.repliedDescriptors += descriptorsIn(e.res);
    },
  });
  const peer = net.peers[0] as NonNullable<(typeof net.peers)[0]>;
  const ctx = net.context(peer);

  const used = new Set<string>();
  for (const { record, contacts } of communities) {
    const keys = indexKeys(record.profile, index);
    for (const key of keys) used.add(hex(key));
    const report = await storeUnderKeys(ctx, keys, 'store', record.blob, opts.s);
    create.keys += report.storedKeys;
    await putContacts(ctx, record.id, contacts, record.blob);
  }

  phase = search;
  const truth = new GroundTruth();
  for (const c of communities) truth.set(c.record.id, c.record.profile);
  const scores: SearchScore[] = [];
  const exactJaccard: number[] = [];
  const byId = new Map(communities.map((c) => [c.record.id, c.record]));
  for (const q of queries) {
    search.keys += indexKeys(q.profile, index).length;
    const returned = (await searchCommunities(ctx, q.profile, opts.k)).map((r) => ({
      id: r.id,
      similarity: r.similarity,
    }));
    const answer = exact?.get(q.id) ?? truth.rank(q.profile);
    exact?.set(q.id, answer);
    scores.push(scoreSearch(returned, answer, opts.k));
    const best = answer[0] === undefined ? undefined : byId.get(answer[0].id);
    exactJaccard.push(best === undefined ? 0 : jaccardOf(q.profile, best.profile));
  }

  let entries = 0;
  let indexBytes = 0;
  let maxEntriesPerKey = 0;
  const now = Date.now();
  for (const key of used) {
    let held = 0;
    for (const d of peer.table.descriptors(key, now)) {
      held++;
      indexBytes += d.blob.payload.length + d.blob.owner.length + d.blob.sig.length;
    }
    entries += held;
    maxEntriesPerKey = Math.max(maxEntriesPerKey, held);
  }
  return {
    index,
    scores,
    search,
    create,
    entries,
    indexBytes,
    keysUsed: used.size,
    maxEntriesPerKey,
    exactJaccard,
  };
}

/** Signed descriptors an answer carries: records of a full answer, a contacts entry's descriptor. */
function descriptorsIn(res: Response): number {
  return res.ok ? (res.recs?.length ?? 0) + (res.desc === undefined ? 0 : 1) : 0;
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
