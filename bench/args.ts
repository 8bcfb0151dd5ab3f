/**
 * The command line of a benchmark: Node's parseArgs, strict, with `--help` listing the flags
 * and their defaults from the same table that parses them. A benchmark runs for minutes, so a
 * mistyped flag must stop it with its usage, not start a run with the defaults.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** `--child` is how a benchmark starts its own child process: not for users. */
const INTERNAL = new Set(['child']);

function usageOf(script: string, config: ParseArgsConfig, notes = ''): string {
  const flags = Object.entries(config.options ?? {})
    .filter(([name]) => !INTERNAL.has(name))
    .map(([name, o]) => {
      const value = o.type === 'string' ? ' <value>' : '';
      const dflt =
        o.type === 'string' && o.default !== undefined
          ? ` (default ${JSON.stringify(o.default)})`
          : '';
      return `  --${name}${value}${dflt}`;
    });
  return [
    `Usage: npm run ${script} -- [options]${config.allowPositionals ? ' [arguments]' : ''}`,
    ...flags,
    '  --help',
    ...(notes === '' ? [] : [notes]),
    `What it measures: the comment at the top of bench/${script.replace(/^bench:/, '')}.ts.`,
  ].join('\n');
}

export function benchArgs<const C extends ParseArgsConfig>(
  script: string,
  config: C,
  notes = '',
): ReturnType<typeof parseArgs<C>> {
  const usage = usageOf(script, config, notes);
  const args = config.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage}`);
    process.exit(2);
  }
}

/** A whole number ≥ min from a flag's text; otherwise the reason, and exit code 2. */
export function wholeNumber(name: string, text: string | undefined, min = 0): number {
  const n = Number(text);
  if (!(text !== undefined && text.trim() !== '' && Number.isInteger(n) && n >= min)) {
    console.error(`--${name}: a whole number ≥ ${min}, not "${text}" (--help lists the flags)`);
    process.exit(2);
  }
  return n;
}
