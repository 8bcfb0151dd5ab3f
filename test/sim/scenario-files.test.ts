import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../sim/scenario.ts';
import { SETTINGS } from '../../src/settings/table.ts';
import { entriesOf } from '../../src/settings/tree.ts';

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

describe('the language reference (scenarios/README.md)', () => {
  it('documents every scenario key of the settings table, with its flag', () => {
    const doc = readFileSync(join(DIR, 'README.md'), 'utf8');
    for (const { setting: s } of entriesOf(SETTINGS)) {
      if (s.scenario === undefined) continue;
      expect(doc).toContain(`${s.scenario.key}=`);
      expect(doc).toContain(`--${s.flag}`);
    }
  });
});
