/**
 * `at <time> [every <period> times <n>] <command>`: runs a command at `time` after the start
 * (`10s`) or after the previous command ended (`+10s`), never before the previous one
 * finished; repeated `n` times a period apart.
 */
import { commandSpec } from '../commands/registry.ts';
import type { Parsed, StatementSpec } from '../language.ts';

type AtStatement = {
  kind: 'at';
  relative: boolean;
  ms: number;
  repeat?: { everyMs: number; times: number };
  command: Parsed;
};

export const at: StatementSpec<AtStatement> = {
  word: 'at',
  parse(p, scope): AtStatement {
    const t = p.word('a time such as 5s or +5s');
    const relative = t.startsWith('+');
    const ms = p.duration(relative ? t.slice(1) : t, 'time');
    let repeat: AtStatement['repeat'];
    if (p.accept('every')) {
      const everyMs = p.duration(p.word('a period'), 'period');
      if (everyMs <= 0) p.fail('the period must be longer than 0');
      const times = p.word('"times"');
      if (times !== 'times') p.fail(`expected "times <n>" after the period, not "${times}"`);
      repeat = { everyMs, times: p.int('times', 1, 1_000_000) };
    }
    const word = p.word('a command');
    const spec = commandSpec(word, 'word') ?? p.fail(`unknown command "${word}"`);
    const command = spec.parse(p, scope);
    return { kind: 'at', relative, ms, ...(repeat ? { repeat } : {}), command };
  },
  async run(s, run) {
    const first = s.relative ? run.lastEnd + s.ms : run.startedAt + s.ms;
    for (let i = 0; i < (s.repeat?.times ?? 1); i++) {
      await run.sleepUntil(first + i * (s.repeat?.everyMs ?? 0));
      await run.runCommand(s.command, s.text);
    }
    run.lastEnd = Date.now();
  },
};
