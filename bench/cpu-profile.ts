/**
 * node bench/cpu-profile.ts <file.cpuprofile> [--top 30] [--callers <text> [--depth 6]]
 *                                        [--inside <text>] [--compare <other.cpuprofile>]
 * Summarises a V8 CPU profile (from `node --cpu-prof` or `bench:baseline --cpu-prof`) as
 * markdown, or in the same tables a sampling heap profile (`bench:sim --alloc-prof`: bytes
 * allocated instead of time, and per message when a <name>.messages file lies beside it): where the time went by package, the functions with the most self time, and the
 * share spent in cidx's own code. --callers lists the call chains (--depth frames deep) into
 * the functions whose name or file contains <text>; --inside gives the share of the time spent
 * in such functions and everything they call (comma-separated texts: one line each).
 * --compare puts a second profile (e.g. the same workload on a larger swarm) beside the first:
 * each row's share in both and their ratio, rows ordered by how much share they gained, so what
 * grows with the swarm comes first. DevTools shows the same profile as a flame chart; these
 * tables are what docs/BENCHMARKS.md records.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
/** A sampling heap profile: a tree whose nodes carry the bytes allocated in them. */
interface HeapNode {
  id: number;
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    callers: { type: 'string' },
    depth: { type: 'string', default: '6' },
    inside: { type: 'string' },
    compare: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help || positionals.length !== 1) {
  (values.help ? process.stdout : process.stderr).write(
    'usage: node bench/cpu-profile.ts <file.cpuprofile> [--top 30] [--callers <text> [--depth 6]] [--inside <text>[,<text>…]] [--compare <other.cpuprofile>]\n',
  );
  process.exit(values.help ? 0 : 2);
}

/** The package a frame belongs to: an npm package, a node: module, cidx's own folder, or V8. */
function packageOf(url: string, fn: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const [a, b] = url.slice(nm + 'node_modules/'.length).split('/');
    return a?.startsWith('@') ? `${a}/${b}` : (a as string);
  }
  if (url.startsWith('node:')) return url;
  if (url === '') return `(${fn || 'V8'})`;
  const m = /\/(src|sim|bench)\/([^/]+)/.exec(url);
  return m ? `cidx ${m[1]}/${m[2]}` : url;
}
const where = (f: CallFrame) => `${f.url.split('/').at(-1)}:${f.lineNumber + 1}`;
const name = (f: CallFrame) => f.functionName || '(anonymous)';
const add = (m: Map<string, number>, k: string, t: number) => m.set(k, (m.get(k) ?? 0) + t);

class Summary {
  readonly nodes: Map<number, ProfileNode>;
  readonly parent = new Map<number, number>();
  readonly selfTime = new Map<number, number>();
  readonly byPackage = new Map<string, number>();
  readonly byFunction = new Map<string, number>();
  readonly total: number;
  /** Bytes allocated rather than µs of CPU. */
  readonly bytes: boolean;
  /** Messages sent while the profile ran, when known (allocation profiles of bench:sim). */
  readonly messages: number | undefined;
  own = 0;

  constructor(file: string) {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Profile | { head: HeapNode };
    this.bytes = 'head' in json;
    if ('head' in json) {
      this.nodes = new Map();
      const visit = (n: HeapNode) => {
        this.nodes.set(n.id, { id: n.id, callFrame: n.callFrame });
        if (n.selfSize > 0) this.selfTime.set(n.id, n.selfSize);
        for (const c of n.children) {
          this.parent.set(c.id, n.id);
          visit(c);
        }
      };
      visit(json.head);
    } else {
      this.nodes = new Map(json.nodes.map((n) => [n.id, n]));
      for (const n of json.nodes) for (const c of n.children ?? []) this.parent.set(c, n.id);
      json.samples.forEach((id, i) => {
        add(this.selfTime as Map<never, number>, id as never, json.timeDeltas[i] ?? 0);
      });
    }
    const count = file.replace(/\.[a-z]+$/, '.messages');
    this.messages = existsSync(count) ? Number(readFileSync(count, 'utf8')) : undefined;
    this.total = [...this.selfTime.values()].reduce((a, b) => a + b, 0);
    for (const [id, t] of this.selfTime) {
      const f = this.frame(id);
      const pkg = packageOf(f.url, f.functionName);
      add(this.byPackage, pkg, t);
      add(this.byFunction, `${name(f)} (${pkg}, ${where(f)})`, t);
      if (pkg.startsWith('cidx ')) this.own += t;
    }
  }

  frame(id: number): CallFrame {
    return (this.nodes.get(id) as ProfileNode).callFrame;
  }

  share(t: number): number {
    return t / this.total;
  }

  /** What was sampled, in words: seconds of CPU or megabytes allocated (and per message). */
  describe(): string {
    if (!this.bytes) return `${(this.total / 1e6).toFixed(1)} s sampled`;
    const per = this.messages ? `, ${kib(this.total / this.messages)} per message` : '';
    return `${(this.total / 2 ** 20).toFixed(0)} MiB allocated${per}`;
  }

  /** Time in samples with a frame matching `text` anywhere on their stack, each counted once. */
  inside(text: string): number {
    let t = 0;
    for (const [id, st] of this.selfTime) {
      for (let p: number | undefined = id; p !== undefined; p = this.parent.get(p)) {
        const f = this.frame(p);
        if (`${f.functionName} ${f.url}`.includes(text)) {
          t += st;
          break;
        }
      }
    }
    return t;
  }

