/**
 * Preload (`node --import ./test/support/module-log.ts …`) that records every module the
 * process resolves, ES modules and CommonJS alike, through Node's synchronous module hooks, and
 * at exit writes `{ urls, maxRssKiB }` as JSON to the file named by MODULE_LOG_FILE. Tests use
 * it to prove what a command does not load; bench/startup.ts to count what it does.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.MODULE_LOG_FILE;
const urls = new Set<string>();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const r = nextResolve(specifier, context);
    urls.add(r.url);
    return r;
  },
});

process.on('exit', () => {
  if (out === undefined) return;
  writeFileSync(
    out,
    JSON.stringify({ urls: [...urls], maxRssKiB: process.resourceUsage().maxRSS }),
  );
});
