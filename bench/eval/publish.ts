/**
 * Where the experiments put their results: a table section of docs/RESULTS.md (between
 * `<!-- eval:NAME -->` markers, so re-running a script refreshes its table in place), an SVG
 * chart and the raw numbers as JSON under docs/results/.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from '../../sim/report/charts.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import type { Profile } from '../../src/profile/profile.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'RESULTS.md');
const DIR = join(ROOT, 'docs', 'results');
export const DATA_DIR = join(ROOT, 'data');

/** Replaces the section between the markers (appending it when the markers are missing). */
export function writeSection(name: string, markdown: string): void {
  const open = `<!-- eval:${name} -->`;
  const close = `<!-- /eval:${name} -->`;
  const doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Results\n';
  const block = `${open}\n${markdown.trim()}\n${close}`;
  const i = doc.indexOf(open);
  const j = doc.indexOf(close);
  const next =
    i >= 0 && j > i
      ? doc.slice(0, i) + block + doc.slice(j + close.length)
      : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(DOC, next);
}

export async function writeChart(name: string, spec: TopLevelSpec): Promise<string> {
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, `${name}.svg`);
  writeFileSync(file, await renderSvg(spec));
  return `results/${name}.svg`;
}

export function writeJson(name: string, value: unknown): void {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, `${name}.json`), `${JSON.stringify(value, null, 1)}\n`);
}

/** Profiles of a data file written by `npm run data`. */
export function loadProfiles(file: string): { id: string; profile: Profile }[] {
  const path = join(DATA_DIR, file);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run data\` first`);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const { id, ...rest } = JSON.parse(l) as { id: string };
      return { id, profile: parseProfile(rest, { maxRelations: 1_000_000 }) };
    });
}

/** A markdown table. */
export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

export const pct = (x: number, digits = 2) => `${(100 * x).toFixed(digits)}%`;
