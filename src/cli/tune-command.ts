import { type Command, InvalidArgumentError } from 'commander';
import { ParamsError } from '../keys/params.ts';
import {
  DEFAULT_BAND_COST,
  DEFAULT_FN_WEIGHT,
  DEFAULT_FP_WEIGHT,
  DEFAULT_MAX_BANDS,
  DEFAULT_MAX_ROWS,
  TUNE_MAX_BANDS,
  TUNE_MAX_ROWS,
  type TuneCandidate,
  type TuneResult,
  tuneLsh,
} from '../keys/tune.ts';
import { UsageError } from './io.ts';
import { intIn, numberFrom } from './options.ts';

interface TuneFlags {
  threshold: number;
  fpWeight: number;
  fnWeight: number;
  bandCost: number;
  maxBands: number;
  maxRows: number;
  json?: boolean;
}

/** The flag each library option comes from, so that a library error names the flag. */
const FLAGS: Record<string, string> = {
  threshold: '--threshold',
  falsePositiveWeight: '--fp-weight',
  falseNegativeWeight: '--fn-weight',
  bandCost: '--band-cost',
  maxBands: '--max-bands',
  maxRows: '--max-rows',
};

export function registerTuneCommand(program: Command): void {
  program
    .command('tune')
    .description(
      'recommend LSH parameters (n bands of m rows) for a similarity threshold: least weighted ' +
        'false-positive + false-negative area (as datasketch) plus a cost per band',
    )
    .requiredOption('--threshold <t>', 'Jaccard similarity threshold, in (0, 1)', openUnit)
    .option(
      '--fp-weight <w>',
      'weight of the false-positive area ∫₀ᵗ P(s) ds (raw, not normalised)',
      numberFrom(0),
      DEFAULT_FP_WEIGHT,
    )
    .option(
      '--fn-weight <w>',
      'weight of the false-negative area ∫ₜ¹ 1 − P(s) ds (raw, not normalised)',
      numberFrom(0),
      DEFAULT_FN_WEIGHT,
    )
    .option(
      '--band-cost <c>',
      'objective charged per band (one DHT lookup per search, one copy per profile); 0: pure error',
      numberFrom(0),
      DEFAULT_BAND_COST,
    )
    .option('--max-bands <n>', 'search n in 1..this', intIn(1, TUNE_MAX_BANDS), DEFAULT_MAX_BANDS)
    .option('--max-rows <m>', 'search m in 1..this', intIn(1, TUNE_MAX_ROWS), DEFAULT_MAX_ROWS)
    .option('--json', 'print one JSON object instead of the tables')
    .addHelpText(
      'after',
      `
P(s) = 1 − (1 − s^m)^n is the chance that profiles of Jaccard similarity s share a band.
error = fp-weight · ∫₀ᵗ P(s) ds + fn-weight · ∫ₜ¹ (1 − P(s)) ds (datasketch's _optimal_param);
objective = error + band-cost · n. The weights are used as given: doubling both doubles the
error, which weighs the band cost half as much.

Example:
  cidx tune --threshold 0.5
  cidx tune --threshold 0.7 --fn-weight 0.9 --fp-weight 0.1 --band-cost 0 --json`,
    )
    .action((o: TuneFlags) => {
      if (o.fpWeight === 0 && o.fnWeight === 0) {
        throw new UsageError('--fp-weight and --fn-weight must not both be 0');
      }
      let result: TuneResult;
      try {
        result = tuneLsh({
          threshold: o.threshold,
          falsePositiveWeight: o.fpWeight,
          falseNegativeWeight: o.fnWeight,
          bandCost: o.bandCost,
          maxBands: o.maxBands,
          maxRows: o.maxRows,
        });
      } catch (err) {
        if (err instanceof ParamsError) {
          throw new UsageError(err.message.replace(err.field, FLAGS[err.field] ?? err.field));
        }
        throw err;
      }
      process.stdout.write(o.json ? `${JSON.stringify(result)}\n` : formatTune(result));
    });
}

/** Commander parser: a number strictly between 0 and 1. */
function openUnit(raw: string): number {
  const v = Number(raw);
  if (raw.trim() === '' || !(v > 0 && v < 1)) {
    throw new InvalidArgumentError('must be a number in (0, 1)');
  }
  return v;
}

const fixed = (x: number) => x.toFixed(6);

/** The text report: the choice, the curve it was chosen from, and its S-curve. */
function formatTune(r: TuneResult): string {
  const o = r.options;
  const c = r.chosen;
  const lines = [
    `threshold ${o.threshold}, n in 1..${o.maxBands}, m in 1..${o.maxRows}, ` +
      `P(s) = 1 − (1 − s^m)^n`,
    '',
    `chosen: n = ${c.n} bands, m = ${c.m} rows`,
    `  FP         ${fixed(c.falsePositive)}  false-positive area ∫₀ᵗ P(s) ds`,
    `  FN         ${fixed(c.falseNegative)}  false-negative area ∫ₜ¹ 1 − P(s) ds`,
    `  error      ${fixed(c.error)}  ${o.falsePositiveWeight}·FP + ${o.falseNegativeWeight}·FN`,
    `  cost       ${fixed(c.cost)}  ${o.bandCost}·n: ${c.lookupsPerSearch} DHT lookups per search, ` +
      `${c.copiesPerProfile} stored copies per profile`,
    `  objective  ${fixed(c.objective)}  error + cost`,
    '',
    'the curve it chose from (the best m for each n; * the choice):',
    row(['', 'n', 'm', 'FP', 'FN', 'error', 'lookups', 'copies', 'objective']),
    ...r.curve.map((x) => row([x.chosen ? '*' : '', ...cells(x)])),
    '',
    `S-curve P(s) = 1 − (1 − s^${c.m})^${c.n}:`,
    '     s    P(s)',
    ...r.sCurve.map(({ s, p }) => `  ${s.toFixed(2)}  ${p.toFixed(4)}`),
  ];
  return `${lines.join('\n')}\n`;
}

function cells(x: TuneCandidate): string[] {
  return [
    String(x.n),
    String(x.m),
    fixed(x.falsePositive),
    fixed(x.falseNegative),
    fixed(x.error),
    String(x.lookupsPerSearch),
    String(x.copiesPerProfile),
    fixed(x.objective),
  ];
}

const WIDTHS = [1, 5, 3, 9, 9, 9, 8, 7, 10];

function row(values: string[]): string {
  return values.map((v, i) => v.padStart(WIDTHS[i] ?? 0)).join(' ');
}
