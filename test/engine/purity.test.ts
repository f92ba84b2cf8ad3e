import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The engine is plain data in, plain data out: every number must be reproducible from the
// input alone, and the library must run anywhere (a Lambda, the CLI, a browser). Beside its own
// modules it may use only the ground-floor text helpers (lib/text), which are held to the same rules.
const folderSources = (folder: string) => {
  const dir = join(import.meta.dirname, '../../lib', folder);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file: `${folder}/${file}`, text: readFileSync(join(dir, file), 'utf8') }));
};
const sources = [...folderSources('engine'), ...folderSources('text')];

describe('lib/engine stays pure', () => {
  it.each(sources)('$file imports only its own modules and the text helpers', ({ file, text }) => {
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    const allowed = file.startsWith('engine/') ? /^\.\/|^\.\.\/text\/[\w-]+$/ : /^\.\//;
    for (const specifier of imports) expect(specifier).toMatch(allowed);
  });

  it.each(sources)('$file uses no randomness, clock or environment', ({ text }) => {
    expect(text).not.toMatch(/Math\.random|\bDate\b|performance\.now|process\.|Math\.log/);
  });
});
