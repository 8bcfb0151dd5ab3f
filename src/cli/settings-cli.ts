/**
 * The settings table on the command line: one flag per setting (grouped by category in
 * --help, each with its range and default), its CIDX_* environment variable, and reading both
 * back into a layer of settings shaped like the config file.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  CATEGORIES,
  fromText,
  ruleOf,
  type Setting,
  SettingError,
  showDuration,
  showValue,
  splitList,
} from '../settings/kinds.ts';
import { MAX_DURATION_MS, SETTINGS } from '../settings/table.ts';
import { type Entry, entriesOf, setPath } from '../settings/tree.ts';
import { UsageError } from './io.ts';

/** The environment variable of a setting: CIDX_ and its flag in upper snake case. */
export function envName(s: Setting): string {
  return `CIDX_${s.flag.toUpperCase().replaceAll('-', '_')}`;
}

/** The range in --help's words, or '' where the help says it. */
function range(s: Setting): string {
  switch (s.kind) {
    case 'int':
      return s.max === Number.POSITIVE_INFINITY ? `≥ ${s.min}` : `${s.min}–${s.max}`;
    case 'duration':
      return s.min === 0 ? '0 or more' : '';
    case 'choice':
      return s.values.join(', ');
    default:
      return '';
  }
}

/** One line of --help: what it does, its range, its default. */
function describeSetting(s: Setting): string {
  const r = range(s);
  const dflt = s.defaultText ?? showValue(s, s.default);
  return `${s.help}${r === '' ? '' : `: ${r}`} (default ${dflt})`;
}

/** Adds a flag for every setting of `entries` (all of the table unless given). */
export function addSettingOptions(cmd: Command, entries: Entry[] = entriesOf(SETTINGS)): void {
  for (const { setting: s } of entries) {
    const group = `${CATEGORIES[s.category]}:`;
    if (s.kind === 'bool') {
      cmd.addOption(new Option(`--${s.flag}`, describeSetting(s)).helpGroup(group));
      cmd.addOption(new Option(`--no-${s.flag}`, `turn ${s.flag} off`).helpGroup(group));
      continue;
    }
    const opt = new Option(`--${s.flag} ${s.arg}`, describeSetting(s)).helpGroup(group);
    if (s.kind === 'list') {
      // Repeatable, and each value may itself be comma-separated.
      opt.argParser((raw: string, prev: string[] | undefined) => [
        ...(prev ?? []),
        ...splitList(raw),
      ]);
    } else {
      opt.argParser((raw: string) => {
        try {
          return fromText(s, raw);
        } catch (err) {
          // commander quotes the argument itself: the rule is enough.
          if (err instanceof SettingError) throw new InvalidArgumentError(ruleOf(s));
          throw err;
        }
      });
    }
    cmd.addOption(opt);
  }
}

/** The settings given as flags (commander's parsed options), shaped like the config file. */
export function flagsToConfig(
  cmd: Command,
  entries: Entry[] = entriesOf(SETTINGS),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const given = cmd.opts();
  for (const e of entries) {
    const name = new Option(`--${e.setting.flag}`).attributeName();
    if (given[name] !== undefined) setPath(out, e.path, given[name]);
  }
  return out;
}

/** The settings given as CIDX_* environment variables; a bad value is a one-line UsageError. */
export function envToConfig(
  env: NodeJS.ProcessEnv,
  entries: Entry[] = entriesOf(SETTINGS),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of entries) {
    const name = envName(e.setting);
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    try {
      setPath(out, e.path, fromText(e.setting, raw));
    } catch (err) {
      if (err instanceof SettingError) throw new UsageError(`${name}: ${err.message}`);
      throw err;
    }
  }
  return out;
}

/** The end of `cidx node --help`: where else settings come from. */
export const SETTINGS_HELP = `
Every setting can also come from the environment, CIDX_ and its flag in upper case with _ for -
(CIDX_LSH_N=20, CIDX_RECORD_TTL=2h; lists comma-separated), or from a --config JSON file under
the key --print-config shows. Precedence: flags > environment > --config file > defaults.
Durations take a unit (250ms, 10s, 30m, 2h) or a number of milliseconds; the config file holds
milliseconds. Longest duration: ${showDuration(MAX_DURATION_MS)}.`;
