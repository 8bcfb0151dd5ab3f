/**
 * Writing a whole file so that nobody ever sees half of it: a temporary file beside it, then a
 * rename. Shared by the tools (the CLI's outputs, the simulator's reports); no layer below
 * them uses it.
 */
import { randomBytes } from 'node:crypto';
import { rename, unlink, writeFile } from 'node:fs/promises';

export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
}
