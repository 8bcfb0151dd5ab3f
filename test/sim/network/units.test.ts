import { describe, expect, it } from 'vitest';
import { parseDuration, parseRate, transmitMs, UnitError } from '../../../sim/network/units.ts';

describe('network units', () => {
  it('reads durations in ms, s, m and h', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2s')).toBe(2000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('0ms')).toBe(0);
  });

  it('reads rates as decimal bits per second', () => {
    expect(parseRate('100kbit')).toBe(100_000);
    expect(parseRate('1mbit')).toBe(1_000_000);
    expect(parseRate('10mbit')).toBe(10_000_000);
    expect(parseRate('1gbit')).toBe(1_000_000_000);
    expect(parseRate('2.5Mbit')).toBe(2_500_000);
  });

  it('refuses other text with an error naming the setting', () => {
    expect(() => parseDuration('250', 'latency')).toThrow(UnitError);
    expect(() => parseDuration('250', 'latency')).toThrow(
      'latency must be a duration such as 250ms, 2s or 1m, not "250"',
    );
    expect(() => parseDuration('-5ms', 'jitter')).toThrow('jitter must be a duration');
    expect(() => parseRate('1mb', 'bandwidth')).toThrow(
      'bandwidth must be a rate such as 100kbit, 10mbit or 1gbit, not "1mb"',
    );
    expect(() => parseRate('0mbit', 'bandwidth')).toThrow('more than 0 bits per second');
  });

  it('125 KB leave a 1 mbit uplink in one second', () => {
    expect(transmitMs(125_000, 1_000_000)).toBe(1000);
  });
});
