import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { indexKeys, parseProfile } from '../src/index.ts';
import { FIG_4_6_P1, FIG_4_6_P2, FIG_4_7_P1, FIG_4_7_P2 } from './fixtures.ts';
import { PARAGRAPHS } from './profile/fixtures/paragraphs.ts';

const CLI = join(import.meta.dirname, '..', 'src', 'cli.ts');
let dir: string;

function cidx(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    input,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cidx-cli-'));
  writeFileSync(join(dir, 'p1.json'), JSON.stringify(FIG_4_6_P1));
  writeFileSync(join(dir, 'p2.json'), JSON.stringify(FIG_4_6_P2));
  writeFileSync(join(dir, 'm1.json'), JSON.stringify(FIG_4_7_P1));
  writeFileSync(join(dir, 'm2.json'), JSON.stringify(FIG_4_7_P2));
  writeFileSync(join(dir, 'a.txt'), 'The violinist waited for the orchestra. Violins waiting.');
  writeFileSync(join(dir, 'b.txt'), 'An orchestra of violins.');
  const topicA = 'violin orchestra symphony concerto';
  const topicB = 'football stadium goalkeeper league';
  const lines = [
    ...Array.from({ length: 4 }, () => ({ user: 'u1', text: topicA })),
    ...Array.from({ length: 4 }, () => ({ user: 'u1', text: topicB })),
    { user: 'u2', title: 'Opera', keywords: ['Verdi', 'Rigoletto'], text: 'An opera by Verdi.' },
  ];
  writeFileSync(join(dir, 'docs.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
});

describe('cidx profile build', () => {
  it('builds a weighted vector from text files', () => {
    const r = cidx(['profile', 'build', 'a.txt', 'b.txt']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const p = parseProfile(JSON.parse(r.out));
    // violin in both docs (2, 2), orchestra in both, wait only in a.txt (2 / 2 = 1)
    expect(Object.fromEntries(p.weights)).toEqual({
      orchestra: 2,
      violin: 2,
      violinist: 1,
      wait: 1,
    });
  });

  it('builds one profile per user, and interests as JSON Lines', () => {
    const grouped = cidx([
      'profile',
      'build',
      '--group-by',
      'user',
      '--kind',
      'matrix',
      'docs.jsonl',
    ]);
    expect(grouped.code).toBe(0);
    const rows = grouped.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.id)).toEqual(['u1', 'u2']);
    expect(parseProfile(rows[1]).weight('verdi')).toBe(3);
    const inter = cidx([
      'profile',
      'build',
      '--group-by',
      'user',
      '--kind',
      'interests',
      '--min-size',
      '4',
      'docs.jsonl',
    ]);
    const parts = inter.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(parts.map((p) => [p.id, p.interest, Object.keys(p.weights).length])).toEqual([
      ['u1', 0, 4],
      ['u1', 1, 4],
    ]);
  });

  it('reads stdin and writes the output file atomically', () => {
    const r = cidx(['profile', 'build', '-o', 'out.json', '-'], 'Stemming stems stemmed words.');
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8')).weights).toHaveProperty('stem');
    const bad = cidx(['profile', 'build', '-o', join(dir, 'no-such-dir', 'x.json'), 'a.txt']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/cannot write/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('fails with one line and exit 2 on a bad flag, exit 1 on bad data', () => {
    const flag = cidx(['profile', 'build', '--top', 'lots', 'a.txt']);
    expect(flag.code).toBe(2);
    expect(flag.err.trim().split('\n')).toHaveLength(1);
    expect(flag.err).toMatch(/--top <n>.*must be an integer/);
    writeFileSync(join(dir, 'bad.jsonl'), '{"text": "ok"}\n{"title": 3, "text": "x"}\n');
    const data = cidx(['profile', 'build', 'bad.jsonl']);
    expect(data.code).toBe(1);
    expect(data.err).toBe('cidx: bad.jsonl:2: title: must be a string\n');
    const missing = cidx(['profile', 'build', 'nope.txt']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope.txt: cannot read \(ENOENT\)/);
  });
});

describe('cidx profile build in the language of the documents', () => {
  const FIXTURES = join(import.meta.dirname, 'profile', 'fixtures');
  const jsonl = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

  beforeAll(() => {
    writeFileSync(
      join(dir, 'mixed.jsonl'),
      jsonl([...PARAGRAPHS.it, ...PARAGRAPHS.en].map((text) => ({ text }))),
    );
    writeFileSync(join(dir, 'it.jsonl'), jsonl(PARAGRAPHS.it.map((text) => ({ text }))));
    writeFileSync(
      join(dir, 'users.jsonl'),
      jsonl([
        ...PARAGRAPHS.it.slice(0, 3).map((text) => ({ user: 'u1', text })),
        { user: 'u1', text: 'Filtri rotti' },
        { user: 'u2', text: 'Filtri rotti' },
      ]),
    );
  });

  it('builds an English profile byte-identical to the one built before languages were told apart', () => {
    for (const kind of ['vector', 'matrix']) {
      const r = cidx([
        'profile',
        'build',
        '--verbose',
        '--kind',
        kind,
        join(FIXTURES, 'english-docs.jsonl'),
      ]);
      expect(r.code).toBe(0);
      expect(r.err).toBe('languages: en 8\n');
      expect(r.out).toBe(readFileSync(join(FIXTURES, `english-${kind}.jsonl`), 'utf8'));
    }
  });

  it('analyses a mixed collection per language and says so with --verbose', () => {
    const r = cidx(['profile', 'build', '--verbose', 'mixed.jsonl']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('languages: it 8, en 6\n');
    const p = parseProfile(JSON.parse(r.out));
    for (const t of ['filtr', 'vasc', 'bee', 'hive']) expect(p.has(t)).toBe(true);
    for (const t of ['filtro', 'filtri', 'di', 'che']) expect(p.has(t)).toBe(false);
  });

  it('--lang overrides detection', () => {
    const r = cidx(['profile', 'build', '--verbose', '--lang', 'en', 'it.jsonl']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('languages: en 8\n');
    const p = parseProfile(JSON.parse(r.out));
    expect(p.has('filtro') && p.has('filtri') && p.has('di')).toBe(true);
    const it = parseProfile(
      JSON.parse(cidx(['profile', 'build', '--lang', 'it', '-'], 'Filtri rotti').out),
    );
    expect([...it.attributes()].sort()).toEqual(['filtr', 'rott']);
  });

  it('gives a document too short to detect the most common language of its group, else English', () => {
    const r = cidx(['profile', 'build', '--verbose', '--group-by', 'user', 'users.jsonl']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('u1: languages: it 4 (1 undetected)\nu2: languages: en 1 (1 undetected)\n');
    const [u1, u2] = r.out
      .trim()
      .split('\n')
      .map((l) => parseProfile(JSON.parse(l)));
    expect(u1?.has('rott') && !u1.has('filtri')).toBe(true);
    expect([...(u2?.attributes() ?? [])].sort()).toEqual(['filtri', 'rotti']);
  });

  it('rejects a bad lang field naming file:line (exit 1), and a bad --lang (exit 2)', () => {
    writeFileSync(
      join(dir, 'bad-lang.jsonl'),
      jsonl([
        { text: 'ok', lang: 'it' },
        { text: 'x', lang: 'italiano' },
      ]),
    );
    const data = cidx(['profile', 'build', 'bad-lang.jsonl']);
    expect(data.code).toBe(1);
    expect(data.err).toBe(
      'cidx: bad-lang.jsonl:2: lang: must be an ISO 639-1 language code in lower case, such as "en" or "it"\n',
    );
    const flag = cidx(['profile', 'build', '--lang', 'xx', 'it.jsonl']);
    expect(flag.code).toBe(2);
    expect(flag.err.trim().split('\n')).toHaveLength(1);
    expect(flag.err).toMatch(/--lang <code>.*must be "auto" or an ISO 639-1 language code/);
  });
});

describe('cidx profile check / compare / keys', () => {
  it('checks profiles and names the bad field with file:line', () => {
    writeFileSync(join(dir, 'set.jsonl'), `${JSON.stringify(FIG_4_6_P1)}\n{"weights":{"x":0}}\n`);
    const r = cidx(['profile', 'check', 'set.jsonl']);
    expect(r.code).toBe(1);
    expect(r.err).toBe('cidx: set.jsonl:2: weights["x"]: must be a finite number > 0\n');
    expect(JSON.parse(cidx(['profile', 'check', 'p1.json', 'm1.json']).out)).toEqual({
      ok: true,
      profiles: 2,
    });
  });

  it('compares with metric 4.1 or 4.2 (thesis figs 4.6 and 4.7)', () => {
    expect(JSON.parse(cidx(['profile', 'compare', 'p1.json', 'p2.json']).out)).toEqual({
      similarity: 0.3575,
      metric: '4.1',
      jaccard: 0.4,
    });
    expect(JSON.parse(cidx(['profile', 'compare', 'm1.json', 'm2.json']).out).similarity).toBe(
      0.53625,
    );
  });

  it('prints the same keys in a fresh process as the library computes here', () => {
    const r = cidx([
      'profile',
      'keys',
      'p1.json',
      '--lsh-n',
      '5',
      '--lsh-m',
      '2',
      '--lsh-seed',
      'swarm',
      '--lsh-family',
      'thesis',
    ]);
    expect(r.code).toBe(0);
    const here = indexKeys(parseProfile(FIG_4_6_P1), {
      mode: 'lsh',
      n: 5,
      m: 2,
      seed: 'swarm',
      family: 'thesis',
    });
    expect(JSON.parse(r.out).keys).toEqual(here.map((k) => Buffer.from(k).toString('hex')));
    const attr = JSON.parse(cidx(['profile', 'keys', 'p1.json', '--index', 'attribute']).out);
    expect(attr.keys).toHaveLength(4);
    expect(cidx(['profile', 'keys', 'p1.json', '--lsh-bits', '12']).code).toBe(2);
  });
});
