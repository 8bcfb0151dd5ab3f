import { extname } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { indexKeys } from '../keys/index-keys.ts';
import { lshIdentifiers } from '../keys/lsh.ts';
import {
  DEFAULT_BITS,
  DEFAULT_FAMILY,
  FAMILIES,
  type IndexParams,
  ParamsError,
} from '../keys/params.ts';
import {
  DEFAULT_FIELD_WEIGHTS,
  DEFAULT_TOP_TERMS,
  type FieldWeights,
} from '../profile/build-options.ts';
import {
  DocumentError,
  parseDocument,
  parseJsonLines,
  type UserDocument,
} from '../profile/documents.ts';
import { ProfileError } from '../profile/errors.ts';
import { interests } from '../profile/interests.ts';
import { AUTO, langProblem, STEMMED_LANGUAGES } from '../profile/languages.ts';
import { parseProfile } from '../profile/parse.ts';
import type { Profile } from '../profile/profile.ts';
import { jaccard, similarity } from '../profile/similarity.ts';
import { hex } from '../util/bytes.ts';
import { readJsonValues, readText, UsageError, writeOutput } from './io.ts';
import { intIn, numberFrom, oneOf } from './options.ts';

const KINDS = ['vector', 'matrix', 'interests'] as const;
const FORMATS = ['auto', 'text', 'jsonl'] as const;

interface BuildFlags {
  format: (typeof FORMATS)[number];
  kind: (typeof KINDS)[number];
  top: number;
  minFreq: number;
  minSize: number;
  fieldWeights: FieldWeights;
  groupBy?: string;
  stopwords?: string;
  lang: string;
  verbose?: boolean;
  out?: string;
}

