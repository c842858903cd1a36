import { tokenize, UnsupportedShell, type Token } from './shell-lexer.js';

/**
 * What the yield point (C-MCP-11) can do with a command, decided from its text before it runs. Verified with bash
 * 5.2 and job control on: stopping the foreground job makes bash go on with the REST of the command list at once
 * (with status 148), so a job can only be detached when nothing of the command follows it; a list or a loop that
 * runs in the shell itself can only become a job if it runs in a subshell from the start.
 *
 * - `job`: the last statement is one job of its own (a program, a pipeline, a `( … )`) and what precedes it only
 *   sets shell state (`cd dir && make`): the shell runs it as usual; at the yield point the job is stopped and
 *   continued in the background (`bg`).
 * - `subshell`: a list or compound command (`sleep 5; echo done`, `while …; do …; done`) made only of programs and
 *   pure builtins — nothing that changes the shell's state: the agent runs it as `( … )`, one job, from the start.
 * - `wait`: a lone `wait …` — interrupted at the yield point, its job keeps running.
 * - `shell`: anything else (or anything this reader does not fully understand): runs in the shell, cannot be
 *   detached.
 *
 * `words` are the words in command position: the shell checks them right before running (none may be an alias or a
 * function, which would change what they mean — else the command is treated as `shell`).
 */
export type CommandShape = { kind: 'job' | 'subshell' | 'wait'; words: string[] } | { kind: 'shell' };

const BUILTINS = new Set(('alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs ' +
  'disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile ' +
  'popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type ' +
  'typeset ulimit umask unalias unset wait . : [').split(' '));
/** Builtins that change nothing a later command could see (so they may run in a subshell). */
const PURE_BUILTINS = new Set(['echo', 'printf', 'pwd', 'test', '[', 'true', 'false', ':', 'type', 'help', 'times', 'break', 'continue']);
/**
 * Builtins that never start a job: they may precede the detachable last statement. Not `set` or `shopt` (oracle,
 * shape-oracle.test.ts): `set -e; sleep 9` turns on errexit after the head checked for it, and stopping the job
 * would then end the shell.
 */
const STATE_BUILTINS = new Set(['cd', 'pushd', 'popd', 'export', 'unset', 'alias', 'unalias', 'umask',
  'declare', 'typeset', 'readonly', 'true', 'false', ':', 'echo', 'printf', 'hash', 'ulimit']);
const COMPOUND = new Set(['{', 'if', 'while', 'until', 'for', 'select']);

interface Element {
  type: 'simple' | 'subshell' | 'compound';
  /** Simple command: its command word ('' = assignments only). */
  name: string;
  hasSubstitution: boolean;
}

interface Statement {
  elements: Element[];
  background: boolean;
}

class Reader {
  private at = 0;
  /** Command-position words anywhere (with keywords), and whether anything changes shell state. */
  readonly words: string[] = [];
  impure = false;
  /** Something that can take long: a program or a loop (a list of pure builtins is not worth a subshell). */
  slow = false;
  /** Something runs asynchronously (`&`), at any depth: `( cmd & )` ends at once, its job is no yield's business. */
  async = false;

  constructor(private readonly tokens: Token[]) {}

  peek(): Token | undefined {
    return this.tokens[this.at];
  }

  next(): Token | undefined {
    return this.tokens[this.at++];
  }

  done(): boolean {
    return this.at >= this.tokens.length;
  }

  /** Statements until a word or operator in `stop` (not consumed) or the end. */
  list(stop: ReadonlySet<string>): Statement[] {
    const statements: Statement[] = [];
    for (;;) {
      this.skipSeparators();
      const token = this.peek();
      if (!token || stop.has(token.text)) return statements;
      const statement: Statement = { elements: [this.element()], background: false };
      for (;;) {
        const op = this.peek();
        if (op?.kind === 'op' && (op.text === '|' || op.text === '|&')) {
          this.next();
          this.skipNewlines();
          statement.elements.push(this.element());
        } else break;
      }
      const sep = this.peek();
      if (sep?.kind === 'op' && sep.text === '&') {
        statement.background = true;
        this.impure = true;
        this.async = true;
      }
      if (sep?.kind === 'op' && (sep.text === '&&' || sep.text === '||')) {
        this.next();
        this.skipNewlines();
      }
      statements.push(statement);
    }
  }

