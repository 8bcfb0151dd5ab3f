import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../../sim/metrics.ts';
import { renderHtml } from '../../sim/report/html.ts';
import { renderMarkdown } from '../../sim/report/markdown.ts';
import type { SimReport } from '../../sim/report/types.ts';
import { writeReports } from '../../sim/report/write.ts';

const EVIL = 'a|b <script>alert(1)</script>';

/** A small run with every series filled, and hostile text in a command, a note and names. */
function sampleReport(): SimReport {
  return {
    scenario: {
      file: 'scenarios/small.cidx',
      seed: 42,
      startedAt: '2025-01-02T03:04:05.000Z',
      durationMs: 83_250,
      machine: 'node v24.21.0, Test CPU × 2',
      nodesPeak: 12,
      mode: 'processes',
    },
    metrics: {
      'search.top1_agreement': 0.987654,
      'search.count': 100,
      'messages.sent': 4321,
      'bytes.sent': 12_345_678,
      'index.entries': 640,
      'load.max_over_mean': 1.8333333,
      'notes.odd|name<b>': 3,
    },
    network: {
      description: `regions ${EVIL} (2 regions), access 10 ms at each end, uplink unlimited`,
      stats: {
        members: 12,
        connections: 40,
        rttP50Ms: 180,
        rttP95Ms: 310,
        bytes: 1_000_000,
        chunks: 4000,
        droppedChunks: 3,
        droppedBytes: 2048,
        closedByPartition: 6,
        dialsDropped: 1,
        inFlight: 0,
        held: 0,
      },
      regions: [
        { id: 'europe', name: 'Europe', joined: 7, alive: 6 },
        { id: 'asia-east', name: 'East Asia', joined: 5, alive: 5 },
      ],
      rttMs: [
        [12, 250],
        [250, 40],
      ],
      partitions: [{ n: 1, began: 1800, ended: 2900, minority: 4, majority: 8 }],
    },
    expects: [
      {
        line: 12,
        text: 'expect search.top1_agreement >= 0.9',
        metric: 'search.top1_agreement',
        op: '>=',
        value: 0.9,
        actual: 0.987654,
        pass: true,
      },
      {
        line: 13,
        text: 'expect load.max_over_mean < 1.5',
        metric: 'load.max_over_mean',
        op: '<',
        value: 1.5,
        actual: 1.8333333,
        pass: false,
      },
      {
        line: 14,
        text: 'expect missing.metric == 1',
        metric: 'missing.metric',
        op: '==',
        value: 1,
        actual: null,
        pass: false,
      },
    ],
    timeline: [
      { t: 0, line: 3, command: 'nodes 12', durationMs: 1520 },
      { t: 1520, line: 5, command: `create 10 ${EVIL}`, durationMs: 240.5, note: EVIL },
      { t: 1761, line: 7, command: 'search 100', durationMs: 3100, note: 'all answered' },
    ],
    series: {
      nodes: [
        { t: 0, alive: 0 },
        { t: 500, alive: 6 },
        { t: 1000, alive: 12 },
      ],
      rssMb: [
        { t: 0, rss: 80.5 },
        { t: 1000, rss: 120.25 },
      ],
      // Shuffled 1..100: percentiles must not depend on the order.
      searchLatencyMs: Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1),
      createLatencyMs: [30, 5, 9, 7],
      latencyOverTime: [
        { t: 1520, ms: 30, kind: 'create' },
        { t: 1761, ms: 420, kind: 'search' },
        { t: 2300, ms: 3800, kind: 'search' },
      ],
      loadPerNode: [50, 48, 61, 55, 40, 70, 52, 49, 58, 60, 44, 53],
      protocols: {
        '/cidx/index/1.0.0': { streams: 400, messages: 800, bytes: 600_000 },
        '/cidx/profiles/kad/1.0.0': { streams: 300, messages: 600, bytes: 300_000 },
        '/evil/<script>x</script>': { streams: 10, messages: 20, bytes: 100_000 },
      },
    },
  };
}

/** The same run with no memory samples, no creates and no load figures. */
function sparseReport(): SimReport {
  const r = sampleReport();
  r.expects = [];
  r.series.rssMb = [];
  r.series.createLatencyMs = [];
  r.series.loadPerNode = [];
  delete r.network;
  return r;
}

