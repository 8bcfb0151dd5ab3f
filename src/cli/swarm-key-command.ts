import { randomBytes } from 'node:crypto';
import { link, unlink, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from './io.ts';

export function registerSwarmKeyCommand(program: Command): void {
  program
    .command('swarm-key')
    .description('print a new pre-shared key for a private swarm (or write it to a file)')
    .option('-o, --out <file>', 'write the key to this new file, mode 0600 (never overwritten)')
    .addHelpText(
      'after',
      `
Every node of a private swarm runs with the same key (cidx node --swarm-key <file>): a peer
without it cannot complete a connection with any of them. The key is a shared secret — whoever
holds it is in the swarm; keep the file private and hand it over by a safe channel.

Examples:
  cidx swarm-key -o swarm.key
  cidx node --swarm-key swarm.key --bootstrap /ip4/…/tcp/4001/p2p/12D3KooW…`,
    )
    .action(async (flags: { out?: string }) => {
      // libp2p loads only when a key is made: `cidx --help` stays light.
      const { newSwarmKey } = await import('../net/swarm-key.ts');
      const key = newSwarmKey();
      const text = `${new TextDecoder().decode(key)}\n`;
      if (flags.out === undefined || flags.out === '-') {
        process.stdout.write(text);
        return;
      }
      await writeNewPrivateFile(flags.out, text);
    });
}

/**
 * Writes a file readable by its owner only, in full or not at all, and never over an existing
 * file: another key there may be a swarm's only copy.
 */
async function writeNewPrivateFile(path: string, text: string): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, { flag: 'wx', mode: 0o600 });
    // link, unlike rename, refuses an existing target.
    await link(tmp, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(
      code === 'EEXIST'
        ? `${path}: already exists (a swarm key is never overwritten; remove it first)`
        : `${path}: cannot write (${code})`,
    );
  } finally {
    await unlink(tmp).catch(() => {});
  }
}
