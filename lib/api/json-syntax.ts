export interface JsonSyntaxError {
  problem: string;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units like every JavaScript string position. */
  column: number;
  /** 0-based offset into the text. */
  offset: number;
}

type Expecting = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/**
 * Finds the first place where `text` stops being JSON (RFC 8259), or `undefined` when it is
 * valid. Only runs after JSON.parse has failed. Iterative, so deep nesting cannot overflow it.
 */
export function locateJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const containers: Array<'{' | '['> = [];
  let expecting: Expecting = 'value';
  let i = 0;
  const fail = (offset: number, problem: string): JsonSyntaxError => ({
    problem,
    offset,
    ...lineAndColumn(text, offset),
  });
  const afterValue = (): Expecting => (containers.length > 0 ? 'comma-or-close' : 'end');

  for (;;) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r'))
      i++;
    if (i >= text.length) return expecting === 'end' ? undefined : fail(i, 'unexpected end of input');
    const c = text[i];
    switch (expecting) {
      case 'end':
        return fail(i, 'unexpected content after the JSON value');
      case 'colon':
        if (c !== ':') return fail(i, "expected ':' after a property name");
        i++;
        expecting = 'value';
        break;
      case 'comma-or-close': {
        const close = containers.at(-1) === '{' ? '}' : ']';
        if (c === ',') {
          i++;
          expecting = containers.at(-1) === '{' ? 'key' : 'value';
        } else if (c === close) {
          i++;
          containers.pop();
          expecting = afterValue();
        } else {
          return fail(i, `expected ',' or '${close}'`);
        }
        break;
      }
      case 'key':
      case 'key-or-close':
        if (expecting === 'key-or-close' && c === '}') {
          i++;
          containers.pop();
          expecting = afterValue();
        } else if (c === '"') {
          const end = scanString(text, i);
          if (typeof end !== 'number') return fail(end.offset, end.problem);
          i = end;
          expecting = 'colon';
        } else {
          return fail(i, 'expected a property name in double quotes');
        }
        break;
      case 'value':
      case 'value-or-close':
        if (expecting === 'value-or-close' && c === ']') {
          i++;
          containers.pop();
          expecting = afterValue();
        } else if (c === '{' || c === '[') {
          i++;
          containers.push(c);
          expecting = c === '{' ? 'key-or-close' : 'value-or-close';
        } else if (c === '"') {
          const end = scanString(text, i);
          if (typeof end !== 'number') return fail(end.offset, end.problem);
          i = end;
          expecting = afterValue();
        } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
          i += 4;
          expecting = afterValue();
        } else if (text.startsWith('false', i)) {
          i += 5;
          expecting = afterValue();
        } else {
          NUMBER.lastIndex = i;
          if (!NUMBER.test(text)) return fail(i, 'expected a value');
          i = NUMBER.lastIndex;
          expecting = afterValue();
        }
        break;
    }
  }
}

/** Offset just past the closing quote, or where and why the string is broken. */
function scanString(text: string, start: number): number | { offset: number; problem: string } {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { offset: i, problem: 'unescaped control character in a string' };
    if (code === 0x5c) {
      const escaped = text[i + 1];
      if (escaped === 'u') {
        if (!HEX4.test(text.slice(i + 2, i + 6)))
          return { offset: i, problem: 'invalid \\u escape in a string' };
        i += 6;
        continue;
      }
      if (escaped === undefined || !SIMPLE_ESCAPES.has(escaped)) {
        return { offset: i, problem: 'invalid escape in a string' };
      }
      i += 2;
      continue;
    }
    i++;
  }
  return { offset: start, problem: 'unterminated string' };
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