  private skipSeparators(): void {
    while (this.peek()?.kind === 'op' && [';', '\n', '&'].includes(this.peek()!.text)) this.next();
  }

  private skipNewlines(): void {
    while (this.peek()?.kind === 'op' && this.peek()!.text === '\n') this.next();
  }

  private expectWord(word: string): void {
    const token = this.next();
    if (token?.kind !== 'word' || token.text !== word) throw new UnsupportedShell(`expected ${word}`);
  }

  private element(): Element {
    let token = this.peek();
    while (token?.kind === 'word' && (token.text === '!' || token.text === 'time')) {
      this.words.push(token.text);
      this.next();
      token = this.peek();
    }
    if (!token) throw new UnsupportedShell('missing command');
    if (token.kind === 'op') {
      if (token.text !== '(') throw new UnsupportedShell(`unexpected ${token.text}`);
      this.next();
      this.list(new Set([')']));
      if (this.next()?.text !== ')') throw new UnsupportedShell('unclosed subshell');
      this.redirections();
      return { type: 'subshell', name: '', hasSubstitution: false };
    }
    if (COMPOUND.has(token.text)) return this.compound(token.text);
    if (token.text === '[[') return this.conditional();
    if (['case', 'function', 'coproc', 'then', 'do', 'done', 'fi', 'elif', 'else', 'esac', '}', '((', ']]'].includes(token.text)) {
      throw new UnsupportedShell(`not understood: ${token.text}`);
    }
    return this.simple();
  }

  private compound(keyword: string): Element {
    this.words.push(keyword);
    if (keyword !== '{' && keyword !== 'if') this.slow = true;
    this.next();
    if (keyword === '{') {
      this.list(new Set(['}']));
      this.expectWord('}');
    } else if (keyword === 'if') {
      this.list(new Set(['then']));
      this.expectWord('then');
      for (;;) {
        this.list(new Set(['elif', 'else', 'fi']));
        const word = this.next()?.text;
        if (word === 'fi') break;
        if (word === 'elif') {
          this.list(new Set(['then']));
          this.expectWord('then');
        } else if (word !== 'else') throw new UnsupportedShell('unclosed if');
      }
    } else {
      if (keyword === 'for') this.forHeader();
      else this.list(new Set(['do']));
      this.expectWord('do');
      this.list(new Set(['done']));
      this.expectWord('done');
    }
    this.redirections();
    return { type: 'compound', name: keyword, hasSubstitution: false };
  }

  /** Redirections after a compound command or subshell (`done < file`, `) 2>&1`). */
  private redirections(): void {
    for (let token = this.peek(); token?.kind === 'op' && isRedirection(token.text); token = this.peek()) {
      this.next();
      const target = this.next();
      if (target?.kind !== 'word') throw new UnsupportedShell('redirection without a target');
      this.checkWord(target.text);
    }
  }

  /** `for NAME [in WORDS] ;` — the loop variable is the one state a subshell would not keep (documented). */
  private forHeader(): void {
    const name = this.next();
    if (name?.kind !== 'word' || !/^[A-Za-z_]\w*$/.test(name.text)) throw new UnsupportedShell('arithmetic for');
    this.skipNewlines();
    if (this.peek()?.text === 'in') {
      this.next();
      while (this.peek()?.kind === 'word') this.checkWord(this.next()!.text);
    }
    this.skipSeparators();
    this.skipNewlines();
  }

