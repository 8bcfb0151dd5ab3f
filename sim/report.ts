/**
 * A simulator run's report, rendered three ways: JSON (the data), Markdown (tables) and a
 * self-contained HTML page (the same tables plus charts drawn server-side as SVG by
 * vega-lite → vega, so the page needs no script, font or network).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import * as vl from 'vega-lite';
import { writeFileAtomic } from '../src/cli/io.ts';
import type { SimReport } from './report-types.ts';

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

// ---------------------------------------------------------------------------------------------
// Numbers

const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/**
 * Integers in full with thousands separators; fractions to 4 significant digits, or more when
 * the integer part is longer, so that no digit of it is rounded away (1234.56 → 1,235).
 */
export function formatNumber(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (Number.isInteger(v)) return GROUPED.format(v);
  const intDigits = Math.floor(Math.log10(Math.abs(v))) + 1;
  const digits = Math.min(21, Math.max(4, intDigits));
  return new Intl.NumberFormat('en-US', { maximumSignificantDigits: digits }).format(v);
}

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** A byte count in full, with its size in binary units alongside once it passes 1 KiB. */
function formatBytes(v: number): string {
  if (!Number.isFinite(v) || Math.abs(v) < 1024) return formatNumber(v);
  let size = v / 1024;
  let unit = 0;
  while (Math.abs(size) >= 1024 && unit < BYTE_UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${formatNumber(Math.round(v))} (${size.toPrecision(3)} ${BYTE_UNITS[unit]})`;
}

/** Metrics that count bytes: a dotted or underscored name segment `bytes`. */
const isByteMetric = (name: string) => /(^|[._])bytes($|[._])/.test(name);

function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || Math.abs(ms) < 1000) return `${formatNumber(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * Nearest-rank percentile: the ⌈p·n/100⌉-th smallest value, i.e. the smallest value with at
 * least p % of the values at or below it (p50 of 1..100 is 50, p99 is 99, p100 the maximum).
 * Always one of the values, never an interpolation. Undefined for no values.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  return percentileOfSorted(Float64Array.from(values).sort(), p);
}

function percentileOfSorted(sorted: Float64Array, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  // p·n before the division keeps integer ranks exact (0.29 · 100 is 28.999…).
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p * sorted.length) / 100)));
  return sorted[rank - 1];
}

// ---------------------------------------------------------------------------------------------
// Tables, shared by both renderers

/** A table of plain-text cells; each renderer escapes them its own way. */
interface Table {
  head: string[];
  /** Per column: holds numbers (right-aligned). */
  numeric: boolean[];
  rows: string[][];
  /** Per row, an optional class for the HTML page (PASS/FAIL colouring). */
  rowClass?: string[];
}

interface Section {
  title: string;
  /** A line before the tables, or in place of them when there is nothing to show. */
  text?: string;
  parts: { heading?: string; table: Table }[];
}

function summaryLine({ scenario: s }: SimReport): string {
  return [
    `seed ${s.seed}`,
    `started ${s.startedAt}`,
    `ran ${formatDuration(s.durationMs)}`,
    s.machine,
    `peak ${formatNumber(s.nodesPeak)} nodes`,
  ].join(' · ');
}

function sections(report: SimReport): Section[] {
  const out: Section[] = [];
  if (report.expects.length > 0) out.push(expectSection(report));
  out.push(
    metricSection(report),
    trafficSection(report),
    latencySection(report),
    timelineSection(report),
  );
  return out;
}

function expectSection({ expects }: SimReport): Section {
  const passed = expects.filter((e) => e.pass).length;
  return {
    title: 'Expectations',
    text: `${passed} of ${expects.length} passed`,
    parts: [
      {
        table: {
          head: ['line', 'expect', 'actual', 'result'],
          numeric: [true, false, true, false],
          rows: expects.map((e) => [
            String(e.line),
            e.text,
            e.actual === null ? '— (no such metric)' : formatNumber(e.actual),
            e.pass ? 'PASS' : 'FAIL',
          ]),
          rowClass: expects.map((e) => (e.pass ? 'pass' : 'fail')),
        },
      },
    ],
  };
}

/** One table per first dotted segment of the names, groups and rows in the order given. */
function metricSection({ metrics }: SimReport): Section {
  const groups = new Map<string, string[][]>();
  for (const [name, value] of Object.entries(metrics)) {
    const group = name.split('.')[0] ?? name;
    const rows = groups.get(group) ?? [];
    rows.push([name, isByteMetric(name) ? formatBytes(value) : formatNumber(value)]);
    groups.set(group, rows);
  }
  if (groups.size === 0) return { title: 'Metrics', text: 'No metrics were recorded.', parts: [] };
  return {
    title: 'Metrics',
    parts: [...groups].map(([heading, rows]) => ({
      heading,
      table: { head: ['metric', 'value'], numeric: [false, true], rows },
    })),
  };
}

function trafficSection({ series }: SimReport): Section {
  const entries = Object.entries(series.protocols).sort(
    ([a, x], [b, y]) => y.bytes - x.bytes || (a < b ? -1 : a > b ? 1 : 0),
  );
  if (entries.length === 0)
    return { title: 'Traffic per protocol', text: 'No traffic was recorded.', parts: [] };
  const total = { streams: 0, sends: 0, bytes: 0 };
  for (const [, t] of entries) {
    total.streams += t.streams;
    total.sends += t.sends;
    total.bytes += t.bytes;
  }
  const share = (bytes: number) =>
    total.bytes > 0 ? `${((100 * bytes) / total.bytes).toFixed(1)} %` : '—';
  const row = (name: string, t: typeof total) => [
    name,
    formatNumber(t.streams),
    formatNumber(t.sends),
    formatBytes(t.bytes),
    share(t.bytes),
  ];
  return {
    title: 'Traffic per protocol',
    parts: [
      {
        table: {
          head: ['protocol', 'streams', 'sends', 'bytes', 'share of bytes'],
          numeric: [false, true, true, true, true],
          rows: [...entries.map(([name, t]) => row(name, t)), row('total', total)],
        },
      },
    ],
  };
}

