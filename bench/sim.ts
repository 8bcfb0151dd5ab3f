/**
 * npm run bench:sim — how far the in-process simulator scales: for each swarm size, a fresh
 * process joins the nodes, creates and searches, and reports RSS, time to join and searches per
 * second. Usage: npm run bench:sim [-- 100 500 1000 2000] [--cpu-prof DIR] [--alloc-prof DIR]
 * [--heap-snapshot DIR] [--prof-phase join|create|search] [--workers N] [--searches N | --searches-per-node N] [--timing "optimistic=no"] [--params "maxConnections=600"] [--help]. One size per child process, so each RSS is that
 * size's alone. --workers runs the nodes in N worker threads (`cidx sim --workers`): CPU is then
 * every thread's, the live heap every thread's summed, and the GC figures and the per-node
 * census (the main thread's alone) are left out. --timing adds keys to the scenario's timing
 * statement (scenarios/README.md), to compare a setting on and off.
 * BENCH_HEAP_MB sets the child's V8 heap limit (default 12288); BENCH_NODE_FLAGS adds Node/V8
 * flags to the children (e.g. GC settings to compare); BENCH_V8_HEAP_DEFAULTS=1 keeps V8's rule
 * for when buffers start a full collection (`cidx sim --v8-heap-defaults`); BENCH_BALLAST_MB
 * holds that many MiB of long-lived objects beside the nodes; BENCH_PROGRESS=1 logs progress.
 *
 * Besides peak RSS it reports the live heap right after the join (after a full GC): what the
 * nodes themselves hold, without the garbage a generous heap limit lets pile up between GCs.
 * CPU per message is the process's CPU time (user + system, every thread: main loop and GC
 * helpers) during a command — less the bench's own sampling of the nodes' internals, and
 * without a profiler's start and its writing of the profile — divided by the messages sent
 * during it (every protocol, the swarm's WireMeter): the design asks nothing of a message that
 * grows with the swarm, so its ratio between sizes of one run says whether something else
 * does. The second table holds what helps find it: connections, peer-store and routing-table
 * entries per node, GC pauses; the third cuts the searches into quarters of their count (CPU
 * per message and connections opened per search in each, bench/phase-quarters.ts: whether the
 * cost settles as the swarm's connections fill in after the join, and the last quarters' ratio
 * between sizes); then kad-dht's routing-table events, and the longest queues and most abort
 * listeners any node had while the creates / the searches ran. Each child also times a fixed
 * piece of work before and after its searches (bench/machine-speed.ts: arithmetic, and reads from memory past the
 * caches): when two children's times differ, the machine ran at different speeds for them,
 * and the last column divides the ratio by the ratio of their whole times.
 * --cpu-prof DIR samples the CPU during the searches of each size (DIR/search-<size>.cpuprofile,
 * read with `node bench/cpu-profile.ts`); --alloc-prof DIR samples what the searches allocate,
 * garbage included (DIR/search-<size>.heapprofile, read with `node bench/cpu-profile.ts`, which
 * divides by the messages in DIR/search-<size>.messages); --survivor-prof DIR the same, keeping
 * only what outlived a scavenge; --heap-snapshot DIR writes DIR/join-<size>.heapsnapshot
 * after the join (small sizes only: a snapshot needs several times the live heap).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { runScenario } from '../sim/interpreter.ts';
import { CAPABILITIES } from '../sim/modes.ts';
import { parseScenario } from '../sim/scenario.ts';
import { MAX_WORKERS, ShardedSwarm, shardedSwarm } from '../sim/shards/swarm.ts';
import { InProcessSwarm } from '../sim/swarm.ts';
import type { SimSwarm } from '../sim/swarm-api.ts';
import { allocationsSampled, profiled } from './cpu-sampling.ts';
import { type MachineSpeed, machineSpeedMs, prepareMachineSpeed } from './machine-speed.ts';
import { type Quarter, type QuarterClock, quarterClock } from './phase-quarters.ts';
import { removedAtExit } from './removed-at-exit.ts';
import {
  type Census,
  census,
  GcClock,
  type GcTotals,
  gcDelta,
  sampleInternals,
} from './swarm-census.ts';

const USAGE = `Usage: npm run bench:sim [-- SIZE ...] [options]
Joins SIZE simulated nodes in one process (one child process per size; default 100 500 1000
2000), makes 50 creates and 50 searches (--searches) scored against the exact answer, and prints peak RSS,
live heap, join time, searches/s, top-1 agreement and CPU per message with its ratio to the
smallest size (and the same ratio divided by how fast the machine ran a fixed piece of work
in each child, before and after its searches, to tell a slower machine from a costlier
message); then each quarter of the searches' CPU per message and connections opened.

Options:
  --cpu-prof DIR       CPU profile of each size's searches: DIR/search-SIZE.cpuprofile
  --alloc-prof DIR     allocation profile of each size's searches: DIR/search-SIZE.heapprofile
  --survivor-prof DIR  the same, keeping only what outlived a scavenge (what the young
                       generation's collector copies): DIR/search-SIZE.heapprofile
  --prof-phase PHASE   profile the join, the creates or the searches (join, create, search;
                       default search): DIR/PHASE-SIZE.cpuprofile / .heapprofile
  --heap-snapshot DIR  heap snapshot after each size's join (small sizes only)
  --workers N          the nodes in N worker threads (1 to ${MAX_WORKERS})
  --searches N         searches instead of 50: a longer search phase averages out where the
                       heap's collections fall, which moves CPU per message between runs
  --searches-per-node N
                       N searches per node at every size, instead of one count for all: each
                       node's first search opens connections its later ones reuse, so with one
                       count a small swarm's nodes search more often than a large one's
                       (a fraction from 0.01 on: 0.1 is one search per ten nodes, rounded)
  --timing "K=V ..."   keys added to the scenario's timing statement, e.g. "optimistic=no"
  --params "K=V ..."   a params statement for the scenario, e.g. "maxConnections=600"
  -h, --help           this text

Environment: BENCH_HEAP_MB (the child's V8 heap limit, default 12288), BENCH_NODE_FLAGS (more
Node/V8 flags for the children), BENCH_V8_HEAP_DEFAULTS=1 (V8's rule that every 64 MiB of
buffers starts a full collection, as \`cidx sim --v8-heap-defaults\`), BENCH_BALLAST_MB (that
many MiB of long-lived objects held beside the nodes: a larger heap without a larger swarm),
BENCH_PROGRESS=1 (progress on stderr).
Read a profile with: node bench/cpu-profile.ts FILE
`;

function usageError(message: string): never {
  process.stderr.write(`bench:sim: ${message}\n\n${USAGE}`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        size: { type: 'string' },
        'cpu-prof': { type: 'string' },
        'alloc-prof': { type: 'string' },
        'survivor-prof': { type: 'string' },
        'heap-snapshot': { type: 'string' },
        'prof-phase': { type: 'string', default: 'search' },
        workers: { type: 'string' },
        searches: { type: 'string' },
        'searches-per-node': { type: 'string' },
        timing: { type: 'string', default: '' },
        params: { type: 'string', default: '' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    return usageError((e as Error).message);
  }
})();
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const SIZES = positionals.map(Number);
for (const [i, n] of SIZES.entries()) {
  if (!(Number.isInteger(n) && n >= 1))
    usageError(`size "${positionals[i]}": a whole number of nodes, 1 or more`);
}
if (values['alloc-prof'] !== undefined && values['survivor-prof'] !== undefined)
  usageError('--alloc-prof and --survivor-prof: one or the other');
if (values.searches !== undefined && values['searches-per-node'] !== undefined)
  usageError('--searches and --searches-per-node: one or the other');
const SEARCHES = Number(values.searches ?? 50);
if (!(Number.isInteger(SEARCHES) && SEARCHES >= 1 && SEARCHES <= 100_000))
  usageError(`--searches "${values.searches}": a whole number from 1 to 100000`);
const PER_NODE =
  values['searches-per-node'] === undefined ? undefined : Number(values['searches-per-node']);
if (PER_NODE !== undefined && !(PER_NODE >= 0.01 && PER_NODE <= 100))
  usageError(`--searches-per-node "${values['searches-per-node']}": a number from 0.01 to 100`);
/** The searches a size makes. */
const searchesAt = (size: number) =>
  PER_NODE === undefined ? SEARCHES : Math.max(1, Math.round(PER_NODE * size));