  private conditional(): Element {
    this.words.push('[[');
    this.next();
    for (let token = this.next(); token?.text !== ']]'; token = this.next()) {
      if (!token) throw new UnsupportedShell('unclosed [[');
      if (token.kind !== 'word') continue;
      this.checkWord(token.text);
      // The operands of `-eq`… are arithmetic, which may assign (`[[ n++ -eq 0 ]]`, found by the oracle).
      if (/^-(eq|ne|lt|le|gt|ge)$/.test(token.text)) this.impure = true;
    }
    return { type: 'compound', name: '[[', hasSubstitution: false };
  }

  private simple(): Element {
    let name = '';
    let args = 0;
    let hasSubstitution = false;
    for (let token = this.peek(); token; token = this.peek()) {
      if (token.kind === 'op') {
        if (isRedirection(token.text)) {
          this.next();
          const target = this.next();
          if (target?.kind !== 'word') throw new UnsupportedShell('redirection without a target');
          hasSubstitution ||= this.checkWord(target.text);
          continue;
        }
        if (token.text === '(' && name !== '' && args === 0) throw new UnsupportedShell('function definition');
        break;
      }
      this.next();
      hasSubstitution ||= this.checkWord(token.text);
      if (name === '' && /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(token.text) && !token.quoted) continue;
      if (name === '') {
        name = token.text;
        this.words.push(name);
        if (BUILTINS.has(name) && !PURE_BUILTINS.has(name)) this.impure = true;
        if (!BUILTINS.has(name)) this.slow = true;
      } else {
        args++;
        if (name === 'printf' && args === 1 && token.text.startsWith('-v')) this.impure = true;
      }
    }
    if (name === '') this.impure = true;
    return { type: 'simple', name, hasSubstitution };
  }

  /** Notes expansions that assign (`${x:=y}`, `$((x=1))`) as impure; returns whether the word substitutes commands. */
  private checkWord(word: string): boolean {
    // `$[…]`, the old arithmetic expansion, may assign like `$((…))` (`$[n=3]`, found by the oracle).
    if (/\$\{[^}]*=/.test(word) || /\$\(\([^)]*([^=!<>]=[^=]|\+\+|--)/.test(word) || word.includes('$[')) this.impure = true;
    return /\$\(|`|<\(|>\(/.test(word);
  }
}

function isRedirection(op: string): boolean {
  return ['<', '>', '>>', '<<', '<<-', '<<<', '<&', '>&', '<>', '>|', '&>', '&>>'].includes(op);
}

/** The shape of `command` (see CommandShape). Pure: unit-tested on text alone. */
export function commandShape(command: string): CommandShape {
  let reader: Reader;
  let statements: Statement[];
  try {
    reader = new Reader(tokenize(command));
    statements = reader.list(new Set());
    if (!reader.done()) throw new UnsupportedShell('trailing tokens');
  } catch (error) {
    if (error instanceof UnsupportedShell) return { kind: 'shell' };
    throw error;
  }
  if (statements.length === 0 || reader.async) return { kind: 'shell' };
  const last = statements.at(-1)!;
  const single = statements.length === 1 && last.elements.length === 1 ? last.elements[0]! : undefined;
  if (single?.type === 'simple' && single.name === 'wait') return { kind: 'wait', words: ['wait'] };

  const prefixSetsStateOnly = statements.slice(0, -1).every((s) =>
    s.elements.length === 1 && s.elements[0]!.type === 'simple' && !s.elements[0]!.hasSubstitution &&
    (s.elements[0]!.name === '' || STATE_BUILTINS.has(s.elements[0]!.name)));
  const lastIsJob = last.elements.length > 1 || last.elements[0]!.type === 'subshell' ||
    (last.elements[0]!.type === 'simple' && last.elements[0]!.name !== '' && !BUILTINS.has(last.elements[0]!.name));
  if (prefixSetsStateOnly && lastIsJob) return { kind: 'job', words: reader.words };

  const inShell = statements.length > 1 || single?.type === 'compound';
  if (inShell && !reader.impure && reader.slow) return { kind: 'subshell', words: reader.words };
  return { kind: 'shell' };
}
