import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The engine is plain data in, plain data out: every number must be reproducible from the
// input alone, and the library must run anywhere (a Lambda, the CLI, a browser).
const engineDir = join(import.meta.dirname, '../../lib/engine');
const sources = readdirSync(engineDir)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(join(engineDir, file), 'utf8') }));

describe('lib/engine stays pure', () => {
  it.each(sources)('$file imports only its own modules', ({ text }) => {
    const imports = [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    for (const specifier of imports) expect(specifier).toMatch(/^\.\//);
  });

  it.each(sources)('$file uses no randomness, clock or environment', ({ text }) => {
    expect(text).not.toMatch(/Math\.random|\bDate\b|performance\.now|process\.|Math\.log/);
  });
});