const count = (text: string, needle: string) => text.split(needle).length - 1;
/** Cells of a Markdown table row: split at the pipes that are not escaped. */
const cells = (row: string) => row.split(/(?<!\\)\|/).length - 2;

let dir: string;
let report: SimReport;
let paths: { json: string; md: string; html: string };
let md: string;
let html: string;

beforeAll(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'cidx-report-')), 'nested', 'out');
  report = sampleReport();
  paths = await writeReports(report, dir);
  md = await readFile(paths.md, 'utf8');
  html = await readFile(paths.html, 'utf8');
});

afterAll(async () => {
  await rm(join(dir, '..', '..'), { recursive: true, force: true });
});

describe('writeReports', () => {
  it('writes the three files into the created directory and nothing else', async () => {
    expect(paths).toEqual({
      json: join(dir, 'report.json'),
      md: join(dir, 'report.md'),
      html: join(dir, 'report.html'),
    });
    expect((await readdir(dir)).sort()).toEqual(['report.html', 'report.json', 'report.md']);
  });

  it('writes the report as pretty JSON that reads back equal, keys in the given order', async () => {
    const text = await readFile(paths.json, 'utf8');
    expect(JSON.parse(text)).toEqual(report);
    expect(text).toBe(`${JSON.stringify(report, null, 2)}\n`);
    expect(Object.keys(JSON.parse(text).metrics)).toEqual(Object.keys(report.metrics));
  });

  it('writes what the renderers return', async () => {
    expect(md).toBe(renderMarkdown(report));
    expect(html).toBe(await renderHtml(report));
  });

  it('replaces existing files and leaves no temporary file', async () => {
    const again = sparseReport();
    await writeReports(again, dir);
    expect((await readdir(dir)).sort()).toEqual(['report.html', 'report.json', 'report.md']);
    expect(JSON.parse(await readFile(paths.json, 'utf8'))).toEqual(again);
  });
});

