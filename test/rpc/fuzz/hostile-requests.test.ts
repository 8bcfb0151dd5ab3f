/**
 * Hostile JSON-RPC for every method of a real node (fast-check): arbitrary JSON, wrongly typed,
 * missing and extra params, huge strings, deep nesting, NaN-like strings, negative numbers,
 * invalid ids, batches, non-JSON bodies — over real HTTP, to a node of a two-node swarm (memory
 * transport) whose RPC port listens on 127.0.0.1.
 *
 * Property: every answer is well-formed JSON-RPC 2.0 — one response per request that has an id,
 * an array for a batch, the request's id echoed (null when it could not be read), an error code
 * of the public contract (never -32603, never a 5xx, never a hang) — and invalid calls change no
 * stored state: the nodes' index tables, owned communities and inboxes stay as they were, checked
 * in-process after every case and through the RPC port (community.list, community.get, stats,
 * node.info, notifications.list) before and after the run.
 *
 * All `RUNS` cases (test/net/fuzz/check.ts) go over HTTP (one node, keep-alive). No assertion
 * on the time they take: a test must not depend on the machine's speed; the timeout only
 * guards against a hang.
 *
 * Found and fixed in src/rpc/http.ts (the regressions are kept as examples):
 * - a body `null` (or a batch holding null) made the JSON-RPC library throw a TypeError: the
 *   request was never answered, and the unhandled rejection ended a `cidx node` process;
 * - an id of 10^5 nested arrays overflowed the stack while the answer was written (the same);
 * - an id that is an object, an array or a boolean was echoed, and the method run;
 * - a batch of one request was answered with an object, not an array;
 * - a method that is not a string was "method not found" (-32601), not an invalid request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CidxNode } from '../../../src/node/node.ts';
import { parseProfile } from '../../../src/profile/parse.ts';
import { type RpcHandle, startRpc } from '../../../src/rpc/http.ts';
import type { MethodName } from '../../../src/rpc/params.ts';
import { cases, RUNS } from '../../net/fuzz/check.ts';
import { startSwarm, stopAll, waitFor } from '../../support/swarm.ts';
import { checkAnswer, type Expected, expectedFor, METHODS, MUTATING, outcomes } from './answers.ts';
import { anyParams, anyString, HEX64, hostile, hugeString, invalidParams } from './requests.ts';

const GOOD = { weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62 } };
const SIMILAR = { weights: { canto: 1.2, Verdi: 0.9, chitarra: 0.8 } };

describe('JSON-RPC port of a real node under hostile requests', () => {
  let nodes: CidxNode[];
  let rpc: RpcHandle;
  let small: RpcHandle;
  let ownId: string;
  let otherId: string;

  async function post(url: string, body: string | Uint8Array, type = 'application/json') {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
      signal: AbortSignal.timeout(20_000),
    });
    return { status: res.status, text: await res.text() };
  }

  async function call(method: string, params?: unknown) {
    const { text } = await post(rpc.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    return JSON.parse(text);
  }

  /** What the nodes hold, read in-process. */
  function stored(): string {
    return JSON.stringify(
      nodes.map((n) => ({
        table: n.info().stored,
        owned: n.ownedIds().map((id) => [id, n.owned(id)?.version]),
        inbox: n.notifications(0).map((x) => [x.seq, x.record.id, x.record.version]),
      })),
    );
  }

  /** What the RPC port says the node holds (no counters: they count these very calls). */
  async function viaRpc() {
    const info = (await call('node.info')).result;
    return {
      list: (await call('community.list')).result,
      get: (await call('community.get', { id: ownId })).result,
      stored: (await call('stats')).result.stored,
      info: { stored: info.stored, owned: info.owned, inbox: info.inbox },
      notifications: (await call('notifications.list')).result,
    };
  }

  beforeAll(async () => {
    nodes = await startSwarm(2);
    rpc = await startRpc(nodes[0] as CidxNode, { host: '127.0.0.1', port: 0 });
    small = await startRpc(nodes[0] as CidxNode, {
      host: '127.0.0.1',
      port: 0,
      maxBodyBytes: 4096,
    });
    // Some state worth keeping: a community owned by the node, one of the other node's, and
    // the notification the second one's creation sends to the first one's contacts.
    ownId = (await call('community.create', { profile: GOOD })).result.id;
    otherId = (await (nodes[1] as CidxNode).create(parseProfile(SIMILAR))).id;
    await waitFor(
      () => (nodes[0] as CidxNode).notifications(0).length > 0,
      undefined,
      'the notification',
    );
    expect(ownId).toMatch(HEX64);
    expect((nodes[0] as CidxNode).notifications(0)).toHaveLength(1);
  });

  afterAll(async () => {
    await Promise.allSettled([rpc?.close(100), small?.close(100)]);
    await stopAll(nodes ?? []);
  });

  /** Sends a body; checks the answer against what each request in it asks for. */
  async function exchange(body: string | Uint8Array): Promise<void> {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const seen = Buffer.from(bytes).toString('utf8'); // what the node reads
    const { status, text } = await post(rpc.url, bytes);
    const what = `body ${JSON.stringify(seen.slice(0, 200))} → ${status} ${text.slice(0, 300)}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(seen);
    } catch {
      expect(status, what).toBe(200);
      checkAnswer(
        JSON.parse(text),
        { answered: true, id: null, code: -32700, mustFail: true },
        what,
      );
      return;
    }
    if (Array.isArray(parsed) && parsed.length === 0) {
      expect(status, what).toBe(200);
      checkAnswer(
        JSON.parse(text),
        { answered: true, id: null, code: -32600, mustFail: true },
        what,
      );
      return;
    }
    const wants = (Array.isArray(parsed) ? parsed : [parsed])
      .map(expectedFor)
      .filter((w): w is Extract<Expected, { answered: true }> => w.answered);
    if (wants.length === 0) {
      expect([status, text], what).toEqual([204, '']);
      return;
    }
    expect(status, what).toBe(200);
    const answer: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) {
      // a batch is answered with an array, one response per request that has an id
      expect(Array.isArray(answer), `${what}: a batch's answer must be an array`).toBe(true);
      expect((answer as unknown[]).length, what).toBe(wants.length);
      wants.forEach((w, i) => {
        checkAnswer((answer as unknown[])[i], w, what);
      });
    } else {
      checkAnswer(answer, wants[0] as Extract<Expected, { answered: true }>, what);
    }
  }

  /** Replaces the deep-nesting placeholders of a body with the nesting itself. */
  function expandDeep(text: string): string {
    return text.replace(/"\\u0000deep:([ao]):(\d+)\\u0000"/g, (_m, kind: string, n: string) => {
      const depth = Number(n);
      return kind === 'a'
        ? `${'['.repeat(depth)}-1${']'.repeat(depth)}`
        : `${'{"a":'.repeat(depth)}-1${'}'.repeat(depth)}`;
    });
  }

  it(`answers ${cases(RUNS)} hostile bodies with contract JSON-RPC and changes nothing`, async () => {
    const before = await viaRpc();
    const state = stored();
    const templates = (): Record<MethodName, Record<string, unknown>> => ({
      'node.info': {},
      'node.peers': {},
      'community.list': {},
      stats: {},
      'node.republish': {},
      'notifications.list': { since: 0 },
      'community.create': { profile: GOOD, notify: 1, contacts: nodes[0]?.addrs },
      'community.update': { id: ownId, profile: SIMILAR, notify: 1 },
      'community.dissolve': { id: ownId },
      'community.get': { id: ownId },
      'community.search': { profile: GOOD, k: 5 },
      'community.join': { profile: GOOD, minFreq: 0.5, minSize: 1, k: 2 },
    });
    const t = templates();
    const params = (m: MethodName) =>
      MUTATING.has(m)
        ? invalidParams(m, t[m])
        : fc.oneof({ weight: 9, arbitrary: invalidParams(m, t[m]) }, anyParams(t[m]));
    // Calls not owned by this node or of unknown communities: errors, whatever the params.
    const foreign = fc.oneof(
      fc.constant({ method: 'community.update', params: { id: otherId, profile: GOOD } }),
      fc.constant({ method: 'community.dissolve', params: { id: otherId } }),
      fc.constant({ method: 'community.dissolve', params: { id: 'f'.repeat(64) } }),
    );
    const call = fc.oneof(
      {
        weight: 12,
        arbitrary: fc
          .constantFrom(...METHODS)
          .chain((m) => params(m).map((p) => ({ method: m, params: p }))),
      },
      { weight: 1, arbitrary: foreign },
      {
        weight: 2,
        arbitrary: fc.record({
          method: fc.oneof(
            anyString,
            fc.constantFrom(
              'toString',
              '__proto__',
              'constructor',
              'rpc.discover',
              'Stats',
              'stats ',
            ),
            hostile,
            hugeString,
          ),
          params: hostile,
        }),
      },
    );
    const envelope = fc
      .tuple(
        call,
        fc.oneof(
          {
            weight: 8,
            arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null)),
          },
          { weight: 1, arbitrary: fc.constant(undefined) }, // a notification
          { weight: 2, arbitrary: hostile }, // objects, arrays, booleans, deep nesting: invalid
        ),
        fc.oneof({ weight: 12, arbitrary: fc.constant('2.0') }, hostile),
        // now and then, members a request does not have (result and error make it invalid)
        fc.oneof(
          { weight: 6, arbitrary: fc.constant({}) },
          fc.dictionary(fc.constantFrom('result', 'error', 'extra', 'params2'), hostile, {
            maxKeys: 2,
          }),
        ),
      )
      .map(([c, id, jsonrpc, extra]) => ({ jsonrpc, id, ...c, ...extra }));
    const bodyValue = fc.oneof(
      { weight: 12, arbitrary: envelope },
      {
        weight: 3,
        arbitrary: fc.array(fc.oneof({ weight: 5, arbitrary: envelope }, hostile), {
          minLength: 1,
          maxLength: 5,
        }),
      },
      { weight: 1, arbitrary: hostile },
    );
    const body = fc.oneof(
      { weight: 16, arbitrary: bodyValue.map((v) => expandDeep(JSON.stringify(v) ?? 'undefined')) },
      {
        weight: 1,
        arbitrary: fc.tuple(bodyValue, fc.nat(), anyString).map(([v, at, junk]) => {
          const text = JSON.stringify(v) ?? '';
          const i = text.length === 0 ? 0 : at % text.length;
          return text.slice(0, i) + junk; // cut, or cut and garbled
        }),
      },
      {
        weight: 1,
        arbitrary: fc.oneof(
          anyString,
          fc.constantFrom('', '[]', '\uFEFF{}', 'NaN', '[,]', '{"jsonrpc":"2.0",}', '1e999'),
        ),
      },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 100 }) },
    );

    const counts = new Map<string, number>();
    let firstChange: string | undefined;
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        if (typeof b === 'string') {
          for (const m of METHODS)
            if (b.includes(`"method":"${m}"`)) counts.set(m, (counts.get(m) ?? 0) + 1);
        }
        await exchange(b);
        // The first change is the culprit: once changed, the state stays changed while shrinking.
        if (firstChange === undefined && stored() !== state) firstChange = String(b).slice(0, 2000);
        expect(firstChange, 'state changed by this body').toBeUndefined();
      }),
      {
        numRuns: RUNS,
        examples: [
          // regressions: each left the request unanswered (an unhandled TypeError or RangeError)
          ['null'],
          ['[null]'],
          ['[1, null]'],
          [`{"jsonrpc":"2.0","id":${'['.repeat(100_000)}${']'.repeat(100_000)},"method":"stats"}`],
          // regressions: an id that is not a string, number or null was echoed, its call run
          ['{"jsonrpc":"2.0","id":{"a":1},"method":"community.list"}'],
          ['{"jsonrpc":"2.0","id":true,"method":"stats"}'],
          // regressions: a batch of one was answered with an object, not an array
          ['[{"jsonrpc":"2.0","id":1,"method":"stats"}]'],
          ['[1]'],
          // regression: a method that is not a string was "not found" (-32601), not invalid
          ['{"jsonrpc":"2.0","id":1,"method":5}'],
        ],
      },
    );
    // every method was called, each many times, and every kind of answer was given
    // (shares of the cases: 2 % for each method, 0.2 % for each kind of answer)
    for (const m of METHODS) expect(counts.get(m) ?? 0, m).toBeGreaterThan(RUNS / 50);
    for (const code of ['-32700', '-32600', '-32601', '-32602', '-32001', 'result'])
      expect(outcomes.get(code) ?? 0, code).toBeGreaterThan(RUNS / 500);
    expect(await viaRpc()).toEqual(before);
    expect(stored()).toBe(state);
  });

  it("refuses another node's community to update and dissolve, and a dissolved one to update", async () => {
    // Owned by the other node: this node may not change it.
    for (const method of ['community.update', 'community.dissolve']) {
      const params =
        method === 'community.update' ? { id: otherId, profile: GOOD } : { id: otherId };
      expect((await call(method, params)).error.code).toBe(-32001);
    }
    // A community this node dissolved cannot be updated or dissolved again (its tombstone stays).
    const id = (await call('community.create', { profile: SIMILAR })).result.id as string;
    expect((await call('community.dissolve', { id })).result).toBeDefined();
    expect((await call('community.update', { id, profile: GOOD })).error.code).toBeLessThan(-32000);
    // Dissolving again is idempotent (the owner re-sends its tombstone); it revives nothing.
    const again = await call('community.dissolve', { id });
    expect(again.error?.code ?? 'ok').not.toBe(-32603);
    const found = (await call('community.search', { profile: SIMILAR })).result.results as {
      id: string;
    }[];
    expect(found.map((r) => r.id)).not.toContain(id);
  });

  it('refuses a batch of more than 100 requests as a whole, and answers one of 100', async () => {
    const batch = (n: number) =>
      JSON.stringify(
        Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'node.info' })),
      );
    const over = JSON.parse((await post(rpc.url, batch(101))).text);
    expect(over).toMatchObject({ id: null, error: { code: -32600 } });
    expect(over.error.message).toMatch(/at most 100/);
    const fine = JSON.parse((await post(rpc.url, batch(100))).text) as { id: number }[];
    expect(fine.map((r) => r.id)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('answers a body over the size limit with 413 and a JSON-RPC error, and the next one normally', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'stats',
      params: { x: 'x'.repeat(5000) },
    });
    const over = await post(small.url, big);
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600 },
    });
    const ok = await post(
      small.url,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'community.list' }),
    );
    expect(JSON.parse(ok.text)).toMatchObject({ id: 2, result: { communities: [{ id: ownId }] } });
  });

  it('keeps answering after a run of hostile bodies on one connection each, sent at once', async () => {
    const bodies = ['null', '[null]', '{', '[]', '[[]]', `[${'1,'.repeat(10_000)}1]`];
    const answers = await Promise.all(bodies.map((b) => post(rpc.url, b)));
    for (const a of answers) expect(a.status).toBe(200);
    expect((await call('community.get', { id: ownId })).result.id).toBe(ownId);
  });
});
