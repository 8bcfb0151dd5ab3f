/** How numbers, byte counts and durations read in the reports. */

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
export function formatBytes(v: number): string {
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
export const isByteMetric = (name: string) => /(^|[._])bytes($|[._])/.test(name);

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || Math.abs(ms) < 1000) return `${formatNumber(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

export const seconds = (ms: number) => (ms / 1000).toFixed(3);
