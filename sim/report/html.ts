/**
 * The report as one self-contained HTML page: inline CSS, the tables, and the charts as SVG
 * (rendered here, so the page needs no script, font or network).
 */
import { chartSpecs, renderSvg } from './charts.ts';
import { type Section, sections, summaryLine, type Table } from './sections.ts';
import type { SimReport } from './types.ts';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1d1d1f;
  margin: 2rem auto; max-width: 1120px; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: 0.25rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
.meta { color: #555; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f6; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.pass td:last-child { color: #146c2e; font-weight: 600; }
tr.fail td:last-child { color: #b3261e; font-weight: 600; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; }
.charts figure { margin: 0; }
svg { max-width: 100%; height: auto; }
`;

/** The report as one self-contained HTML page: inline CSS and SVG, no script. */
export async function renderHtml(report: SimReport): Promise<string> {
  const svgs: string[] = [];
  for (const spec of chartSpecs(report)) svgs.push(await renderSvg(spec));
  const body: string[] = [
    `<h1>Simulation report: ${escapeHtml(report.scenario.file)}</h1>`,
    `<p class="meta">${escapeHtml(summaryLine(report))}</p>`,
  ];
  const all = sections(report);
  // Expectations first, then the charts, then the other tables.
  const first = report.expects.length > 0 ? 1 : 0;
  for (const s of all.slice(0, first)) body.push(htmlSection(s));
  if (svgs.length > 0) {
    const figures = svgs.map((svg) => `<figure>${svg}</figure>`).join('\n');
    body.push(`<section>\n<h2>Charts</h2>\n<div class="charts">\n${figures}\n</div>\n</section>`);
  }
  for (const s of all.slice(first)) body.push(htmlSection(s));
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Simulation report: ${escapeHtml(report.scenario.file)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function htmlSection(s: Section): string {
  const out = ['<section>', `<h2>${escapeHtml(s.title)}</h2>`];
  if (s.text !== undefined) out.push(`<p>${escapeHtml(s.text)}</p>`);
  for (const part of s.parts) {
    if (part.heading !== undefined) out.push(`<h3>${escapeHtml(part.heading)}</h3>`);
    out.push(htmlTable(part.table));
  }
  out.push('</section>');
  return out.join('\n');
}

function htmlTable(t: Table): string {
  const cell = (tag: string, text: string, i: number) =>
    `<${tag}${t.numeric[i] ? ' class="num"' : ''}>${escapeHtml(text)}</${tag}>`;
  const rows = t.rows.map((cells, r) => {
    const cls = t.rowClass?.[r];
    const tr = cls === undefined ? '<tr>' : `<tr class="${escapeHtml(cls)}">`;
    return `${tr}${cells.map((c, i) => cell('td', c, i)).join('')}</tr>`;
  });
  const head = `<tr>${t.head.map((c, i) => cell('th', c, i)).join('')}</tr>`;
  return `<table>\n<thead>${head}</thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
}
