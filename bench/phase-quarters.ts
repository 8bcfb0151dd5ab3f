/**
 * The searches cut into quarters of their count: CPU, messages and connections opened in each,
 * so one run shows whether a message's cost settles as the searches go on (a swarm fresh from
 * its join opens connections its later searches find open) and what the last quarter costs.
 * Read when a quarter of the searches has ended (the simulator tells of each one), not on a
 * timer: with every message delivered at once the event loop seldom reaches its timers.
 */

/** Counters at one moment (a reading) or their growth over a quarter. */
export interface Quarter {
  cpuMs: number;
  messages: number;
  opened: number;
}
export type Reading = Quarter;

export interface QuarterClock {
  /** One more search ended. */
  increment(): void;
  /** The last search ended: the readings become quarters. */
  stop(): void;
  /** The four quarters, once stopped with every boundary read (none otherwise). */
  quarters(): Quarter[];
}

/** Reads `counters` at the start, after each quarter of `total` searches, and at the stop. */
export function quarterClock(
  counters: () => { messages: number; opened: number },
  total: number,
): QuarterClock {
  const read = (): Reading => {
    const c = process.cpuUsage();
    return { cpuMs: (c.user + c.system) / 1000, ...counters() };
  };
  // Fewer than four searches have no quarters: no boundary is read, and none come out.
  const bounds = total < 4 ? [] : [1, 2, 3].map((q) => Math.round((total * q) / 4));
  const readings: Reading[] = [read()];
  let done = 0;
  let result: Quarter[] = [];
  return {
    increment() {
      done++;
      // readings[0] is the start: the next boundary is the one at readings.length - 1.
      if (done === bounds[readings.length - 1]) readings.push(read());
    },
    stop() {
      readings.push(read());
      result = quarters(readings);
    },
    quarters: () => result,
  };
}

/** Four quarters from five readings (start, three boundaries, end); none from any other count. */
export function quarters(readings: Reading[]): Quarter[] {
  if (readings.length !== 5) return [];
  const out: Quarter[] = [];
  for (let q = 0; q < 4; q++) {
    const a = readings[q] as Reading;
    const b = readings[q + 1] as Reading;
    out.push({
      cpuMs: b.cpuMs - a.cpuMs,
      messages: b.messages - a.messages,
      opened: b.opened - a.opened,
    });
  }
  return out;
}
