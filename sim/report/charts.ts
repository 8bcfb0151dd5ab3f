/**
 * The report's charts: vega-lite specs of the series a run recorded, rendered to SVG headless
 * (vega-lite → vega). Only the HTML report loads this, and with it vega.
 */
import * as vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import * as vl from 'vega-lite';
import type { StreamTraffic } from '../../src/net/wire-meter.ts';
import type { SimReport } from './types.ts';

const WIDTH = 500;
const HEIGHT = 220;

/** The vega-lite specs of the charts that have data, in page order. */
export function chartSpecs(report: SimReport): TopLevelSpec[] {
  const { series } = report;
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
  if (series.latencyOverTime.length > 0)
    specs.push(latencyOverTimeChart(series.latencyOverTime, report.network?.partitions ?? []));
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

/** Most points drawn: a long run keeps an even sample, so the SVG stays small. */
const MAX_POINTS = 3000;

/**
 * Each operation's latency at the time it began, one colour per kind, with every partition
 * shaded from its start to its heal (or the end of the run).
 */
function latencyOverTimeChart(
  points: SimReport['series']['latencyOverTime'],
  partitions: NonNullable<SimReport['network']>['partitions'],
): TopLevelSpec {
  const step = Math.max(1, Math.ceil(points.length / MAX_POINTS));
  const values = points.filter((_, i) => i % step === 0).map((p) => ({ ...p, s: p.t / 1000 }));
  const end = Math.max(...values.map((v) => v.s + v.ms / 1000));
  const cuts = partitions.map((p) => ({
    from: p.began / 1000,
    to: (p.ended ?? end * 1000) / 1000,
    label: `partition ${p.n}`,
  }));
  const dots = {
    data: { values },
    mark: { type: 'point' as const, filled: true, size: 12, opacity: 0.6 },
    encoding: {
      x: { field: 's', type: 'quantitative' as const, title: 'time since start (s)' },
      y: { field: 'ms', type: 'quantitative' as const, title: 'latency (ms)' },
      color: { field: 'kind', type: 'nominal' as const, title: 'operation' },
    },
  };
  const shade = {
    data: { values: cuts },
    mark: { type: 'rect' as const, color: '#d33', opacity: 0.12 },
    encoding: {
      x: { field: 'from', type: 'quantitative' as const },
      x2: { field: 'to' },
      tooltip: { field: 'label', type: 'nominal' as const },
    },
  };
  return {
    title: 'Latency over the run',
    width: WIDTH,
    height: HEIGHT,
    layer: cuts.length > 0 ? [shade, dots] : [dots],
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

function protocolChart(protocols: [string, StreamTraffic][]): TopLevelSpec {
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
