import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../sim/scenario.ts';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.scenario'));

describe('the scenarios shipped in scenarios/', () => {
  it('are there', () => {
    expect(FILES).toContain('quickstart.scenario');
  });

  it.each(FILES)('%s parses', (f) => {
    const file = join(DIR, f);
    const statements = parseScenario(readFileSync(file, 'utf8'), file);
    expect(statements.some((s) => s.kind === 'at')).toBe(true);
  });
});
