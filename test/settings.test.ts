import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Run } from '../sim/interpreter.ts';
import { parseScenario, ScenarioError } from '../sim/scenario.ts';
import { statementSpec } from '../sim/statements/registry.ts';
import { UsageError } from '../src/cli/io.ts';
import { ConfigError, resolveConfig, schemaOfTree } from '../src/cli/node-config.ts';
import { createProgram } from '../src/cli/program.ts';
import { addSettingOptions, envName, envToConfig, flagsToConfig } from '../src/cli/settings-cli.ts';
import {
  bool,
  problemOf,
  ruleOf,
  type Setting,
  showDuration,
  showValue,
} from '../src/settings/kinds.ts';
import { SETTINGS } from '../src/settings/table.ts';
import { entriesOf, getPath, setPath } from '../src/settings/tree.ts';

const ENTRIES = entriesOf(SETTINGS);
const CLI = join(import.meta.dirname, '..', 'src', 'cli.ts');

/** A value other than the default that the setting allows. */
function sample(s: Setting): unknown {
  switch (s.kind) {
    case 'int':
    case 'duration': {
      const d = s.default ?? s.min;
      const step = s.kind === 'duration' ? 1000 : 1;
      return d + step <= s.max ? d + step : d - step;
    }
    case 'bool':
      return !s.default;
    case 'text':
      // Long enough for a token's rule too.
      return s.flag === 'rpc' ? '127.0.0.1:1' : 'a-value-of-some-length';
    case 'choice':
      return s.values.find((v) => v !== s.default);
    case 'list':
      return ['/ip4/127.0.0.1/tcp/1', '/ip4/127.0.0.1/tcp/2'];
  }
}

/** A value as a flag, an environment variable or a scenario writes it. */
function asText(s: Setting, v: unknown): string {
  if (s.kind === 'duration') return showDuration(v as number);
  return Array.isArray(v) ? v.join(',') : String(v);
}

/** A value the setting refuses, as text; null when text cannot be wrong (an empty list). */
function badText(s: Setting): string | null {
  switch (s.kind) {
    case 'int':
      return String(s.max === Number.POSITIVE_INFINITY ? s.min - 1 : s.max + 1);
    case 'duration':
      return `${s.max + 1}ms`;
    case 'bool':
      return 'maybe';
    case 'text':
      return s.pattern !== undefined ? 'no port' : 'x'.repeat(s.maxBytes + 1);
    case 'choice':
      return 'nonsense';
    case 'list':
      return s.minItems > 0 ? ',' : null;
  }
}

/** Runs `cidx node <args> --print-config` in this process; returns the printed settings. */
async function printConfig(args: string[]): Promise<Record<string, unknown>> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await createProgram().parseAsync(['node', 'cidx', 'node', ...args, '--print-config']);
  } finally {
    spy.mockRestore();
  }
  return JSON.parse(out);
}

afterEach(() => vi.unstubAllEnvs());

