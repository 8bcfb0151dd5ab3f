/**
 * npm run bench:harness — what the process modes of the simulator cost before any scenario
 * runs: the time to create and destroy a test network of N namespaces (switch, N hosts,
 * control leg), and the start-up time and memory of one `cidx node` process, on 127.0.0.1 and
 * inside a namespace. Needs root, iproute2, nftables and `npm run build`.
 *
 * Usage: npm run bench:harness [-- --sizes 10,30 --runs 3]
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { NetnsNetwork } from '../sim/netns/index.ts';
import { ProcessHarness } from '../sim/processes/index.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs('bench:harness', {
  options: {
    sizes: { type: 'string', default: '10,30' },
    runs: { type: 'string', default: '3' },
  },
});
const SIZES = values.sizes.split(',').map(Number);
const RUNS = Number(values.runs);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const ms = (x: number) => x.toFixed(0);

/**
 * VmRSS, RssAnon (the process's own memory; the rest is mostly the node binary's pages, which
 * every node process shares) and VmHWM (peak RSS), in MiB.
 */
function memory(pid: number): { rss: number; anon: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kib('VmRSS') / 1024, anon: kib('RssAnon') / 1024, peak: kib('VmHWM') / 1024 };
}

console.log(`# bench:harness — ${new Date().toISOString()}\n`);
console.log(`Median of ${RUNS} runs each.\n`);
console.log('| namespaces (hosts + switch) | create ms | destroy ms | per host ms |');
console.log('|---|---|---|---|');
for (const n of SIZES) {
  const create: number[] = [];
  const destroy: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let t = performance.now();
    const net = await NetnsNetwork.create({ hosts: n });
    create.push(performance.now() - t);
    t = performance.now();
    await net.destroy();
    destroy.push(performance.now() - t);
  }
  const c = median(create);
  console.log(`| ${n} + 1 | ${ms(c)} | ${ms(median(destroy))} | ${(c / n).toFixed(1)} |`);
}

console.log(
  '\n| one `cidx node` process | start → ready ms | RSS at ready MiB | after 10 s: RSS MiB | of it anonymous MiB | peak RSS MiB |',
);
console.log('|---|---|---|---|---|---|');
const net = await NetnsNetwork.create({ hosts: 1 });
const harness = new ProcessHarness({ network: net });
try {
  for (const where of ['127.0.0.1', 'in a namespace'] as const) {
    const start: number[] = [];
    const ready: number[] = [];
    const idle: number[] = [];
    const anon: number[] = [];
    const peak: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t = performance.now();
      const p = await harness.start({
        name: `${where === '127.0.0.1' ? 'lo' : 'ns'}${r}`,
        host: where === 'in a namespace' ? net.hosts[0] : undefined,
      });
      start.push(performance.now() - t);
      ready.push(memory(p.pid).rss);
      await sleep(10_000);
      const m = memory(p.pid);
      idle.push(m.rss);
      anon.push(m.anon);
      peak.push(m.peak);
      await harness.leave(p);
    }
    console.log(
      `| ${where} | ${ms(median(start))} | ${median(ready).toFixed(0)} | ${median(idle).toFixed(0)} | ${median(anon).toFixed(0)} | ${median(peak).toFixed(0)} |`,
    );
  }
} finally {
  await harness.close();
  await net.destroy();
}
