/**
 * The shell blocks of the README and docs/*.md that run against the local server, read as a
 * reader reads them. A block is marked by its fence: ```` ```sh local-server ```` (commands, each
 * answer in a `# → …` comment after it or at the end of its line) or ```` ```console local-server ````
 * (a transcript: `$ ` commands, each followed by the output it prints). In an answer, `…` stands
 * for anything; an answer that starts with a status (`# → 201 {…}`) is the HTTP status of a curl
 * and then its body.
 */

export interface DocumentedCommand {
  /** Where it is written: `README.md:92`. */
  where: string;
  /** The command as written, continuation lines joined with their backslashes. */
  command: string;
  /** The answer the docs show, if any (`…` matches anything). */
  expected?: string;
}

const FENCE = /^(\s*)```(sh|console) local-server\s*$/;

/** Every marked block's commands, in the order they are written. */
export function documentedCommands(file: string, markdown: string): DocumentedCommand[] {
  const lines = markdown.split('\n');
  const commands: DocumentedCommand[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = FENCE.exec(lines[index] ?? '');
    if (fence === null) continue;
    // A block in a list item is indented: its lines lose that indent.
    const [, indent = '', kind] = fence;
    const start = index + 1;
    let end = start;
    while (end < lines.length && !(lines[end] ?? '').trimStart().startsWith('```')) end++;
    const block = lines
      .slice(start, end)
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
    for (const { line, ...found } of kind === 'sh' ? shellBlock(block) : consoleBlock(block)) {
      commands.push({ where: `${file}:${start + 1 + line}`, ...found });
    }
    index = end;
  }
  return commands;
}

type Found = Omit<DocumentedCommand, 'where'> & { line: number };

/** `# → answer` comments: at the end of a command's last line, or on lines of their own after it. */
function shellBlock(lines: readonly string[]): Found[] {
  const found: Found[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      index++;
      continue;
    }
    const first = index;
    const parts = [line];
    // A command goes on past a trailing backslash, and past the end of a line inside quotes.
    let open = openQuote(line, undefined);
    while (
      (open !== undefined || (parts.at(-1) ?? '').trimEnd().endsWith('\\')) &&
      index + 1 < lines.length
    ) {
      index++;
      parts.push(lines[index] ?? '');
      open = openQuote(lines[index] ?? '', open);
    }
    index++;
    const command = parts.join('\n');
    let expected = inlineAnswer(parts.at(-1) ?? '');
    // An answer on the lines after: `# → …`, continued by `#    …` lines.
    if (expected === undefined && /^\s*# → /.test(lines[index] ?? '')) {
      expected = (lines[index] ?? '').replace(/^\s*# → /, '');
      index++;
      while (/^\s*# {2,}\S/.test(lines[index] ?? '')) {
        expected += (lines[index] ?? '').replace(/^\s*# +/, '');
        index++;
      }
    }
    found.push({ command, line: first, ...(expected === undefined ? {} : { expected: expected.trim() }) });
  }
  return found;
}

/** The quote still open at the end of `line`, given the one open at its start (POSIX shell rules). */
function openQuote(line: string, open: "'" | '"' | undefined): "'" | '"' | undefined {
  let quote = open;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (quote === "'") {
      if (char === "'") quote = undefined;
    } else if (quote === '"') {
      if (char === '\\') at++;
      else if (char === '"') quote = undefined;
    } else if (char === '\\') at++;
    else if (char === "'" || char === '"') quote = char;
    // A comment runs to the end of the line; quotes in it are words.
    else if (char === '#' && (at === 0 || /\s/.test(line[at - 1] ?? ''))) break;
  }
  return quote;
}

function inlineAnswer(line: string): string | undefined {
  const at = line.indexOf('# → ');
  return at < 0 ? undefined : line.slice(at + '# → '.length);
}

/** `$ command` lines, each followed by what it prints (`…` for what varies). */
function consoleBlock(lines: readonly string[]): Found[] {
  const found: Found[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (!line.startsWith('$ ')) continue;
    const first = index;
    const output: string[] = [];
    while (index + 1 < lines.length && !(lines[index + 1] ?? '').startsWith('$ ')) {
      index++;
      output.push(lines[index] ?? '');
    }
    const expected = output.join('\n').trim();
    found.push({ command: line.slice(2), line: first, ...(expected === '' ? {} : { expected }) });
  }
  return found;
}

/**
 * Whether `actual` is what the docs show: `…` matches anything, spaces between words any number
 * of spaces (a table's columns are as wide as their values), the rest exactly (ends trimmed).
 */
export function matchesAnswer(expected: string, actual: string): boolean {
  const pattern = expected
    .split('…')
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ \t]+/g, '[ \\t]+'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(actual.trim());
}
