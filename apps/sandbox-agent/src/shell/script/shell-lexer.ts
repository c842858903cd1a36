/**
 * A conservative bash tokenizer for one purpose: telling the SHAPE of a command (command-shape.ts, C-MCP-11) — where
 * its top-level separators are and which words stand in command position. It never decides what runs: bash does.
 * Anything it does not fully understand throws `UnsupportedShell`, and the caller then treats the command as one that
 * cannot be detached (the safe answer). Quotes, `$( )`, `` ` ` ``, `${ }`, `$(( ))`, process substitution,
 * comments, line continuations and here-document bodies are skipped as opaque parts of a word.
 */
export class UnsupportedShell extends Error {}

export type Token = { kind: 'word'; text: string; quoted: boolean } | { kind: 'op'; text: string };

const OPERATORS = ['&&', '||', ';;&', ';;', ';&', '|&', '&>>', '&>', '<<<', '<<-', '<<', '>>', '<&', '>&', '<>', '>|', '(', ')', '|', '&', ';', '<', '>', '\n'];
const BLANK = new Set([' ', '\t']);
const WORD_END = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const heredocs: Array<{ delimiter: string; stripTabs: boolean }> = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (BLANK.has(c)) {
      i++;
      continue;
    }
    if (c === '\\' && text[i + 1] === '\n') {
      i += 2;
      continue;
    }
    // `((` starts an arithmetic command (or nested subshells): either way not worth telling apart here.
    if (c === '(' && text[i + 1] === '(') throw new UnsupportedShell('arithmetic command');
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, i));
    // `<(`/`>(` are process substitutions: part of a word.
    if (op && !((op === '<' || op === '>') && text[i + 1] === '(')) {
      tokens.push({ kind: 'op', text: op });
      i += op.length;
      if (op === '<<' || op === '<<-') {
        const [word, end] = readWord(text, skipBlanks(text, i));
        if (word.text === '') throw new UnsupportedShell('here-document without a delimiter');
        heredocs.push({ delimiter: unquote(word.text), stripTabs: op === '<<-' });
        tokens.push(word);
        i = end;
      }
      if (op === '\n' && heredocs.length > 0) i = skipHeredocBodies(text, i, heredocs.splice(0));
      continue;
    }
    const [word, end] = readWord(text, i);
    i = end;
    if (text[i] === '<' || text[i] === '>') {
      // `2>&1`: the digits belong to the redirection, not a word in command position (oracle: `sleep 1; x=1 2>&1`
      // read `2` as the command). `{fd}>file` assigns the variable fd in the shell: not read further.
      if (/^\d+$/.test(word.text)) continue;
      if (/^\{[A-Za-z_]\w*\}$/.test(word.text)) throw new UnsupportedShell('named file descriptor');
    }
    tokens.push(word);
  }
  if (heredocs.length > 0) throw new UnsupportedShell('here-document body missing');
  return tokens;
}

function skipBlanks(text: string, i: number): number {
  while (i < text.length && BLANK.has(text[i]!)) i++;
  return i;
}

function readWord(text: string, start: number): [Token & { kind: 'word' }, number] {
  let i = start;
  let quoted = false;
  while (i < text.length && !WORD_END.has(text[i]!)) {
    const c = text[i]!;
    if (c === '\\') {
      quoted = true;
      i += 2;
    } else if (c === "'") {
      quoted = true;
      i = closing(text, i + 1, "'");
    } else if (c === '"') {
      quoted = true;
      i = skipDoubleQuoted(text, i + 1);
    } else if (c === '`') {
      i = skipBackquoted(text, i + 1);
    } else if (c === '$' && text[i + 1] === "'") {
      quoted = true;
      i = skipAnsiC(text, i + 2);
    } else if (c === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) {
      i = skipBalanced(text, i + 1);
    } else if ((c === '<' || c === '>') && text[i + 1] === '(') {
      i = skipBalanced(text, i + 1);
    } else {
      i++;
    }
  }
  if (i === start && (text[i] === '<' || text[i] === '>') && text[i + 1] === '(') i = skipBalanced(text, i + 1);
  if (i > text.length) throw new UnsupportedShell('unterminated word');
  return [{ kind: 'word', text: text.slice(start, i), quoted }, i];
}

function closing(text: string, from: number, quote: string): number {
  const at = text.indexOf(quote, from);
  if (at < 0) throw new UnsupportedShell('unterminated quote');
  return at + 1;
}

function skipAnsiC(text: string, i: number): number {
  while (i < text.length && text[i] !== "'") i += text[i] === '\\' ? 2 : 1;
  if (i >= text.length) throw new UnsupportedShell('unterminated quote');
  return i + 1;
}

function skipDoubleQuoted(text: string, i: number): number {
  while (i < text.length && text[i] !== '"') {
    const c = text[i]!;
    if (c === '\\') i += 2;
    else if (c === '`') i = skipBackquoted(text, i + 1);
    else if (c === '$' && (text[i + 1] === '(' || text[i + 1] === '{')) i = skipBalanced(text, i + 1);
    else i++;
  }
  if (i >= text.length) throw new UnsupportedShell('unterminated quote');
  return i + 1;
}

function skipBackquoted(text: string, i: number): number {
  while (i < text.length && text[i] !== '`') i += text[i] === '\\' ? 2 : 1;
  if (i >= text.length) throw new UnsupportedShell('unterminated backquote');
  return i + 1;
}

/** From an opening `(` or `{` to just after its match; quotes and nested expansions inside are skipped. */
function skipBalanced(text: string, i: number): number {
  const open = text[i]!;
  const close = open === '(' ? ')' : '}';
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
    else if (c === '\\') i++;
    else if (c === "'") i = closing(text, i + 1, "'") - 1;
    else if (c === '"') i = skipDoubleQuoted(text, i + 1) - 1;
    else if (c === '`') i = skipBackquoted(text, i + 1) - 1;
    // `case x in a)`, comments and here-documents inside a substitution could unbalance the count: give up.
    else if (open === '(' && /^case\b/.test(text.slice(i, i + 5)) && /[\s(;|&]/.test(text[i - 1] ?? ' ')) {
      throw new UnsupportedShell('case inside a substitution');
    } else if (c === '#' && /[\s(;|&]/.test(text[i - 1] ?? ' ')) throw new UnsupportedShell('comment inside a substitution');
    else if (c === '<' && text[i + 1] === '<') throw new UnsupportedShell('here-document inside a substitution');
  }
  throw new UnsupportedShell('unbalanced expansion');
}

function skipHeredocBodies(text: string, i: number, pending: Array<{ delimiter: string; stripTabs: boolean }>): number {
  for (const { delimiter, stripTabs } of pending) {
    for (;;) {
      if (i >= text.length) throw new UnsupportedShell('unterminated here-document');
      const nl = text.indexOf('\n', i);
      const line = text.slice(i, nl < 0 ? text.length : nl);
      i = nl < 0 ? text.length : nl + 1;
      if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
    }
  }
  return i;
}

/** The here-document delimiter as bash compares it: quotes removed. */
function unquote(word: string): string {
  return word.replace(/\\(.)/g, '$1').replace(/['"]/g, '');
}