export function registerProfileCommands(program: Command): void {
  const profile = program
    .command('profile')
    .description('build, check, compare and index profiles');

  profile
    .command('build')
    .description(
      "build a user's profile from the user's documents (thesis §5.2): terms stop-worded and " +
        "stemmed in each document's language, weighted keywords > body > title, averaged over " +
        'the documents',
    )
    .argument(
      '[files...]',
      'text files (one document each) or JSON Lines of {title?, keywords?, lang?, text}; - for stdin',
      ['-'],
    )
    .option(
      '--format <format>',
      `input format: ${FORMATS.join(', ')} (auto: .jsonl/.ndjson are JSON Lines)`,
      oneOf(FORMATS),
      'auto',
    )
    .option('--kind <kind>', `output: ${KINDS.join(', ')}`, oneOf(KINDS), 'vector')
    .option(
      '--top <n>',
      'terms kept, most heavily weighted first',
      intIn(1, 1_000_000),
      DEFAULT_TOP_TERMS,
    )
    .option('--min-freq <x>', 'interests: relations below this are pruned', numberFrom(0), 0.25)
    .option('--min-size <n>', 'interests: smaller components are dropped', intIn(1, 1_000_000), 20)
    .option(
      '--field-weights <k,t,ti>',
      'weights of keywords, body text, title',
      parseFieldWeights,
      DEFAULT_FIELD_WEIGHTS,
    )
    .option(
      '--group-by <field>',
      'JSON Lines: one profile per value of this field (e.g. user), written as JSON Lines with an "id"',
    )
    .option(
      '--lang <code>',
      'language of the documents without a "lang" field: an ISO 639-1 code (en, it, de, …), or ' +
        'auto to detect each from its body text',
      parseLang,
      AUTO,
    )
    .option(
      '--stopwords <file>',
      "stop words, one per line, instead of each language's built-in list",
    )
    .option('--verbose', 'print on stderr the languages of the documents and how many each')
    .option('-o, --out <file>', 'write here instead of stdout (atomically)')
    .addHelpText(
      'after',
      `
Languages:
  Each document is analysed in its language: its JSON Lines "lang" field, else --lang, else
  detected from its body text. A body of fewer than 5 words, or one the detector cannot tell,
  takes the most common language of the other documents, else English. Stop words: the
  stopwords-iso list of the language. Stemming: Porter for English, Snowball for
  ${wrapCodes(STEMMED_LANGUAGES.filter((l) => l !== 'en'))};
  other languages keep their words unstemmed, in lower case.

Examples:
  cidx profile build notes/*.txt > me.json
  cidx profile build --kind matrix --top 300 papers.jsonl -o me-matrix.json
  cidx profile build --kind interests --min-freq 0.25 --min-size 20 papers.jsonl
  cidx profile build --group-by user --top 150 all-users.jsonl -o profiles.jsonl
  cidx profile build --lang it --verbose appunti/*.txt`,
    )
    .action(async (files: string[], flags: BuildFlags) => {
      const stop = flags.stopwords === undefined ? undefined : await readStopwords(flags.stopwords);
      const groups = await readDocuments(files, flags);
      // Loaded here, not at the top: the builder brings the language detector's database,
      // which no other command needs.
      const { buildProfile } = await import('../profile/build.ts');
      const lines: string[] = [];
      for (const [id, docs] of groups) {
        const built = buildProfile(docs, {
          top: flags.top,
          fieldWeights: flags.fieldWeights,
          lang: flags.lang,
          stopwords: stop,
        });
        if (flags.verbose) {
          const counts = built.languages
            .map(
              (c) =>
                `${c.lang} ${c.documents}${c.undetected > 0 ? ` (${c.undetected} undetected)` : ''}`,
            )
            .join(', ');
          process.stderr.write(`${id === undefined ? '' : `${id}: `}languages: ${counts}\n`);
        }
        const withId = (p: object) => (id === undefined ? p : { id, ...p });
        if (flags.kind === 'interests') {
          interests(built.matrix, { minFreq: flags.minFreq, minSize: flags.minSize }).forEach(
            (p, i) => {
              lines.push(JSON.stringify(withId({ interest: i, ...p.toJSON() })));
            },
          );
        } else {
          lines.push(
            JSON.stringify(
              withId((flags.kind === 'vector' ? built.vector : built.matrix).toJSON()),
            ),
          );
        }
      }
      await writeOutput(flags.out, lines.length === 0 ? '' : `${lines.join('\n')}\n`);
    });

  profile
    .command('check')
    .description(
      'validate profiles (a JSON file, or JSON Lines of profiles); exit 1 on the first invalid one',
    )
    .argument('<files...>', 'profile files; - for stdin')
    .action(async (files: string[]) => {
      let count = 0;
      for (const f of files) {
        for (const { where, value } of await readJsonValues(f)) {
          loadProfile(value, where);
          count++;
        }
      }
      process.stdout.write(`${JSON.stringify({ ok: true, profiles: count })}\n`);
    });

  profile
    .command('compare')
    .description(
      'similarity (metric 4.2 when both are matrices, else 4.1) and Jaccard of two profiles',
    )
    .argument('<a>', 'profile file')
    .argument('<b>', 'profile file')
    .action(async (a: string, b: string) => {
      const [pa, pb] = [await readOneProfile(a), await readOneProfile(b)] as [Profile, Profile];
      const metric = pa.isMatrix && pb.isMatrix ? '4.2' : '4.1';
      process.stdout.write(
        `${JSON.stringify({ similarity: similarity(pa, pb), metric, jaccard: jaccard(pa, pb) })}\n`,
      );
    });

  profile
    .command('keys')
    .description('the DHT keys (and raw LSH identifiers) a profile is stored and searched under')
    .argument('<file>', 'profile file')
    .option('--index <mode>', 'attribute or lsh', oneOf(['attribute', 'lsh'] as const), 'lsh')
    .option('--lsh-n <n>', 'identifiers per profile', intIn(1, 1024), 20)
    .option('--lsh-m <m>', 'min-hash functions per identifier', intIn(1, 64), 1)
    .option('--lsh-seed <seed>', "the swarm's seed string", 'cidx')
    .option(
      '--lsh-family <family>',
      `LSH family: ${FAMILIES.join(', ')}`,
      oneOf(FAMILIES),
      DEFAULT_FAMILY,
    )
    .option('--lsh-bits <bits>', 'bits per identifier: 8, 16, 32, 64', intIn(8, 64), DEFAULT_BITS)
    .action(
      async (
        file: string,
        o: {
          index: 'attribute' | 'lsh';
          lshN: number;
          lshM: number;
          lshSeed: string;
          lshFamily: string;
          lshBits: number;
        },
      ) => {
        const p = await readOneProfile(file);
        const params: IndexParams =
          o.index === 'attribute'
            ? { mode: 'attribute' }
            : {
                mode: 'lsh',
                n: o.lshN,
                m: o.lshM,
                seed: o.lshSeed,
                family: o.lshFamily,
                bits: o.lshBits,
              };
        let out: object;
        try {
          const keys = indexKeys(p, params).map(hex);
          out =
            params.mode === 'lsh'
              ? {
                  params,
                  identifiers: lshIdentifiers(p, params).map((x) =>
                    x.toString(16).padStart(params.bits === undefined ? 16 : params.bits / 4, '0'),
                  ),
                  keys,
                }
              : { params, keys };
        } catch (err) {
          if (err instanceof ParamsError) throw new UsageError(err.message);
          throw err;
        }
        process.stdout.write(`${JSON.stringify(out)}\n`);
      },
    );
}