  callers(text: string, depth: number): Map<string, number> {
    const chains = new Map<string, number>();
    for (const [id, t] of this.selfTime) {
      const f = this.frame(id);
      if (!`${f.functionName} ${f.url}`.includes(text)) continue;
      const chain: string[] = [];
      for (
        let p = this.parent.get(id);
        p !== undefined && chain.length < depth;
        p = this.parent.get(p)
      ) {
        const pf = this.frame(p);
        chain.push(`${name(pf)}@${where(pf)}`);
      }
      add(chains, chain.join(' < '), t);
    }
    return chains;
  }
}

const pct = (share: number) => `${(100 * share).toFixed(1)}%`;
const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;

function table(s: Summary, title: string, rows: Map<string, number>, limit: number): string[] {
  const sorted = [...rows].sort((a, b) => b[1] - a[1]).slice(0, limit);
  return [
    `| ${title} | self ${s.bytes ? 'allocations' : 'time'} |`,
    '|---|---|',
    ...sorted.map(([k, t]) => `| ${k} | ${pct(s.share(t))} |`),
    '',
  ];
}

/** Rows of both profiles, ordered by the share gained from the first to the second. */
function sideBySide(
  a: Summary,
  b: Summary,
  title: string,
  rowsA: Map<string, number>,
  rowsB: Map<string, number>,
  limit: number,
): string[] {
  const keys = new Set([...rowsA.keys(), ...rowsB.keys()]);
  const rows = [...keys].map((k) => {
    const sa = a.share(rowsA.get(k) ?? 0);
    const sb = b.share(rowsB.get(k) ?? 0);
    return { k, sa, sb };
  });
  rows.sort((x, y) => y.sb - y.sa - (x.sb - x.sa));
  const ratio = (r: { sa: number; sb: number }) =>
    r.sa === 0 ? '–' : `${(r.sb / r.sa).toFixed(2)}×`;
  const ma = a.messages;
  const mb = b.messages;
  if (a.bytes && b.bytes && ma && mb) {
    // Per message, what grows is what each message allocates more of, whatever the shares.
    const per = (r: { sa: number; sb: number }) => ({
      pa: (r.sa * a.total) / ma,
      pb: (r.sb * b.total) / mb,
    });
    rows.sort((x, y) => per(y).pb - per(y).pa - (per(x).pb - per(x).pa));
    return [
      `| ${title} | first, per message | second, per message | second / first |`,
      '|---|---|---|---|',
      ...rows.slice(0, limit).map((r) => {
        const { pa, pb } = per(r);
        const x = pa === 0 ? '–' : `${(pb / pa).toFixed(2)}×`;
        return `| ${r.k} | ${kib(pa)} | ${kib(pb)} | ${x} |`;
      }),
      '',
    ];
  }
  return [
    `| ${title} | first | second | second / first |`,
    '|---|---|---|---|',
    ...rows.slice(0, limit).map((r) => `| ${r.k} | ${pct(r.sa)} | ${pct(r.sb)} | ${ratio(r)} |`),
    '',
  ];
}

const first = new Summary(positionals[0] as string);
const top = Number(values.top);
const out: string[] = [];
if (values.compare === undefined) {
  out.push(
    `${first.describe()}; self ${first.bytes ? 'allocations' : 'time'} in cidx's own code: ${pct(first.share(first.own))}.`,
    '',
    ...table(first, 'package', first.byPackage, top),
    ...table(first, 'function', first.byFunction, top),
  );
  if (values.callers !== undefined) {
    const chains = first.callers(values.callers, Number(values.depth));
    out.push(...table(first, `callers of ${values.callers}`, chains, 15));
  }
  for (const text of values.inside?.split(',') ?? []) {
    out.push(`inside ${text}: ${pct(first.share(first.inside(text)))}`);
  }
} else {
  const second = new Summary(values.compare);
  out.push(
    `first: ${first.describe()}; second: ${second.describe()}. Shares of each profile's samples (or, for two allocation profiles with their messages, bytes per message), rows ordered by what they gained.`,
    '',
    ...sideBySide(first, second, 'package', first.byPackage, second.byPackage, top),
    ...sideBySide(first, second, 'function', first.byFunction, second.byFunction, top),
  );
  if (values.callers !== undefined) {
    const d = Number(values.depth);
    const ca = first.callers(values.callers, d);
    const cb = second.callers(values.callers, d);
    out.push(...sideBySide(first, second, `callers of ${values.callers}`, ca, cb, 15));
  }
  if (values.inside !== undefined) {
    const ma = first.bytes && second.bytes ? first.messages : undefined;
    const mb = second.messages;
    const perMessage = ma !== undefined && mb !== undefined;
    out.push(
      `| inside | first${perMessage ? ', per message' : ''} | second${perMessage ? ', per message' : ''} | second / first |`,
      '|---|---|---|---|',
    );
    for (const text of values.inside.split(',')) {
      if (perMessage) {
        const pa = first.inside(text) / ma;
        const pb = second.inside(text) / mb;
        out.push(`| ${text} | ${kib(pa)} | ${kib(pb)} | ${(pb / pa).toFixed(2)}× |`);
        continue;
      }
      const sa = first.share(first.inside(text));
      const sb = second.share(second.inside(text));
      out.push(`| ${text} | ${pct(sa)} | ${pct(sb)} | ${(sb / sa).toFixed(2)}× |`);
    }
  }
}
process.stdout.write(`${out.join('\n')}\n`);
