/**
 * npm run screenshots — the web console's pictures in the README (docs/images/*.png): two
 * `cidx node` processes, a few communities, a search from one console and a notification
 * arriving in the other, taken with Debian's headless Chromium. Needs `npm run build` first.
 */
import { join } from 'node:path';
import {
  type Browser,
  createCommunity,
  launchBrowser,
  notificationAbout,
  search,
} from './browser.ts';
import { type NodeProcess, spawnNode, stop } from './process.ts';

const images = join(import.meta.dirname, '..', '..', 'docs', 'images');
const base = ['--rpc', '127.0.0.1:0', '--listen', '/ip4/127.0.0.1/tcp/0'];

const nodes: NodeProcess[] = [];
let browser: Browser | undefined;
try {
  browser = await launchBrowser();
  const a = await spawnNode(base);
  nodes.push(a);
  const b = await spawnNode([...base, '--bootstrap', a.ready.addrs[0] as string]);
  nodes.push(b);
  const pageA = await browser.page(a.ready.rpc);
  const pageB = await browser.page(b.ready.rpc);
  await createCommunity(pageA, {
    weights: { verdi: 1.4, rigoletto: 1.1, opera: 1.2, aria: 0.8, tenor: 0.5 },
  });
  await createCommunity(pageA, { weights: { opera: 1.5, puccini: 1.2, soprano: 0.9, aria: 0.6 } });
  await createCommunity(pageA, { weights: { chorus: 1.1, string: 0.9, quartet: 1, verdi: 0.4 } });
  await createCommunity(pageA, { weights: { violin: 1.3, cello: 0.9, quartet: 1.1, haydn: 0.7 } });
  await createCommunity(pageB, { weights: { jazz: 1.2, saxophone: 1, swing: 0.8 } });
  await search(
    pageB,
    'Verdi wrote Rigoletto. The tenor sings the aria, the opera chorus answers.\n\n' +
      'An evening of opera: Rigoletto and a string quartet.',
  );
  await pageB.screenshot({ path: join(images, 'console-search.png'), fullPage: true });
  const theirs = await createCommunity(pageB, {
    weights: { verdi: 1, opera: 1.3, aria: 1, soprano: 0.7 },
  });
  await notificationAbout(pageA, theirs);
  await pageA.screenshot({ path: join(images, 'console-node.png'), fullPage: true });
  if (browser.problems.length > 0) throw new Error(browser.problems.join('\n'));
  console.log(`wrote ${images}/console-search.png and console-node.png`);
} finally {
  await browser?.close();
  await Promise.allSettled(nodes.map((n) => stop(n)));
}
