/**
 * The registry over every real payload: each is detected by exactly one format (never two), and
 * `auto` reads it in that format; what no format reads gets the error that says what was tried.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORMAT_NAMES, FormatError, readGraph } from '../../lib/formats';
import { FORMATS } from '../../lib/formats/registry';

const fixtures = join(import.meta.dirname, 'fixtures');
const documents = readdirSync(fixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((folder) =>
    readdirSync(join(fixtures, folder.name))
      .filter((file) => file.endsWith('.json'))
      .map((file) => ({
        folder: folder.name,
        file,
        document: JSON.parse(readFileSync(join(fixtures, folder.name, file), 'utf8')) as unknown,
      })),
  );

describe('the format registry', () => {
  it('lists every format once, the engine own first', () => {
    expect(FORMAT_NAMES[0]).toBe('native');
    expect(new Set(FORMAT_NAMES).size).toBe(FORMAT_NAMES.length);
    expect([...FORMAT_NAMES].sort()).toEqual(
      ['backstage', 'cytoscape', 'dependency-links', 'jgf', 'native', 'node-link', 'xray'].sort(),
    );
  });

  it.each(documents.map((entry) => [`${entry.folder}/${entry.file}`, entry]))(
    '%s is detected by exactly its own format',
    (_name, entry) => {
      const detecting = FORMATS.filter((format) => format.detect(entry.document)).map(
        (format) => format.name,
      );
      expect(detecting).toEqual([entry.folder]);
    },
  );

  // A document no format reads: the error lists what was tried and what the document looked like.
  it('says what it tried when nothing fits', () => {
    expect(() => readGraph({ services: [], version: 2 })).toThrow(FormatError);
    expect(() => readGraph({ services: [], version: 2 })).toThrow(
      'no known format fits this document (an object with keys "services", "version"); tried ' +
        FORMAT_NAMES.join(', '),
    );
    expect(() => readGraph([1, 2])).toThrow(/an array of 2, the first number/);
    expect(() => readGraph('text')).toThrow(/\(a string\)/);
  });

  // A named format that does not fit says so, with the element it missed.
  it('names the forced format that does not fit', () => {
    expect(() => readGraph({ nodes: [], dependencies: [] }, 'xray')).toThrow(/^not xray: /);
  });
});