function parseLang(raw: string): string {
  const problem = langProblem(raw, true);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return raw;
}

/** Language codes as help text lines of at most ~90 columns, indented like the paragraph. */
function wrapCodes(codes: readonly string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < codes.length; i += 20) lines.push(codes.slice(i, i + 20).join(', '));
  return lines.join(',\n  ');
}

function parseFieldWeights(raw: string): FieldWeights {
  const parts = raw.split(',').map((x) => Number(x));
  if (parts.length !== 3 || parts.some((x) => !Number.isFinite(x) || x <= 0)) {
    throw new InvalidArgumentError('must be three numbers > 0: keywords,text,title (e.g. 3,2,1)');
  }
  const [keywords, text, title] = parts as [number, number, number];
  return { keywords, text, title };
}

async function readStopwords(path: string): Promise<Set<string>> {
  const text = await readText(path);
  return new Set(
    text
      .split(/\r?\n/)
      .map((w) => w.trim().toLowerCase())
      .filter((w) => w !== '' && !w.startsWith('#')),
  );
}

/** Documents grouped by the --group-by field (one group, id undefined, without it). */
async function readDocuments(
  files: string[],
  flags: BuildFlags,
): Promise<Map<string | undefined, UserDocument[]>> {
  const groups = new Map<string | undefined, UserDocument[]>();
  const add = (id: string | undefined, d: UserDocument) => {
    const g = groups.get(id);
    if (g === undefined) groups.set(id, [d]);
    else g.push(d);
  };
  for (const f of files) {
    const text = await readText(f);
    const jsonl =
      flags.format === 'jsonl' ||
      (flags.format === 'auto' && ['.jsonl', '.ndjson'].includes(extname(f)));
    if (!jsonl) {
      if (flags.groupBy !== undefined) throw new UsageError('--group-by needs JSON Lines input');
      add(undefined, { text });
      continue;
    }
    try {
      for (const { line, value } of parseJsonLines(text, f)) {
        const where = `${f}:${line}`;
        const doc = parseDocument(value, where);
        let id: string | undefined;
        if (flags.groupBy !== undefined) {
          const v = (value as Record<string, unknown>)[flags.groupBy];
          if (typeof v !== 'string' && typeof v !== 'number') {
            throw new DocumentError(where, `${flags.groupBy}: must be a string or a number`);
          }
          id = String(v);
        }
        add(id, doc);
      }
    } catch (err) {
      if (err instanceof DocumentError) throw new UsageError(err.message, 1);
      throw err;
    }
  }
  if (groups.size === 0) throw new UsageError('no documents in the input', 1);
  return groups;
}

function loadProfile(value: unknown, where: string): Profile {
  try {
    return parseProfile(value);
  } catch (err) {
    if (err instanceof ProfileError) throw new UsageError(`${where}: ${err.message}`, 1);
    throw err;
  }
}

async function readOneProfile(path: string): Promise<Profile> {
  const values = await readJsonValues(path);
  if (values.length !== 1)
    throw new UsageError(`${path}: holds ${values.length} profiles, expected 1`, 1);
  const [{ where, value }] = values as [{ where: string; value: unknown }];
  return loadProfile(value, where);
}
