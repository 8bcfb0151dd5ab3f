import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tuneLsh } from '../../src/index.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

function cidx(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('cidx tune', () => {
  it('prints the choice, the curve it chose from and the S-curve', () => {
    const r = cidx(['tune', '--threshold', '0.5']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const { chosen } = tuneLsh({ threshold: 0.5 });
    expect(r.out).toContain(`chosen: n = ${chosen.n} bands, m = ${chosen.m} rows`);
    expect(r.out).toContain(`FP         ${chosen.falsePositive.toFixed(6)}`);
    expect(r.out).toContain(`objective  ${chosen.objective.toFixed(6)}`);
    expect(r.out).toContain(
      `${chosen.n} DHT lookups per search, ${chosen.n} stored copies per profile`,
    );
    const lines = r.out.split('\n');
    const head = lines.findIndex((l) => l.includes('FP        FN     error'));
    const rows = lines.slice(head + 1, head + 33);
    expect(rows.map((l) => Number(l.slice(1).trim().split(/\s+/)[0]))).toEqual(
      Array.from({ length: 32 }, (_, i) => i + 1),
    );
    expect(rows.filter((l) => l.startsWith('*'))).toHaveLength(1);
    expect(rows[chosen.n - 1]?.startsWith('*')).toBe(true);
    expect(r.out).toContain(`S-curve P(s) = 1 − (1 − s^${chosen.m})^${chosen.n}:`);
    expect(r.out).toContain('  0.00  0.0000\n');
    expect(r.out).toMatch(/ {2}1\.00 {2}1\.0000\n$/);
  });

  it('prints the same content as JSON with --json', () => {
    const r = cidx([
      'tune',
      '--threshold',
      '0.7',
      '--fp-weight',
      '0.1',
      '--fn-weight',
      '0.9',
      '--band-cost',
      '0',
      '--max-bands',
      '10',
      '--max-rows',
      '4',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    const expected = tuneLsh({
      threshold: 0.7,
      falsePositiveWeight: 0.1,
      falseNegativeWeight: 0.9,
      bandCost: 0,
      maxBands: 10,
      maxRows: 4,
    });
    expect(out).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(out.curve).toHaveLength(10);
    expect(out.sCurve).toHaveLength(21);
  });

  it('fails with one line and exit 2 on bad input', () => {
    const cases: [string[], RegExp][] = [
      [[], /--threshold/],
      [['--threshold', '1'], /\(0, 1\)/],
      [['--threshold', '0'], /\(0, 1\)/],
      [['--threshold', 'x'], /\(0, 1\)/],
      [['--threshold', '0.5', '--fp-weight', '-1'], /--fp-weight/],
      [['--threshold', '0.5', '--fn-weight', 'Infinity'], /--fn-weight/],
      [['--threshold', '0.5', '--fp-weight', '0', '--fn-weight', '0'], /both be 0/],
      [['--threshold', '0.5', '--band-cost', '-0.001'], /--band-cost/],
      [['--threshold', '0.5', '--max-bands', '0'], /--max-bands.*\[1, 1024\]/],
      [['--threshold', '0.5', '--max-bands', '1025'], /--max-bands/],
      [['--threshold', '0.5', '--max-rows', '65'], /--max-rows.*\[1, 64\]/],
      [['--threshold', '0.5', '--max-rows', '2.5'], /--max-rows/],
    ];
    for (const [args, message] of cases) {
      const r = cidx(['tune', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/^cidx: /);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(message);
    }
  });

  it('has --help with an example', () => {
    const r = cidx(['tune', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('cidx tune --threshold 0.5');
    expect(r.out).toContain('--band-cost');
  });
});
