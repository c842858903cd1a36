import { singleQuote } from './single-quote.js';

/**
 * Assembles protocol.sh (the readable, shellcheck-linted source of the bash the agent's shell runs once at start)
 * into the text the agent sends. The rules are in the file's header; in short: comments, blank lines and indentation
 * go; `\` continues a line with one space; `__climcp_inline_NAME() { … }` is a piece of text put in place of each
 * `__climcp_inline_NAME [ARG]` (ARG for `"$1"`); `@q:NAME@` is a piece or a value as one single-quoted word and
 * `@NAME@` a value as it is; any other function becomes one line. Pure and small: it runs once, when the agent
 * loads (≈ 0.1 ms), so the bundle carries the source as text and no generated file lives in the repository.
 */
export function assembleProtocol(source: string, values: Readonly<Record<string, string>>): string {
  const pieces = new Map<string, string[]>();
  const out: string[] = [];
  const lines = logicalLines(source);
  for (let i = 0; i < lines.length; i++) {
    const header = /^(__climcp_\w+)\(\) \{$/.exec(lines[i]!);
    if (!header) {
      out.push(lines[i]!);
      continue;
    }
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '}'; i++) body.push(lines[i]!);
    if (i === lines.length) throw new Error(`protocol.sh: ${header[1]} has no closing }`);
    const name = header[1]!;
    if (name.startsWith(INLINE)) pieces.set(name.slice(INLINE.length), body);
    else out.push(`${name}() { ${body.join('; ')}; }`);
  }
  const expand = (text: string, depth = 0): string => {
    if (depth > 8) throw new Error('protocol.sh: pieces nest too deep');
    return text.replace(/__climcp_inline_(\w+)(?: ("\$1"|\d+))?/g, (_, name: string, arg: string | undefined) => {
      const body = pieces.get(name);
      if (!body) throw new Error(`protocol.sh: no piece ${name}`);
      const joined = body.join('; ');
      return expand(arg === undefined ? joined : joined.replaceAll('"$1"', arg), depth + 1);
    });
  };
  const substitute = (text: string): string => text.replace(/@(q:)?([A-Za-z_]\w*)@/g, (_, quoted: string | undefined, name: string) => {
    const piece = pieces.get(name);
    const value = piece !== undefined ? substitute(expand(piece.join('; '))) : values[name];
    if (value === undefined) throw new Error(`protocol.sh: no piece or value ${name}`);
    return quoted ? singleQuote(value) : value;
  });
  return `${out.map((line) => substitute(expand(line))).join('\n')}\n`;
}

const INLINE = '__climcp_inline_';

/** The file's lines without comments, blank lines and indentation, continued lines joined. */
function logicalLines(source: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) {
      if (pending !== '') throw new Error(`protocol.sh: a continued line is followed by ${line === '' ? 'a blank line' : 'a comment'}`);
      continue;
    }
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trimEnd()} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  if (pending !== '') throw new Error('protocol.sh ends in a continued line');
  return lines;
}
