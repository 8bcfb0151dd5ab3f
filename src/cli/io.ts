import { readFile, stat } from 'node:fs/promises';
import { parseJsonLines } from '../profile/documents.ts';
import { writeFileAtomic } from '../util/write-file-atomic.ts';

/** An error meant for the user: printed as one line, with the given exit code. */
export class UsageError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = exitCode;
  }
}

const DEFAULT_MAX_INPUT_BYTES = 512 * 1024 * 1024;

/** Reads a whole text file (or stdin for "-"), refusing files larger than `maxBytes`. */
export async function readText(path: string, maxBytes = DEFAULT_MAX_INPUT_BYTES): Promise<string> {
  if (path === '-') return readStdin(maxBytes);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (err) {
    throw new UsageError(
      `${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (size > maxBytes) throw new UsageError(`${path}: larger than ${maxBytes} bytes`);
  return readFile(path, 'utf8');
}

async function readStdin(maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) throw new UsageError(`stdin: larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON values of a file: a single JSON document, or JSON Lines (one value a line). */
export async function readJsonValues(path: string): Promise<{ where: string; value: unknown }[]> {
  const text = await readText(path);
  try {
    return [{ where: path, value: JSON.parse(text) }];
  } catch {
    try {
      return parseJsonLines(text, path).map(({ line, value }) => ({
        where: `${path}:${line}`,
        value,
      }));
    } catch (err) {
      throw new UsageError((err as Error).message, 1);
    }
  }
}

/**
 * Writes the output to a file atomically (a failure never leaves a half-written file behind),
 * or to stdout when no path is given.
 */
export async function writeOutput(path: string | undefined, text: string): Promise<void> {
  if (path === undefined || path === '-') {
    process.stdout.write(text);
    return;
  }
  try {
    await writeFileAtomic(path, text);
  } catch (err) {
    throw new UsageError(
      `${path}: cannot write (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}