const PHASE = values['prof-phase'];
if (!['join', 'create', 'search'].includes(PHASE))
  usageError(`--prof-phase "${PHASE}": join, create or search`);
const TIMING = values.timing;
if (/[\n#]/.test(TIMING)) {
  usageError('--timing: keys of one timing statement, e.g. "optimistic=no"');
}
const PARAMS = values.params;
if (/[\n#]/.test(PARAMS)) {
  usageError('--params: keys of one params statement, e.g. "maxConnections=600"');
}
const WORKERS = values.workers === undefined ? undefined : Number(values.workers);
if (
  WORKERS !== undefined &&
  !(Number.isInteger(WORKERS) && WORKERS >= 1 && WORKERS <= MAX_WORKERS)
) {
  usageError(`--workers: an integer from 1 to ${MAX_WORKERS}`);
}
const BALLAST_MB = Number(process.env.BENCH_BALLAST_MB ?? 0);
if (!(BALLAST_MB >= 0 && BALLAST_MB <= 1 << 20))
  usageError(`BENCH_BALLAST_MB "${process.env.BENCH_BALLAST_MB}": MiB, a number from 0 on`);
/** V8's own rule for when buffers start a full collection (RunOptions.v8HeapDefaults). */
const V8_HEAP_DEFAULTS = process.env.BENCH_V8_HEAP_DEFAULTS === '1';

interface Phase {
  cpuMs: number;
  /** Wall time of the command itself, without the bench's counting around it. */
  wallMs: number;
  /** CPU of the main thread alone; the rest is V8's helper threads (GC) and libuv's pool. */
  mainCpuMs: number;
  messages: number;
  /** Connections opened and closed during the phase (swarm-wide, each counted once). */
  opened: number;
  closed: number;
  /** libp2p's counter-group events during the phase (WireMeter.events), swarm-wide. */
  events: Record<string, number>;
  gc: GcTotals;
  /** The machine's speed before and after the phase (searches only): bench/machine-speed.ts. */
  machineMs?: { before: MachineSpeed; after: MachineSpeed };
  /** The searches in quarters of their count (in-process swarm only): bench/phase-quarters.ts. */
  quarters?: Quarter[];
}

interface Row {
  nodes: number;
  /** Searches made (and scored). */
  searches: number;
  /** Worker threads the nodes ran in (absent: all in the main thread, memory transport). */
  workers?: number;
  peakRssMb: number;
  liveHeapMb: number;
  joinS: number;
  createS: number;
  searchesPerS: number;
  top1: number;
  lookupHops: number;
  messagesPerSearch: number;
  /** Keys per search answered by a route over open connections, not a lookup (of 20). */
  keysRouted: number;
  /** Messages per search by protocol (cidx, the two DHTs, identify, ping). */
  searchMessagesBy: Record<string, number>;
  phases: Record<string, Phase>;
  afterJoin: Census;
  afterSearch: Census;
  /** Largest queues and abort listeners on any node while the creates / searches ran. */
  during: Record<string, Record<string, number>>;
}

/** Messages, connections and libp2p's counter-group events, swarm-wide, so far. */
async function wire(s: SimSwarm | undefined): Promise<{
  messages: number;
  opened: number;
  closed: number;
  events: Map<string, number>;
}> {
  if (s instanceof InProcessSwarm)
    return {
      messages: s.meter.total().messages,
      ...s.meter.connections,
      events: new Map(s.meter.events),
    };
  const out = { messages: 0, opened: 0, closed: 0, events: new Map<string, number>() };
  if (!(s instanceof ShardedSwarm)) return out;
  for (const m of await s.meters()) {
    for (const t of Object.values(m.traffic)) out.messages += t.messages;
    out.opened += m.connections.opened;
    out.closed += m.connections.closed;
    for (const [k, v] of Object.entries(m.events)) out.events.set(k, (out.events.get(k) ?? 0) + v);
  }
  return out;
}

/**
 * Long-lived objects of about `mb` MiB that point at each other, held through the run and never
 * written again (BENCH_BALLAST_MB): a heap as large as a larger swarm's around a smaller swarm,
 * to tell what a message costs for the heap's size from what it costs for the swarm's.
 */
function ballast(mb: number): unknown[] {
  const out: unknown[] = [];
  let chunk: unknown[] = [];
  let prev: { a: unknown; b: unknown; c: number; d: string } | undefined;
  const cells = Math.floor((mb * 2 ** 20) / 64);
  for (let i = 0; i < cells; i++) {
    const cell = { a: prev, b: chunk, c: i, d: 'x' };
    chunk.push(cell);
    if (chunk.length === 1024) {
      out.push(chunk);
      chunk = [];
    }
    prev = i % 7 === 0 ? undefined : cell;
  }
  out.push(chunk);
  return out;
}

async function one(size: number): Promise<void> {
  const text = `
seed 1
index lsh n=20 m=1 seed=bench
timing republish=1h ttl=3h tombstone=6h lookup=60s request=30s ${TIMING}
${PARAMS === '' ? '' : `params ${PARAMS}`}
dataset communities synthetic count=50 size=40 topics=7
dataset users perturb communities count=${searchesAt(size)} keep=0.7
at 0s join ${size}
at +0s create communities
at +0s search users exact concurrency=4
`;
  const file = join(tmpdir(), `bench-sim-${size}.scenario`);
  writeFileSync(file, text);
  removedAtExit(file);
  (globalThis as { ballast?: unknown }).ballast = BALLAST_MB > 0 ? ballast(BALLAST_MB) : undefined;
  prepareMachineSpeed();
  const gc = new GcClock();
  let liveHeapMb = Number.NaN;
  const phases: Record<string, Phase> = {};
  const during: Record<string, Record<string, number>> = {};
  const counts: Partial<Record<'afterJoin' | 'afterSearch', Census>> = {};
  let quarterCounters: (() => { messages: number; opened: number }) | undefined;
  let searchClock: QuarterClock | undefined;
  const report = await runScenario(parseScenario(text, file), {
    file,
    observeProgress: (_text, total) => {
      if (quarterCounters === undefined || searchClock !== undefined) return undefined;
      searchClock = quarterClock(quarterCounters, total);
      return searchClock;
    },
    ...(WORKERS === undefined
      ? {}
      : { swarm: { name: 'workers', can: CAPABILITIES.workers, create: shardedSwarm(WORKERS) } }),
    progress: process.env.BENCH_PROGRESS === '1',
    v8HeapDefaults: V8_HEAP_DEFAULTS,
    aroundCommand: async (command, run, anySwarm) => {
      const swarm = () => {
        const s = anySwarm();
        return s instanceof InProcessSwarm ? s : undefined;
      };
      const m0 = await wire(anySwarm());
      const gc0 = gc.totals();
      const prof = values['cpu-prof'];
      const survivors = values['survivor-prof'] !== undefined;
      const alloc = values['alloc-prof'] ?? values['survivor-prof'];
      const s0 = swarm();
      const sampling = s0 && command !== 'join' ? sampleInternals(s0) : undefined;
      // CPU is read from when the command starts to when it ends: a profiler starting before it
      // (seconds at 10,000 nodes) and writing its profile after it, and the sampler's walks over
      // every node, are the bench's work, not the nodes'.
      let cpuMs = Number.NaN;
      let mainCpuMs = Number.NaN;
      let wallMs = Number.NaN;
      let m1 = m0;
      searchClock = undefined;
      quarterCounters =
        s0 && command === 'search'
          ? () => ({ messages: s0.meter.total().messages, opened: s0.meter.connections.opened })
          : undefined;
      const timed = async () => {
        const cpu0 = process.cpuUsage();
        const main0 = process.threadCpuUsage();
        const wall0 = performance.now();
        await run();
        wallMs = performance.now() - wall0;
        const cpu = process.cpuUsage(cpu0);
        const main = process.threadCpuUsage(main0);
        m1 = await wire(anySwarm());
        const sampled = sampling?.();
        if (sampled) during[command] = sampled.most;
        const own = sampled?.ownCpuMs ?? 0;
        cpuMs = (cpu.user + cpu.system) / 1000 - own;
        mainCpuMs = (main.user + main.system) / 1000 - own;
      };
      // Outside the phase's clock: the machine's speed around the searches, to tell a slower
      // machine from a costlier message when two sizes' children are compared.
      const speed0 = command === 'search' ? machineSpeedMs() : undefined;
      await (command === PHASE && prof
        ? profiled(join(prof, `${PHASE}-${size}.cpuprofile`), timed)
        : command === PHASE && alloc
          ? allocationsSampled(join(alloc, `${PHASE}-${size}.heapprofile`), timed, survivors)
          : timed());
      const speed1 = command === 'search' ? machineSpeedMs() : undefined;
      if (command === PHASE && alloc)
        writeFileSync(join(alloc, `${PHASE}-${size}.messages`), `${m1.messages - m0.messages}\n`);
      phases[command] = {
        cpuMs,
        wallMs,
        mainCpuMs,
        messages: m1.messages - m0.messages,
        opened: m1.opened - m0.opened,
        closed: m1.closed - m0.closed,
        events: Object.fromEntries(
          [...m1.events]
            .map(([k, v]) => [k, v - (m0.events.get(k) ?? 0)])
            .filter(([, v]) => v !== 0),
        ),
        gc: gcDelta(gc.totals(), gc0),
        ...(speed0 && speed1 ? { machineMs: { before: speed0, after: speed1 } } : {}),
        ...quartersOf(command, searchClock as QuarterClock | undefined),
      };
      const s = swarm();
      if (command === 'join') {
        (globalThis as { gc?: () => void }).gc?.();
        liveHeapMb = process.memoryUsage().heapUsed / 2 ** 20;
        // Worker threads have heaps of their own (each collected before it is read).
        const all = anySwarm();
        if (all instanceof ShardedSwarm)
          liveHeapMb += (await all.heapsUsed()).reduce((a, b) => a + b, 0) / 2 ** 20;
        const snap = values['heap-snapshot'];
        if (snap) writeHeapSnapshot(join(snap, `join-${size}.heapsnapshot`));
        if (s) counts.afterJoin = await census(s);
      }
      if (command === 'search' && s) counts.afterSearch = await census(s);
    },
  });
  gc.stop();
  const m = report.metrics;
  const search = report.timeline.find((t) => t.command.includes('search'));
  const create = report.timeline.find((t) => t.command.includes('create'));
  const row: Row = {
    nodes: m['nodes.alive'] ?? 0,
    searches: searchesAt(size),
    ...(WORKERS === undefined ? {} : { workers: WORKERS }),
    peakRssMb: m['memory.peak_rss_mb'] ?? 0,
    liveHeapMb,
    joinS: (m['time.join_ms'] ?? 0) / 1000,
    // The commands' own wall time: the scenario's timeline also holds the bench's counting
    // around them (a census of every node after the searches, the machine's speed).
    createS: (phases.create?.wallMs ?? create?.durationMs ?? 0) / 1000,
    searchesPerS: search
      ? searchesAt(size) / ((phases.search?.wallMs ?? search.durationMs) / 1000)
      : 0,
    top1: m['search.top1_agreement'] ?? Number.NaN,
    lookupHops: m['lookup.hops'] ?? Number.NaN,
    messagesPerSearch: m['messages.per_search'] ?? Number.NaN,
    keysRouted: m['search.keys_routed'] ?? Number.NaN,
    searchMessagesBy: Object.fromEntries(
      Object.entries(m)
        .filter(([k]) => k.startsWith('messages.per_search.'))
        .map(([k, v]) => [k.slice('messages.per_search.'.length), v]),
    ),
    phases,
    afterJoin: counts.afterJoin as Census,
    afterSearch: counts.afterSearch as Census,
    during,
  };
  process.stdout.write(`${JSON.stringify(row)}\n`);
}

/** The searches' quarters, where the clock read them all (bench/phase-quarters.ts). */
const quartersOf = (command: string, clock: QuarterClock | undefined) => {
  const q = command === 'search' ? (clock?.quarters() ?? []) : [];
  return q.length === 4 ? { quarters: q } : {};
};
const perMessage = (p: Phase | undefined) =>
  p === undefined || p.messages === 0 ? Number.NaN : p.cpuMs / p.messages;
/** The fixed work's whole time around a phase, before and after averaged (NaN if not timed). */
const machineSpeed = (p: Phase | undefined) => {
  const m = p?.machineMs;
  if (m === undefined) return Number.NaN;
  return (m.before.cpuMs + m.before.memoryMs + m.after.cpuMs + m.after.memoryMs) / 2;
};
const speedCell = (m: MachineSpeed | undefined) =>
  m === undefined ? '–' : `${m.cpuMs.toFixed(1)} + ${m.memoryMs.toFixed(1)}`;
const fixed = (x: number | undefined, d: number) =>
  x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d);

function printTables(rows: Row[]): void {
  console.log(
    '| nodes | peak RSS (MiB) | live heap after join (MiB) | live heap / node (KiB) | join (s) | 50 creates (s) | searches / s | top-1 agreement | lookup hops | messages / search | keys routed / search | CPU ms / message, creates | CPU ms / message, searches | × the smallest size | fixed work (ms: arithmetic + memory reads), before / after the searches | × the smallest size, at equal machine speed |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const base = perMessage(rows[0]?.phases.search);
  const baseSpeed = machineSpeed(rows[0]?.phases.search);
  for (const x of rows) {
    const s = perMessage(x.phases.search);
    const m = x.phases.search?.machineMs;
    console.log(
      `| ${x.nodes}${x.workers === undefined ? '' : ` (${x.workers} workers)`} | ${x.peakRssMb} | ${fixed(x.liveHeapMb, 0)} | ${fixed((x.liveHeapMb * 1024) / x.nodes, 0)} | ${fixed(x.joinS, 0)} | ${fixed(x.createS, 0)} | ${fixed(x.searchesPerS, 2)} | ${fixed(x.top1, 3)} | ${fixed(x.lookupHops, 2)} | ${fixed(x.messagesPerSearch, 0)} | ${fixed(x.keysRouted, 1)} | ${fixed(perMessage(x.phases.create), 2)} | ${fixed(s, 2)} | ${fixed(s / base, 2)} | ${speedCell(m?.before)} / ${speedCell(m?.after)} | ${fixed(s / base / (machineSpeed(x.phases.search) / baseSpeed), 2)} |`,
    );
  }
  console.log('');
  console.log(
    '| nodes | CPU s: join / creates / searches | messages: creates / searches | messages per search by protocol | connections opened / closed per search | searches: CPU off the main thread | GC pauses in the searches (wall ms) | scavenges / mark-compacts in the searches | connections / node after join (max) | after searches (max) | peer-store entries / node after join (max) | after searches (max) | routing-table entries / node (both DHTs) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const x of rows) {
    const by = Object.entries(x.searchMessagesBy ?? {})
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(', ');
    const { join: j, create: c, search: s } = x.phases;
    // With worker threads the GC clock and the main thread's CPU say nothing of the nodes.
    const gcs = x.workers === undefined ? s?.gc : undefined;
    const offMain =
      s && x.workers === undefined ? (100 * (s.cpuMs - s.mainCpuMs)) / s.cpuMs : Number.NaN;
    console.log(
      `| ${x.nodes} | ${fixed((j?.cpuMs ?? Number.NaN) / 1000, 0)} / ${fixed((c?.cpuMs ?? Number.NaN) / 1000, 0)} / ${fixed((s?.cpuMs ?? Number.NaN) / 1000, 0)} | ${c?.messages ?? '–'} / ${s?.messages ?? '–'} | ${by} | ${fixed(s ? s.opened / x.searches : Number.NaN, 1)} / ${fixed(s ? s.closed / x.searches : Number.NaN, 1)} | ${fixed(offMain, 0)}% | ${fixed(gcs?.ms, 0)} | ${gcs?.minor ?? '–'} / ${gcs?.major ?? '–'} | ${fixed(x.afterJoin?.connections, 0)} (${x.afterJoin?.connectionsMax ?? '–'}) | ${fixed(x.afterSearch?.connections, 0)} (${x.afterSearch?.connectionsMax ?? '–'}) | ${fixed(x.afterJoin?.peerStore, 0)} (${x.afterJoin?.peerStoreMax ?? '–'}) | ${fixed(x.afterSearch?.peerStore, 0)} (${x.afterSearch?.peerStoreMax ?? '–'}) | ${fixed(x.afterSearch?.routingTable, 1)} |`,
    );
  }
}

/** kad-dht's routing-table events per search (both DHTs): pings of new contacts, failures, adds. */
function printEvents(rows: Row[]): void {
  const short = (k: string) => k.replace(/^libp2p_dht_(\w+?)_kad_bucket_events_total:/, '$1 ');
  const keys = [
    ...new Set(
      rows.flatMap((r) =>
        Object.keys(r.phases.search?.events ?? {}).filter((k) => k.includes('kad_bucket_events')),
      ),
    ),
  ].sort();
  if (keys.length === 0) return;
  console.log('');
  console.log(`| nodes | ${keys.map(short).join(' | ')} (per search) |`);
  console.log(`|---|${keys.map(() => '---|').join('')}`);
  for (const x of rows) {
    const ev = x.phases.search?.events ?? {};
    console.log(
      `| ${x.nodes} | ${keys.map((k) => fixed((ev[k] ?? 0) / x.searches, 1)).join(' | ')} |`,
    );
  }
}

/** Each quarter of the searches: CPU per message, and connections opened per search. */
function printQuarters(rows: Row[]): void {
  const withQ = rows.filter((r) => (r.phases.search?.quarters?.length ?? 0) === 4);
  if (withQ.length === 0) return;
  const base = withQ[0]?.phases.search?.quarters?.[3];
  const perMsg = (q: Quarter | undefined) =>
    q && q.messages > 0 ? q.cpuMs / q.messages : Number.NaN;
  console.log('');
  console.log(
    "| nodes | CPU ms / message, searches: quarters 1 / 2 / 3 / 4 of their count | connections opened per search, quarters 1 / 2 / 3 / 4 | last quarter × the smallest size's last |",
  );
  console.log('|---|---|---|---|');
  for (const x of withQ) {
    const qs = x.phases.search?.quarters ?? [];
    const quarter = x.searches / 4;
    console.log(
      `| ${x.nodes} | ${qs.map((q) => fixed(perMsg(q), 3)).join(' / ')} | ${qs.map((q) => fixed(q.opened / quarter, 1)).join(' / ')} | ${fixed(perMsg(qs[3]) / perMsg(base), 2)} |`,
    );
  }
}

/** Largest libp2p / kad-dht queue lengths and abort listeners on a node, while creating / searching. */
function printInternals(rows: Row[]): void {
  printQuarters(rows);
  printEvents(rows);
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r.during?.search ?? {})))];
  if (keys.length === 0) return;
  console.log('');
  console.log(`| nodes | ${keys.join(' | ')} |`);
  console.log(`|---|${keys.map(() => '---|').join('')}`);
  for (const x of rows) {
    const cell = (k: string) => `${x.during?.create?.[k] ?? '–'} / ${x.during?.search?.[k] ?? '–'}`;
    console.log(`| ${x.nodes} | ${keys.map(cell).join(' | ')} |`);
  }
}

