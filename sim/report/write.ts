/** Writes a run's report as report.json, report.md and report.html. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/util/write-file-atomic.ts';
import { renderHtml } from './html.ts';
import { renderMarkdown } from './markdown.ts';
import type { SimReport } from './types.ts';

/** Writes `report.json`, `report.md` and `report.html` into `outDir` (created if needed). */
export async function writeReports(
  report: SimReport,
  outDir: string,
): Promise<{ json: string; md: string; html: string }> {
  // Everything is rendered before anything is written: a rendering error leaves no file behind.
  const texts = {
    json: `${JSON.stringify(report, null, 2)}\n`,
    md: renderMarkdown(report),
    html: await renderHtml(report),
  };
  await mkdir(outDir, { recursive: true });
  const paths = {
    json: join(outDir, 'report.json'),
    md: join(outDir, 'report.md'),
    html: join(outDir, 'report.html'),
  };
  await Promise.all([
    writeFileAtomic(paths.json, texts.json),
    writeFileAtomic(paths.md, texts.md),
    writeFileAtomic(paths.html, texts.html),
  ]);
  return paths;
}
