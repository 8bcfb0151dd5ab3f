/**
 * The report's content as tables, whatever the format: expectations, metrics grouped by their
 * first name segment, traffic per protocol, latency percentiles, the timeline. Markdown and
 * HTML render the same sections.
 */
import { percentileOfSorted } from '../metrics.ts';
import { formatBytes, formatDuration, formatNumber, isByteMetric, seconds } from './format.ts';
import { networkSection } from './network-section.ts';
import type { SimReport } from './types.ts';

/** A table of plain-text cells; each renderer escapes them its own way. */
export interface Table {
  head: string[];
  /** Per column: holds numbers (right-aligned). */
  numeric: boolean[];
  rows: string[][];
  /** Per row, an optional class for the HTML page (PASS/FAIL colouring). */
  rowClass?: string[];
}

export interface Section {
  title: string;
  /** A line before the tables, or in place of them when there is nothing to show. */
  text?: string;
  parts: { heading?: string; table: Table }[];
}

const MODE_TEXT: Record<SimReport['scenario']['mode'], string> = {
  'in-process': 'nodes in one process (memory transport)',
  workers:
    'nodes in worker threads of one process (memory transport, a MessagePort per connection between threads)',
  processes: 'a process per node (TCP on 127.0.0.1)',
  netns: 'a process per node, each in its own network namespace',
  endpoints: 'nodes running elsewhere (--endpoints)',
};

export function summaryLine({ scenario: s }: SimReport): string {
  return [
    `seed ${s.seed}`,
    `started ${s.startedAt}`,
    `ran ${formatDuration(s.durationMs)}`,
    s.machine,
    `peak ${formatNumber(s.nodesPeak)} nodes`,
    MODE_TEXT[s.mode],
    ...(s.interrupted ? ['interrupted: what was measured until then'] : []),
  ].join(' · ');
}

export function sections(report: SimReport): Section[] {
  const out: Section[] = [];
  if (report.expects.length > 0) out.push(expectSection(report));
  out.push(metricSection(report));
  if (report.network !== undefined) out.push(networkSection(report.network));
  out.push(trafficSection(report), latencySection(report), timelineSection(report));
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
  const total = { streams: 0, messages: 0, bytes: 0 };
  for (const [, t] of entries) {
    total.streams += t.streams;
    total.messages += t.messages;
    total.bytes += t.bytes;
  }
  const share = (bytes: number) =>
    total.bytes > 0 ? `${((100 * bytes) / total.bytes).toFixed(1)} %` : '—';
  const row = (name: string, t: typeof total) => [
    name,
    formatNumber(t.streams),
    formatNumber(t.messages),
    formatBytes(t.bytes),
    share(t.bytes),
  ];
  return {
    title: 'Traffic per protocol',
    parts: [
      {
        table: {
          head: ['protocol', 'streams', 'messages', 'bytes', 'share of bytes'],
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
