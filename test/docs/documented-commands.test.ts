import { describe, expect, it } from 'vitest';
import { documentedCommands, matchesAnswer } from './documented-commands';

describe('documentedCommands', () => {
  // Only marked blocks count; a command runs on past a backslash and past a newline in quotes;
  // its answer is a `# → …` comment at the end of its line or on the lines after it.
  it('reads the commands of marked sh blocks with their answers', () => {
    const markdown = [
      '```sh',
      'echo unmarked',
      '```',
      'text',
      '```sh local-server',
      '# a comment',
      'JSON=\'{"a":1,',
      '  "b":2}\'',
      'curl -sS "$SBE_URL/api/keys" \\',
      '  -H "Authorization: Bearer $SBE_TOKEN"   # → 200 {"keys":[…]}',
      'curl -sS "$SBE_URL/api/engine" -d "$JSON"',
      '# → {"mode":"analyze",',
      '#    "engine":{…}}',
      '```',
    ].join('\n');
    expect(documentedCommands('doc.md', markdown)).toEqual([
      { where: 'doc.md:7', command: 'JSON=\'{"a":1,\n  "b":2}\'' },
      {
        where: 'doc.md:9',
        command:
          'curl -sS "$SBE_URL/api/keys" \\\n  -H "Authorization: Bearer $SBE_TOKEN"   # → 200 {"keys":[…]}',
        expected: '200 {"keys":[…]}',
      },
      {
        where: 'doc.md:11',
        command: 'curl -sS "$SBE_URL/api/engine" -d "$JSON"',
        expected: '{"mode":"analyze","engine":{…}}',
      },
    ]);
  });

  // A transcript: `$ ` lines are commands, what follows each is its output; indented blocks too.
  it('reads marked console blocks, in list items as well', () => {
    const markdown = [
      '- a list item:',
      '',
      '  ```console local-server',
      '  $ npm run keys -- list',
      '  ID  OWNER',
      '  …',
      '  $ true',
      '  ```',
    ].join('\n');
    expect(documentedCommands('doc.md', markdown)).toEqual([
      { where: 'doc.md:4', command: 'npm run keys -- list', expected: 'ID  OWNER\n…' },
      { where: 'doc.md:7', command: 'true' },
    ]);
  });
});

describe('matchesAnswer', () => {
  it('takes … for anything and runs of spaces for any spaces', () => {
    expect(matchesAnswer('{"id":"…","version":1}', '{"id":"01J","version":1}\n')).toBe(true);
    expect(matchesAnswer('ID  OWNER', 'ID      OWNER')).toBe(true);
    expect(matchesAnswer('a (b) [c] $d', 'a (b) [c] $d')).toBe(true);
  });

  // What the README showed before the answer carried "version": a drift like it fails.
  it('refuses an answer the docs do not show', () => {
    expect(matchesAnswer('{"id":"…","unit":"as-sent"}', '{"id":"01J","unit":"as-sent","version":1}')).toBe(
      false,
    );
    expect(matchesAnswer('{"a":1,…}', '{"a":2,"b":3}')).toBe(false);
  });
});