describe('the settings table', () => {
  it('declares each flag, environment variable and scenario key once', () => {
    const flags = ENTRIES.map((e) => e.setting.flag);
    expect(new Set(flags).size).toBe(flags.length);
    const keys = ENTRIES.flatMap((e) =>
      e.setting.scenario ? [`${e.setting.scenario.statement} ${e.setting.scenario.key}`] : [],
    );
    expect(new Set(keys).size).toBe(keys.length);
    // The public names stay; the search experiments' switches are gone.
    for (const f of ['listen', 'bootstrap', 'rpc', 'data', 'index', 'lsh-n', 'lsh-m', 'lsh-seed'])
      expect(flags).toContain(f);
    for (const f of ['replicas', 'lsh-family', 'lsh-bits', 'k', 'republish-interval', 'record-ttl'])
      expect(flags).toContain(f);
    expect(keys).toEqual(
      expect.arrayContaining(
        ['k', 'l', 's', 'replicas', 'queryReplicas', 'concurrency', 'bucket', 'alpha', 'paths']
          .map((k) => `params ${k}`)
          .concat(
            ['republish', 'ttl', 'tombstone', 'request', 'lookup', 'cache', 'expire'].map(
              (k) => `timing ${k}`,
            ),
          ),
      ),
    );
    for (const gone of ['brief', 'responderK', 'reuse', 'float32', 'seenFilter'])
      expect(keys).not.toContain(`params ${gone}`);
    for (const e of ENTRIES) {
      expect(problemOf(e.setting, e.setting.default ?? sample(e.setting))).toBeNull();
      expect(problemOf(e.setting, sample(e.setting))).toBeNull();
    }
  });

  it.each(ENTRIES.map((e) => [e.key, e] as const))(
    '%s: flag, environment variable and config file give the same value; bad ones are refused by name',
    async (_key, e) => {
      const s = e.setting;
      const v = sample(s);
      const text = asText(s, v);
      // Flag.
      const flag =
        s.kind === 'bool' ? [v ? `--${s.flag}` : `--no-${s.flag}`] : [`--${s.flag}`, text];
      expect(getPath(await printConfig(flag), e.path)).toEqual(v);
      // Environment.
      expect(getPath(envToConfig({ [envName(s)]: text }), e.path)).toEqual(v);
      vi.stubEnv(envName(s), text);
      expect(getPath(await printConfig([]), e.path)).toEqual(v);
      vi.unstubAllEnvs();
      // Config file.
      const layer: Record<string, unknown> = {};
      setPath(layer, e.path, v);
      expect(getPath(resolveConfig(layer), e.path)).toEqual(v);
      const wrong: Record<string, unknown> = {};
      setPath(wrong, e.path, s.kind === 'text' || s.kind === 'choice' ? 7 : 'seven');
      expect(() => resolveConfig(wrong)).toThrow(new ConfigError(`${e.key}: ${ruleOf(s)}`));
      if (s.kind === 'int' || s.kind === 'duration') {
        // The file's schema keeps the table's range, at both ends.
        for (const out of [s.min - 1, s.max + 1]) {
          if (!Number.isFinite(out)) continue;
          setPath(wrong, e.path, out);
          expect(() => resolveConfig(wrong)).toThrow(new ConfigError(`${e.key}: ${ruleOf(s)}`));
        }
      }
      const bad = badText(s);
      if (bad === null) return;
      expect(() => envToConfig({ [envName(s)]: bad })).toThrow(UsageError);
      expect(() => envToConfig({ [envName(s)]: bad })).toThrow(
        new RegExp(`^${envName(s)}: ${escapeRegExp(ruleOf(s))}, not `),
      );
      // A switch takes no value on the command line: nothing there can be wrong.
      if (s.kind === 'bool') return;
      const err = await printConfig([`--${s.flag}`, bad]).catch((x: unknown) => x);
      // A flag's value is checked as it is read; a list's length once all its flags are in.
      if (s.kind === 'list') expect(err).toEqual(new UsageError(`config: ${e.key}: ${ruleOf(s)}`));
      else {
        expect(err).toBeInstanceOf(CommanderError);
        expect((err as Error).message).toContain(`--${s.flag}`);
        expect((err as Error).message).toContain(ruleOf(s));
      }
    },
  );

  it.each(ENTRIES.filter((e) => e.setting.scenario).map((e) => [e.key, e] as const))(
    '%s: its scenario key sets the same setting, within the same range',
    async (_key, e) => {
      const s = e.setting;
      const sc = s.scenario as NonNullable<Setting['scenario']>;
      const v = sample(s);
      const line = (value: string) =>
        sc.statement === 'index'
          ? `index lsh ${Object.entries({ n: '20', m: '1', seed: 'x', [sc.key]: value })
              .map(([k, x]) => `${k}=${x}`)
              .join(' ')}`
          : `${sc.statement} ${sc.key}=${value}`;
      const [st] = parseScenario(line(asText(s, v)), 'settings.scenario');
      const run = new Run({ file: 'settings.scenario' });
      try {
        await statementSpec(sc.statement)?.run(st as never, run);
      } finally {
        run.memory.stop();
      }
      expect(getPath(run.config, e.path)).toEqual(v);
      const bad = badText(s);
      if (bad !== null && s.kind !== 'text')
        expect(() => parseScenario(line(bad), 'bad.scenario')).toThrow(ScenarioError);
      if (bad !== null && s.kind !== 'text')
        expect(() => parseScenario(line(bad), 'bad.scenario')).toThrow(`${sc.key}=`);
    },
  );

  it('cidx node --help lists every setting with its default and range', () => {
    const r = spawnSync(process.execPath, [CLI, 'node', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    for (const { setting: s } of ENTRIES) {
      expect(help).toContain(`--${s.flag} ${s.arg}`);
      expect(help).toContain(`(default ${s.defaultText ?? showValue(s, s.default)})`);
      if (s.kind === 'int' && s.max !== Number.POSITIVE_INFINITY)
        expect(help).toContain(`${s.min}–${s.max}`);
    }
    expect(help).toContain('--print-config');
    expect(help).toContain('CIDX_');
  });

  it('a bad flag, variable or file is one line on stderr naming the setting, exit 2', () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [CLI, 'node', ...args, '--print-config'], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
    for (const [r, named] of [
      [run(['--replicas', '21']), '--replicas <r>'],
      [run([], { CIDX_RECORD_TTL: 'soon' }), 'CIDX_RECORD_TTL: must be a duration'],
      [run(['--record-ttl', '10m']), 'timing.recordTtlMs: must exceed republishIntervalMs'],
    ] as const) {
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(named);
    }
  });

  it('the printed configuration is a config file that gives itself back', async () => {
    const printed = await printConfig(['--record-ttl', '4h', '--k', '7', '--listen', '/a,/b']);
    expect(printed).toMatchObject({
      k: 7,
      listen: ['/a', '/b'],
      timing: { recordTtlMs: 14_400_000 },
    });
    expect(resolveConfig(printed)).toEqual(printed);
  });

  it('a switch is a boolean: --x / --no-x, CIDX_X=true|false, true or false in the file', () => {
    const tree = {
      x: bool({ flag: 'x', arg: '', help: 'a switch', category: 'node', default: true }),
    };
    const cmd = new Command('t').exitOverride();
    addSettingOptions(cmd, entriesOf(tree));
    cmd.parse(['--no-x'], { from: 'user' });
    expect(flagsToConfig(cmd, entriesOf(tree))).toEqual({ x: false });
    expect(envToConfig({ CIDX_X: 'false' }, entriesOf(tree))).toEqual({ x: false });
    expect(envToConfig({ CIDX_X: 'yes' }, entriesOf(tree))).toEqual({ x: true });
    expect(() => envToConfig({ CIDX_X: '2' }, entriesOf(tree))).toThrow(
      'CIDX_X: must be true or false',
    );
    const schema = schemaOfTree(tree);
    expect(schema.safeParse({ x: false }).success).toBe(true);
    expect(schema.safeParse({ x: 0 }).success).toBe(false);
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
