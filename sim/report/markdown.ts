/** report.md: the report's sections as GitHub-flavoured Markdown tables, escaped for it. */
import { sections, summaryLine, type Table } from './sections.ts';
import type { SimReport } from './types.ts';

/** The report as GitHub-flavoured Markdown. */
export function renderMarkdown(report: SimReport): string {
  const lines = [
    `# Simulation report: ${mdText(report.scenario.file)}`,
    '',
    mdText(summaryLine(report)),
    '',
  ];
  for (const s of sections(report)) {
    lines.push(`## ${mdText(s.title)}`, '');
    if (s.text !== undefined) lines.push(mdText(s.text), '');
    for (const part of s.parts) {
      if (part.heading !== undefined) lines.push(`### ${mdText(part.heading)}`, '');
      lines.push(...mdTable(part.table), '');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function mdTable(t: Table): string[] {
  const row = (cells: string[]) => `| ${cells.map(mdText).join(' | ')} |`;
  const rule = `|${t.numeric.map((n) => (n ? ' ---: ' : ' --- ')).join('|')}|`;
  return [row(t.head), rule, ...t.rows.map(row)];
}

/**
 * Inline Markdown text: backslash-escapes whatever could start markup, raw HTML or an entity,
 * or end a table cell (`|`). An underscore between letters or digits cannot emphasise, so the
 * ones in metric names stay as they are. Line breaks would end a table row: they become spaces.
 */
function mdText(s: string): string {
  return s
    .replace(/\r\n?|\n/g, ' ')
    .replace(/[\\`*[\]<>|~&#]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&');
}