describe('percentile (nearest rank)', () => {
  it('is the ⌈p·n/100⌉-th smallest value', () => {
    const values = sampleReport().series.searchLatencyMs;
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 90)).toBe(90);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([30, 5, 9, 7], 50)).toBe(7);
    expect(percentile([30, 5, 9, 7], 90)).toBe(30);
    expect(percentile([42], 1)).toBe(42);
    // (7 / 100) · 100 is 7.000…01: the rank must not round up to 8.
    expect(percentile(values, 7)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('renderMarkdown', () => {
  it('has the title and the run line', () => {
    expect(md.startsWith('# Simulation report: scenarios/small.cidx\n')).toBe(true);
    expect(md).toContain(
      'seed 42 · started 2025-01-02T03:04:05.000Z · ran 1 min 23 s · node v24.21.0, Test CPU × 2 · peak 12 nodes · a process per node (TCP on 127.0.0.1)',
    );
  });

  it('puts the expects first, each with its result', () => {
    expect(md.indexOf('## Expectations')).toBeLessThan(md.indexOf('## Metrics'));
    expect(md).toContain('1 of 3 passed');
    expect(md).toContain('| 12 | expect search.top1_agreement \\>= 0.9 | 0.9877 | PASS |');
    expect(md).toContain('| 13 | expect load.max_over_mean \\< 1.5 | 1.833 | FAIL |');
    expect(md).toContain('| 14 | expect missing.metric == 1 | — (no such metric) | FAIL |');
    expect(renderMarkdown(sparseReport())).not.toContain('Expectations');
  });

  it('groups metrics by their first segment and formats their values', () => {
    for (const group of ['search', 'messages', 'bytes', 'index', 'load', 'notes'])
      expect(md).toContain(`### ${group}\n`);
    expect(md).toContain('| search.top1_agreement | 0.9877 |');
    expect(md).toContain('| search.count | 100 |');
    expect(md).toContain('| messages.sent | 4,321 |');
    expect(md).toContain('| bytes.sent | 12,345,678 (11.8 MiB) |');
    expect(md).toContain('| load.max_over_mean | 1.833 |');
    expect(md.indexOf('### search')).toBeLessThan(md.indexOf('### messages'));
  });

  it('tabulates traffic per protocol with each share of the bytes', () => {
    expect(md).toContain('| /cidx/index/1.0.0 | 400 | 800 | 600,000 (586 KiB) | 60.0 % |');
    expect(md).toContain('| /cidx/profiles/kad/1.0.0 | 300 | 600 | 300,000 (293 KiB) | 30.0 % |');
    expect(md).toContain('| total | 710 | 1,420 | 1,000,000 (977 KiB) | 100.0 % |');
  });

  it('gives nearest-rank latency percentiles, and dashes for no data', () => {
    expect(md).toContain('| search | 100 | 50 | 90 | 99 | 100 |');
    expect(md).toContain('| create | 4 | 7 | 30 | 30 | 30 |');
    expect(renderMarkdown(sparseReport())).toContain('| create | 0 | — | — | — | — |');
  });

  it('states the network model: regions and their nodes, round trips, what it carried, partitions', () => {
    expect(md).toContain('## Network\n');
    expect(md).toContain('| europe | Europe | 7 | 6 |');
    expect(md).toContain('|  | europe | asia-east |');
    expect(md).toContain('| asia-east | 250 | 40 |');
    expect(md).toContain('| round trip p50 of their links (ms) | 180 |');
    expect(md).toContain('| 1 | 1.800 | 2.900 | 4 | 8 |');
    expect(renderMarkdown(sparseReport())).not.toContain('## Network');
  });

  it('lists the timeline in seconds', () => {
    expect(md).toContain('| 0.000 | 3 | nodes 12 | 1.52 s |  |');
    expect(md).toContain('| 1.761 | 7 | search 100 | 3.10 s | all answered |');
  });

  it('escapes pipes and markup from the report, so every table row keeps its cells', () => {
    expect(md).not.toContain('<script>');
    expect(md).toContain('create 10 a\\|b \\<script\\>alert(1)\\</script\\> | 240.5 ms | a\\|b');
    expect(md).toContain('| notes.odd\\|name\\<b\\> | 3 |');
    const tables = md.split(/\n\n/).filter((block) => block.startsWith('|'));
    expect(tables.length).toBeGreaterThan(5);
    for (const table of tables) {
      const rows = table.trimEnd().split('\n');
      for (const row of rows) expect(cells(row), row).toBe(cells(rows[0] ?? ''));
    }
  });
});

describe('renderHtml', () => {
  it('is a self-contained page: inline style, no script, no external resource', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|<img|@import|@font-face/i);
    // Only XML namespace URIs inside the SVG, nothing fetched.
    for (const url of html.match(/https?:\/\/[^\s"')]+/g) ?? [])
      expect(url).toMatch(/^http:\/\/www\.w3\.org\//);
  });

  it('escapes every string from the report, in tables and in charts', () => {
    expect(html).toContain('create 10 a|b &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('notes.odd|name&lt;b&gt;');
    expect(html).not.toContain('<b>');
    expect(html).toMatch(/\/evil\/&lt;script&gt;x&lt;\/script&gt;/);
  });

  it('has the same tables as the Markdown', () => {
    expect(html).toContain(
      '<tr class="pass"><td class="num">12</td><td>expect search.top1_agreement &gt;= 0.9</td><td class="num">0.9877</td><td>PASS</td></tr>',
    );
    expect(html).toContain('<tr class="fail">');
    expect(html).toContain('<td class="num">12,345,678 (11.8 MiB)</td>');
    expect(html).toContain(
      '<tr><td>search</td><td class="num">100</td><td class="num">50</td><td class="num">90</td><td class="num">99</td><td class="num">100</td></tr>',
    );
  });

  it('draws one SVG chart per series that has data', async () => {
    const titles = [
      'Live nodes over time',
      'Memory in use (RSS) over time',
      'Search and create latency',
      'Latency over the run',
      'Index entries per node (load spread)',
      'Bytes per protocol',
    ];
    expect(count(html, '<svg')).toBe(6);
    for (const title of titles) expect(html).toContain(title);

    const sparse = await renderHtml(sparseReport());
    expect(count(sparse, '<svg')).toBe(4);
    expect(sparse).not.toContain('Memory in use');
    expect(sparse).not.toContain('load spread');
    expect(sparse).toContain('Search and create latency');

    const empty = sparseReport();
    empty.series = {
      nodes: [],
      rssMb: [],
      searchLatencyMs: [],
      createLatencyMs: [],
      latencyOverTime: [],
      loadPerNode: [],
      protocols: {},
    };
    const bare = await renderHtml(empty);
    expect(count(bare, '<svg')).toBe(0);
    expect(bare).not.toContain('<h2>Charts</h2>');
  });
});
