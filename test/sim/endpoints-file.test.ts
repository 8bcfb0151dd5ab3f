import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EndpointsFileError, readEndpoints } from '../../sim/endpoints/file.ts';

const dir = mkdtempSync(join(tmpdir(), 'cidx-endpoints-'));
const TOKEN = 'a-token-of-24-characters';

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('the endpoints file', () => {
  it('reads URLs, tokens on the line or in a file, comments; the environment token fills in', () => {
    file('n2.token', `${TOKEN}-two\n`);
    const path = file(
      'good.txt',
      [
        '# three nodes',
        `http://10.0.0.5:7070 token=${TOKEN}`,
        '',
        '  https://node2.example.org:7443/cidx token-file=n2.token   # behind a proxy',
        '127.0.0.1:7072',
      ].join('\n'),
    );
    expect(readEndpoints(path)).toEqual([
      { line: 2, url: 'http://10.0.0.5:7070', token: TOKEN },
      { line: 4, url: 'https://node2.example.org:7443/cidx', token: `${TOKEN}-two` },
      { line: 5, url: 'http://127.0.0.1:7072' },
    ]);
    expect(readEndpoints(path, 'from-the-environment')[2]).toEqual({
      line: 5,
      url: 'http://127.0.0.1:7072',
      token: 'from-the-environment',
    });
  });

  it.each([
    ['ftp://10.0.0.5:21', 1, 'not an http(s) URL'],
    ['http://10.0.0.5:7070 tokn=abc', 1, 'unknown field "tokn=abc"'],
    ['http://10.0.0.5:7070 token=short', 1, 'a token is 16 to 1024 printable characters'],
    [`http://10.0.0.5:7070 token=${TOKEN} token=${TOKEN}`, 1, 'one token a line'],
    ['http://10.0.0.5:7070 token-file=missing.token', 1, 'token-file'],
    ['http://a:7070\n# x\nhttp://a:7070/', 3, 'http://a:7070 is already on line 1'],
    ['http://user:pw@10.0.0.5:7070', 1, 'no user or password in the URL'],
    ['http://10.0.0.5:7070/?x=1', 1, 'no query or fragment'],
    ['# nothing but comments\n', undefined, 'no endpoints'],
  ])('refuses %j, naming line %s', (text, line, message) => {
    const path = file('bad.txt', text);
    let err: unknown;
    try {
      readEndpoints(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EndpointsFileError);
    expect((err as Error).message).toContain(
      line === undefined ? `${path}: ` : `${path}:${line}: `,
    );
    expect((err as Error).message).toContain(message);
  });

  it('names a file it cannot read', () => {
    expect(() => readEndpoints(join(dir, 'absent.txt'))).toThrow(
      /absent\.txt: cannot read \(ENOENT\)/,
    );
  });
});
