/**
 * Evaluates the part of CloudWatch Logs' JSON filter-pattern syntax the stack uses, so tests can
 * run a synthesized metric filter over real log lines: `{ <expr> }` where an expression is
 * `$.field = "text"` or `!=` (or a number: `$.field = 503`, which matches JSON numbers only), `&&`, `||` (`&&` binding tighter) and parentheses. Anything else throws.
 */
type Token = { kind: 'op' | 'paren' | 'selector' | 'string' | 'number'; text: string };

function tokenize(pattern: string): Token[] {
  const body = /^\s*\{(.*)\}\s*$/s.exec(pattern)?.[1];
  if (body === undefined) throw new Error(`not a JSON filter pattern: ${pattern}`);
  const tokens: Token[] = [];
  const shape = /\s*(?:(&&|\|\||!=|=)|([()])|(\$\.[A-Za-z0-9_.]+)|"((?:[^"\\]|\\.)*)"|(-?\d+(?:\.\d+)?))/y;
  let at = 0;
  while (body.slice(at).trim() !== '') {
    shape.lastIndex = at;
    const match = shape.exec(body);
    if (match === null) throw new Error(`cannot read the filter pattern at: ${body.slice(at)}`);
    at = shape.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: 'op', text: match[1] });
    else if (match[2] !== undefined) tokens.push({ kind: 'paren', text: match[2] });
    else if (match[3] !== undefined) tokens.push({ kind: 'selector', text: match[3] });
    else if (match[5] !== undefined) tokens.push({ kind: 'number', text: match[5] });
    else tokens.push({ kind: 'string', text: JSON.parse(`"${match[4]}"`) });
  }
  return tokens;
}

/** Whether the JSON log line `event` matches the filter `pattern`. */
export function matchesJsonFilter(pattern: string, event: Record<string, unknown>): boolean {
  const tokens = tokenize(pattern);
  let position = 0;
  const next = (): Token => {
    const token = tokens[position++];
    if (token === undefined) throw new Error('the filter pattern ends too early');
    return token;
  };
  const peek = (): Token | undefined => tokens[position];

  const comparison = (): boolean => {
    const token = next();
    if (token.kind === 'paren' && token.text === '(') {
      const value = disjunction();
      if (next().text !== ')') throw new Error('expected )');
      return value;
    }
    if (token.kind !== 'selector') throw new Error(`expected $.field, got ${token.text}`);
    const operator = next();
    const literal = next();
    if (operator.kind !== 'op' || (literal.kind !== 'string' && literal.kind !== 'number'))
      throw new Error('expected = "text" or != "text"');
    const actual = token.text
      .slice(2)
      .split('.')
      .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], event);
    const equal =
      literal.kind === 'number'
        ? typeof actual === 'number' && actual === Number(literal.text)
        : actual === literal.text;
    if (operator.text === '=') return equal;
    if (operator.text === '!=') return !equal;
    throw new Error(`unsupported operator ${operator.text}`);
  };
  const conjunction = (): boolean => {
    let value = comparison();
    while (peek()?.text === '&&') {
      next();
      value = comparison() && value;
    }
    return value;
  };
  const disjunction = (): boolean => {
    let value = conjunction();
    while (peek()?.text === '||') {
      next();
      value = conjunction() || value;
    }
    return value;
  };

  const result = disjunction();
  if (position !== tokens.length)
    throw new Error(`unexpected ${tokens[position]?.text} in the filter pattern`);
  return result;
}
