/**
 * node bench/heap-owners.ts FILE.heapsnapshot [--per N] [--top K] [--owner NAME] [--by-type]
 *
 * What holds a V8 heap snapshot's bytes (e.g. bench:sim --heap-snapshot DIR, after the join), per
 * simulated node when `--per N` gives the node count. Each object is charged to its owner: the
 * first object of a class of its own (not Object, Array, Map, a closure's context, a typed array
 * …) found by walking up from it through the first reference that holds it, at most 10 steps.
 * That is not V8's retained size (an object two owners share is charged to one), but it adds up
 * to the snapshot's total and says which part of a node holds what, which is what a change of
 * memory needs. `--owner NAME` lists, for that owner alone, its objects by type and by the
 * path from the owner; `--by-type` lists the objects by type and name instead of by owner.
 *
 * Why by hand: Chrome's DevTools read snapshots of this size (1–3 GB at 1000 nodes) slowly or not
 * at all, and no npm package reads one without holding its JSON as one string, which V8 caps at
 * 512 MiB. This reads the file's bytes and parses the arrays it needs.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseArgs } from 'node:util';

const USAGE = `Usage: node bench/heap-owners.ts FILE.heapsnapshot [--per N] [--top K] [--owner NAME] [--by-type]
  --per N      divide by N (the simulated nodes) and print per node
  --top K      rows to print (default 40)
  --owner NAME one owner's objects, by type and path
  --by-type    objects by type and name, not by owner
`;

/** Classes that hold others' data rather than being a part of a node themselves. */
const GENERIC = new Set([
  '',
  'Object',
  'Array',
  'Map',
  'Set',
  'WeakMap',
  'WeakRef',
  'Promise',
  'Listener',
  'Uint8Array',
  'Uint32Array',
  'ArrayBuffer',
  'Digest',
  'Multiaddr',
  'Ed25519PeerId',
  'Ed25519PublicKey',
  '(object elements)',
  '(object properties)',
]);
const MAX_STEPS = 10;

interface Snapshot {
  nodeFields: string[];
  nodeTypes: string[];
  edgeFields: string[];
  edgeTypes: string[];
  nodes: Int32Array;
  edges: Int32Array;
  strings: string[];
}

function read(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(size);
    for (let off = 0; off < size; )
      off += readSync(fd, buf, off, Math.min(2 ** 30, size - off), off);
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** The integers of the JSON array starting at `from` (just past its '['), up to its ']'. */
function ints(buf: Buffer, from: number, count: number): { values: Int32Array; end: number } {
  const values = new Int32Array(count);
  let w = 0;
  let n = 0;
  let inNumber = false;
  let i = from;
  for (; i < buf.length; i++) {
    const c = buf[i] as number;
    if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      inNumber = true;
    } else {
      if (inNumber) values[w++] = n;
      n = 0;
      inNumber = false;
      if (c === 93) break;
    }
  }
  return { values: values.subarray(0, w), end: i };
}

function parse(buf: Buffer): Snapshot {
  const nodesAt = buf.indexOf('"nodes":[');
  const head = buf.subarray(0, nodesAt).toString();
  const metaAt = head.indexOf('{"meta"');
  let depth = 0;
  let metaEnd = metaAt;
  for (; metaEnd < head.length; metaEnd++) {
    if (head[metaEnd] === '{') depth++;
    else if (head[metaEnd] === '}' && --depth === 0) break;
  }
  const meta = JSON.parse(head.slice(metaAt, metaEnd + 1)) as {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
    node_count: number;
    edge_count: number;
  };
  const m = meta.meta;
  const nodes = ints(buf, nodesAt + 9, meta.node_count * m.node_fields.length);
  const edgesAt = buf.indexOf('"edges":[', nodes.end) + 9;
  const edges = ints(buf, edgesAt, meta.edge_count * m.edge_fields.length);
  const strings: string[] = [];
  let i = buf.indexOf('"strings":[', edges.end) + 11;
  for (;;) {
    while (buf[i] !== 34 && buf[i] !== 93) i++;
    if (buf[i] === 93) break;
    let j = i + 1;
    while (buf[j] !== 34) j += buf[j] === 92 ? 2 : 1;
    strings.push(JSON.parse(buf.subarray(i, j + 1).toString()) as string);
    i = j + 1;
  }
  return {
    nodeFields: m.node_fields,
    nodeTypes: m.node_types[0],
    edgeFields: m.edge_fields,
    edgeTypes: m.edge_types[0],
    nodes: nodes.values,
    edges: edges.values,
    strings,
  };
}

