/**
 * node bench/cpu-profile.ts <file.cpuprofile> [--top 30] [--callers <text> [--depth 6]]
 *                                        [--inside <text>]
 * Summarises a V8 CPU profile (from `node --cpu-prof` or `bench:baseline --cpu-prof`) as
 * markdown: where the time went by package, the functions with the most self time, and the
 * share spent in cidx's own code. --callers lists the call chains (--depth frames deep) into
 * the functions whose name or file contains <text>; --inside gives the share of the time spent
 * in such functions and everything they call (comma-separated texts: one line each). DevTools
 * shows the same profile as a flame chart; these tables are what docs/BENCHMARKS.md records.
 */
import { readFileSync } from 'node:fs';
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

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    callers: { type: 'string' },
    depth: { type: 'string', default: '6' },
    inside: { type: 'string' },
  },
});
if (positionals.length !== 1) {
  process.stderr.write(
    'usage: node bench/cpu-profile.ts <file.cpuprofile> [--top 30] [--callers <text> [--depth 6]] [--inside <text>[,<text>…]]\n',
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0] as string, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
const pct = (t: number) => `${((100 * t) / total).toFixed(1)}%`;

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

function table(title: string, rows: Map<string, number>, limit: number): string[] {
  const sorted = [...rows].sort((a, b) => b[1] - a[1]).slice(0, limit);
  return [
    `| ${title} | self time |`,
    '|---|---|',
    ...sorted.map(([k, t]) => `| ${k} | ${pct(t)} |`),
    '',
  ];
}
const add = (m: Map<string, number>, k: string, t: number) => m.set(k, (m.get(k) ?? 0) + t);

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
let own = 0;
for (const [id, t] of selfTime) {
  const f = (nodes.get(id) as ProfileNode).callFrame;
  const pkg = packageOf(f.url, f.functionName);
  add(byPackage, pkg, t);
  add(byFunction, `${name(f)} (${pkg}, ${where(f)})`, t);
  if (pkg.startsWith('cidx ')) own += t;
}
const top = Number(values.top);
const out = [
  `${(total / 1e6).toFixed(1)} s sampled; self time in cidx's own code: ${pct(own)}.`,
  '',
  ...table('package', byPackage, top),
  ...table('function', byFunction, top),
];

if (values.callers !== undefined) {
  const text = values.callers;
  const chains = new Map<string, number>();
  for (const [id, t] of selfTime) {
    const f = (nodes.get(id) as ProfileNode).callFrame;
    if (!`${f.functionName} ${f.url}`.includes(text)) continue;
    const chain: string[] = [];
    for (
      let p = parent.get(id);
      p !== undefined && chain.length < Number(values.depth);
      p = parent.get(p)
    ) {
      const pf = (nodes.get(p) as ProfileNode).callFrame;
      chain.push(`${name(pf)}@${where(pf)}`);
    }
    add(chains, chain.join(' < '), t);
  }
  out.push(...table(`callers of ${text}`, chains, 15));
}
if (values.inside !== undefined) {
  // Total time: samples with a matching frame anywhere on their stack, each counted once.
  for (const text of values.inside.split(',')) {
    let t = 0;
    for (const [id, st] of selfTime) {
      for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) {
        const f = (nodes.get(p) as ProfileNode).callFrame;
        if (`${f.functionName} ${f.url}`.includes(text)) {
          t += st;
          break;
        }
      }
    }
    out.push(`inside ${text}: ${pct(t)}`);
  }
}
process.stdout.write(`${out.join('\n')}\n`);