function latencySection({ series }: SimReport): Section {
  const row = (kind: string, values: readonly number[]) => {
    const sorted = Float64Array.from(values).sort();
    const cell = (p: number) => {
      const v = percentileOfSorted(sorted, p);
      return v === undefined ? '—' : formatNumber(v);
    };
    return [kind, formatNumber(values.length), cell(50), cell(90), cell(99), cell(100)];
  };
  return {
    title: 'Latency',
    text: 'Milliseconds; nearest-rank percentiles (always an observed value).',
    parts: [
      {
        table: {
          head: ['operation', 'count', 'p50', 'p90', 'p99', 'max'],
          numeric: [false, true, true, true, true, true],
          rows: [row('search', series.searchLatencyMs), row('create', series.createLatencyMs)],
        },
      },
    ],
  };
}

function timelineSection({ timeline }: SimReport): Section {
  if (timeline.length === 0) return { title: 'Timeline', text: 'No commands ran.', parts: [] };
  return {
    title: 'Timeline',
    parts: [
      {
        table: {
          head: ['t (s)', 'line', 'command', 'duration', 'note'],
          numeric: [true, true, false, true, false],
          rows: timeline.map((r) => [
            seconds(r.t),
            String(r.line),
            r.command,
            formatDuration(r.durationMs),
            r.note ?? '',
          ]),
        },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Markdown

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

// ---------------------------------------------------------------------------------------------
// HTML

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

// ---------------------------------------------------------------------------------------------
// Charts

const WIDTH = 500;
const HEIGHT = 220;

/** The vega-lite specs of the charts that have data, in page order. */
function chartSpecs({ series }: SimReport): TopLevelSpec[] {
  const specs: TopLevelSpec[] = [];
  if (series.nodes.length > 0)
    specs.push(
      lineChart(
        'Live nodes over time',
        series.nodes.map((p) => ({ s: p.t / 1000, y: p.alive })),
        'live nodes',
        'step-after', // the count changes at an instant and holds until the next change
      ),
    );
  if (series.rssMb.length > 0)
    specs.push(
      lineChart(
        'Memory in use (RSS) over time',
        series.rssMb.map((p) => ({ s: p.t / 1000, y: p.rss })),
        'resident memory (MiB)',
        'linear',
      ),
    );
  if (series.searchLatencyMs.length + series.createLatencyMs.length > 0)
    specs.push(latencyChart(series.searchLatencyMs, series.createLatencyMs));
  if (series.loadPerNode.length > 0) specs.push(loadChart(series.loadPerNode));
  const protocols = Object.entries(series.protocols);
  if (protocols.length > 0) specs.push(protocolChart(protocols));
  return specs;
}

function lineChart(
  title: string,
  values: { s: number; y: number }[],
  yTitle: string,
  interpolate: 'linear' | 'step-after',
): TopLevelSpec {
  return {
    title,
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    mark: { type: 'line', interpolate },
    encoding: {
      x: { field: 's', type: 'quantitative', title: 'time since start (s)' },
      y: { field: 'y', type: 'quantitative', title: yTitle },
    },
  };
}

/**
 * Cumulative distribution of both kinds, one colour each. vega-lite's quantile transform reduces
 * any number of operations to 201 points per kind, so the SVG stays small for large runs.
 */
function latencyChart(search: readonly number[], create: readonly number[]): TopLevelSpec {
  const values = [
    ...search.map((ms) => ({ kind: 'search', ms })),
    ...create.map((ms) => ({ kind: 'create', ms })),
  ];
  const probs = Array.from({ length: 201 }, (_, i) => i / 200);
  return {
    title: 'Search and create latency',
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    transform: [{ quantile: 'ms', groupby: ['kind'], probs, as: ['share', 'ms'] }],
    mark: { type: 'line' },
    encoding: {
      x: { field: 'ms', type: 'quantitative', title: 'latency (ms)' },
      y: {
        field: 'share',
        type: 'quantitative',
        title: 'share of operations this fast or faster',
        axis: { format: '%' },
      },
      color: { field: 'kind', type: 'nominal', title: 'operation' },
    },
  };
}

function loadChart(load: readonly number[]): TopLevelSpec {
  return {
    title: 'Index entries per node (load spread)',
    width: WIDTH,
    height: HEIGHT,
    data: { values: load.map((entries) => ({ entries })) },
    mark: { type: 'bar' },
    encoding: {
      x: {
        field: 'entries',
        type: 'quantitative',
        bin: { maxbins: 30 },
        title: 'index entries held',
      },
      y: { aggregate: 'count', type: 'quantitative', title: 'nodes' },
    },
  };
}

function protocolChart(
  protocols: [string, { streams: number; sends: number; bytes: number }][],
): TopLevelSpec {
  return {
    title: 'Bytes per protocol',
    width: WIDTH,
    height: { step: 20 },
    data: { values: protocols.map(([protocol, t]) => ({ protocol, bytes: t.bytes })) },
    mark: { type: 'bar' },
    encoding: {
      y: {
        field: 'protocol',
        type: 'nominal',
        sort: '-x',
        title: 'protocol',
        axis: { labelLimit: 320 },
      },
      x: { field: 'bytes', type: 'quantitative', title: 'bytes', axis: { format: '~s' } },
    },
  };
}

/** vega-lite → vega → SVG, headless (vega escapes the text it writes). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
