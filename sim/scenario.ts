/**
 * The scenario language of `cidx sim` (reference: scenarios/README.md): one statement a line,
 * `#` comments. Each statement is parsed by its spec (sim/statements/), so an unknown word, a
 * bad value or an undeclared data set is an error naming `file:line` before anything runs.
 */
import { type ParseScope, ScenarioError, type Statement } from './language.ts';
import { LineParser } from './line-parser.ts';
import { statementSpec } from './statements/registry.ts';

export { ScenarioError, type Statement };

/** Parses a scenario; throws ScenarioError at the first bad line. */
export function parseScenario(text: string, file: string): Statement[] {
  const out: Statement[] = [];
  const scope: ParseScope = { datasets: new Set() };
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const content = raw.replace(/#.*$/, '').trim();
    if (content === '') return;
    const p = new LineParser(content.split(/\s+/), file, line);
    const word = p.word('a statement');
    const spec = statementSpec(word) ?? p.fail(`unknown statement "${word}"`);
    const parsed = spec.parse(p, scope);
    p.end();
    out.push({ line, text: content, ...parsed });
  });
  return out;
}