if (values.size !== undefined) {
  await one(Number(values.size));
} else {
  console.log(`# bench:sim — ${new Date().toISOString()}\n`);
  const extra = [TIMING === '' ? '' : `timing ${TIMING}`, PARAMS === '' ? '' : `params ${PARAMS}`];
  if (extra.some((x) => x !== '')) {
    console.log(`Scenario with: ${extra.filter((x) => x !== '').join('; ')}\n`);
  }
  if (PER_NODE !== undefined) console.log(`${PER_NODE} searches per node\n`);
  else if (SEARCHES !== 50) console.log(`${SEARCHES} searches per size\n`);
  if (V8_HEAP_DEFAULTS)
    console.log("V8's own rule for when buffers' memory starts a full collection\n");
  const rows: Row[] = [];
  const failed: string[] = [];
  for (const size of SIZES.length > 0 ? SIZES : [100, 500, 1000, 2000]) {
    const r = spawnSync(
      process.execPath,
      [
        `--max-old-space-size=${process.env.BENCH_HEAP_MB ?? 12288}`,
        '--expose-gc',
        ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== ''),
        import.meta.filename,
        '--size',
        String(size),
        ...(values['cpu-prof'] ? ['--cpu-prof', values['cpu-prof']] : []),
        ...(values['alloc-prof'] ? ['--alloc-prof', values['alloc-prof']] : []),
        ...(values['survivor-prof'] ? ['--survivor-prof', values['survivor-prof']] : []),
        ...(values['heap-snapshot'] ? ['--heap-snapshot', values['heap-snapshot']] : []),
        '--prof-phase',
        PHASE,
        '--searches',
        String(searchesAt(size)),
        ...(WORKERS === undefined ? [] : ['--workers', String(WORKERS)]),
        ...(TIMING === '' ? [] : ['--timing', TIMING]),
        ...(PARAMS === '' ? [] : ['--params', PARAMS]),
      ],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 3 * 3_600_000,
      },
    );
    const line = r.stdout.trim().split('\n').pop() ?? '';
    try {
      rows.push(JSON.parse(line) as Row);
      process.stderr.write(`${line}\n`);
    } catch {
      failed.push(`${size} nodes: failed (exit ${r.status ?? r.signal})`);
    }
  }
  printTables(rows);
  printInternals(rows);
  for (const f of failed) console.log(`\n${f}`);
}
