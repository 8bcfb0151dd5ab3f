/** `expect <metric> <op> <number>` and `report`: checking and writing the metrics mid-run. */
import type { Op, StatementSpec } from '../language.ts';

const OPS: readonly Op[] = ['<', '<=', '==', '>=', '>'];

export const expectStatement: StatementSpec<{
  kind: 'expect';
  metric: string;
  op: Op;
  value: number;
}> = {
  word: 'expect',
  parse(p) {
    const metric = p.word('a metric name');
    if (!/^[a-z0-9_.-]+$/i.test(metric)) p.fail(`"${metric}" is not a metric name`);
    const op = p.word('an operator');
    const known =
      OPS.find((o) => o === op) ?? p.fail(`operator must be one of < <= == >= >, not "${op}"`);
    return { kind: 'expect', metric, op: known, value: p.number('the expected value') };
  },
  async run(s, run) {
    const actual = (await run.metrics())[s.metric];
    const pass = actual !== undefined && compare(actual, s.op, s.value);
    run.expects.push({
      line: s.line,
      text: s.text,
      metric: s.metric,
      op: s.op,
      value: s.value,
      actual: actual ?? null,
      pass,
    });
    run.log(`line ${s.line}: ${s.text} → ${actual ?? 'no such metric'} ${pass ? 'PASS' : 'FAIL'}`);
  },
};

export const report: StatementSpec<{ kind: 'report' }> = {
  word: 'report',
  parse: () => ({ kind: 'report' }),
  async run(_s, run) {
    await run.opts.onReport?.(await run.report());
  },
};

/** `==` allows a relative 1e-9, so computed shares compare equal to their decimal. */
function compare(a: number, op: Op, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '==':
      return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    case '>=':
      return a >= b;
    case '>':
      return a > b;
  }
}