/** Each object's first strong holder and the name of the reference (-1: none; -2: an index). */
function holders(s: Snapshot): { by: Int32Array; via: Int32Array } {
  const nf = s.nodeFields.length;
  const ef = s.edgeFields.length;
  const count = s.nodes.length / nf;
  const edgeCount = s.nodeFields.indexOf('edge_count');
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) =>
    s.edgeFields.indexOf(f),
  );
  const by = new Int32Array(count).fill(-1);
  const via = new Int32Array(count).fill(-1);
  let e = 0;
  for (let n = 0; n < count; n++) {
    const end = e + (s.nodes[n * nf + edgeCount] as number) * ef;
    for (; e < end; e += ef) {
      const t = s.edgeTypes[s.edges[e + (eType as number)] as number];
      if (t === 'weak' || t === 'shortcut') continue;
      const to = (s.edges[e + (eTo as number)] as number) / nf;
      if (by[to] !== -1) continue;
      by[to] = n;
      via[to] = t === 'element' || t === 'hidden' ? -2 : (s.edges[e + (eName as number)] as number);
    }
  }
  return { by, via };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      per: { type: 'string', default: '1' },
      top: { type: 'string', default: '40' },
      owner: { type: 'string' },
      'by-type': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const file = positionals[0];
  const per = Number(values.per);
  const top = Number(values.top);
  if (values.help || file === undefined || !(per >= 1) || !(top >= 1)) {
    process.stdout.write(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const s = parse(read(file));
  const nf = s.nodeFields.length;
  const [iType, iName, iSelf] = ['type', 'name', 'self_size'].map((f) =>
    s.nodeFields.indexOf(f),
  ) as [number, number, number];
  const type = (n: number) => s.nodeTypes[s.nodes[n * nf + iType] as number] ?? '?';
  const name = (n: number) => {
    const t = type(n);
    if (t.includes('string')) return '(string)';
    if (t === 'code') return '(code)';
    return (s.strings[s.nodes[n * nf + iName] as number] ?? '').slice(0, 48);
  };
  const named = (n: number) =>
    (type(n) === 'object' || type(n) === 'native') &&
    !GENERIC.has(name(n)) &&
    !name(n).startsWith('system /');
  const count = s.nodes.length / nf;
  const { by, via } = values['by-type'] ? { by: undefined, via: undefined } : holders(s);
  const rows = new Map<string, { objects: number; bytes: number }>();
  let total = 0;
  for (let n = 0; n < count; n++) {
    const self = s.nodes[n * nf + iSelf] as number;
    total += self;
    let key = `${type(n)}: ${name(n)}`;
    if (by !== undefined && via !== undefined) {
      let at = n;
      let owner = '(none)';
      const path: string[] = [];
      for (let step = 0; step < MAX_STEPS; step++) {
        const h = by[at] as number;
        if (h < 0) {
          owner = '(root)';
          break;
        }
        const v = via[at] as number;
        path.push(v < 0 ? '[]' : (s.strings[v] ?? '').replace(/^\d+$/, '#'));
        if (named(h)) {
          owner = name(h);
          break;
        }
        at = h;
      }
      if (values.owner !== undefined) {
        if (owner !== values.owner) continue;
        key = `${key}  ← .${path.reverse().slice(0, 3).join('.')}`;
      } else key = owner;
    }
    const r = rows.get(key) ?? { objects: 0, bytes: 0 };
    r.objects++;
    r.bytes += self;
    rows.set(key, r);
  }
  const kib = (b: number) => (b / per / 1024).toFixed(1);
  const unit = per === 1 ? '' : ' a node';
  console.log(
    `${file}: ${(total / 2 ** 20).toFixed(1)} MiB in ${count} objects; ${kib(total)} KiB and ${Math.round(count / per)} objects${unit}`,
  );
  console.log('');
  console.log(
    `| KiB${unit} | objects${unit} | ${values['by-type'] ? 'type: name' : values.owner ? `${values.owner}'s objects, by type and path` : 'owner'} |`,
  );
  console.log('|---|---|---|');
  for (const [k, r] of [...rows].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
    console.log(
      `| ${kib(r.bytes)} | ${(r.objects / per).toFixed(per === 1 ? 0 : 1)} | ${k.replaceAll('|', '\\|')} |`,
    );
  }
}

main();
