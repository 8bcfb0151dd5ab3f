/** `cidx sim <scenario> [--out <dir>] [--seed <n>] [--stack-traces]`: parse, run, report; returns the exit code. */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { runScenario } from './interpreter.ts';
import { writeReports } from './report/write.ts';
import { parseScenario, ScenarioError } from './scenario.ts';

export interface SimOptions {
  out?: string;
  seed?: number;
  progress?: boolean;
  /** Keep stack traces on errors while the scenario runs (RunOptions.stackTraces). */
  stackTraces?: boolean;
}

/** 0 when every expect holds, 1 when one fails, 2 on a scenario error (message with file:line). */
export async function runSimulation(file: string, o: SimOptions = {}): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    process.stderr.write(
      `cidx: ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})\n`,
    );
    return 2;
  }
  const out = o.out ?? `sim-out/${basename(file).replace(/\.[^.]*$/, '')}`;
  try {
    const statements = parseScenario(text, file);
    const report = await runScenario(statements, {
      file,
      progress: o.progress ?? true,
      stackTraces: o.stackTraces === true,
      seed: o.seed,
      onReport: async (r) => {
        await writeReports(r, out);
      },
    });
    const paths = await writeReports(report, out);
    const failed = report.expects.filter((e) => !e.pass);
    process.stderr.write(
      `${report.expects.length - failed.length}/${report.expects.length} expects hold; reports: ${paths.md}, ${paths.html}, ${paths.json}\n`,
    );
    for (const f of failed)
      process.stderr.write(
        `FAIL ${file}:${f.line}: ${f.text} (actual ${f.actual ?? 'no such metric'})\n`,
      );
    return failed.length === 0 ? 0 : 1;
  } catch (err) {
    if (err instanceof ScenarioError) {
      process.stderr.write(`cidx: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
