/**
 * The report's Network section: what the model added to the wire, the regions the nodes were
 * spread over and the round trips between them, what the model carried, and the partitions.
 */
import { formatBytes, formatNumber, seconds } from './format.ts';
import type { Section } from './sections.ts';
import type { NetworkReport } from './types.ts';

export function networkSection(n: NetworkReport): Section {
  const parts: Section['parts'] = [];
  if (n.regions !== undefined && n.regions.length > 0) {
    parts.push({
      heading: 'Regions',
      table: {
        head: ['region', 'name', 'nodes joined', 'alive at the end'],
        numeric: [false, false, true, true],
        rows: n.regions.map((r) => [r.id, r.name, formatNumber(r.joined), formatNumber(r.alive)]),
      },
    });
    const ids = n.regions.map((r) => r.id);
    parts.push({
      heading: 'Round trips between the regions used (ms, before access delay)',
      table: {
        head: ['', ...ids],
        numeric: [false, ...ids.map(() => true)],
        rows: (n.rttMs ?? []).map((row, i) => [ids[i] ?? '', ...row.map(formatNumber)]),
      },
    });
  }
  const s = n.stats;
  parts.push({
    heading: 'What the model carried',
    table: {
      head: ['measure', 'value'],
      numeric: [false, true],
      rows: [
        ['connections opened', formatNumber(s.connections)],
        ['round trip p50 of their links (ms)', formatNumber(s.rttP50Ms)],
        ['round trip p95 of their links (ms)', formatNumber(s.rttP95Ms)],
        ['bytes', formatBytes(s.bytes)],
        ['chunks', formatNumber(s.chunks)],
        ['bytes dropped by partitions', formatBytes(s.droppedBytes)],
        ['connections closed by partitions', formatNumber(s.closedByPartition)],
        ['dials lost in a partition', formatNumber(s.dialsDropped)],
      ],
    },
  });
  if (n.partitions.length > 0) {
    parts.push({
      heading: 'Partitions',
      table: {
        head: ['partition', 'began (s)', 'healed (s)', 'minority nodes', 'majority nodes'],
        numeric: [true, true, true, true, true],
        rows: n.partitions.map((p) => [
          String(p.n),
          seconds(p.began),
          p.ended === undefined ? '— (not healed)' : seconds(p.ended),
          formatNumber(p.minority),
          formatNumber(p.majority),
        ]),
      },
    });
  }
  return { title: 'Network', text: n.description, parts };
}
