/**
 * Reads the subset of Containerfile syntax our recipes use (C-SHIP-2) — ARG, FROM … AS, RUN, WORKDIR, COPY
 * [--from], ENV, USER, LABEL, EXPOSE, ENTRYPOINT/CMD in exec form — and fails loudly on anything else, so a recipe
 * can never use a feature this check silently ignores. Variables expand as the builder does: `${X}`, `$X` and
 * `${X:-default}` from build args and ENV (never inside RUN, which the shell expands).
 */

export interface CopyStep {
  readonly from: string | undefined;
  readonly sources: readonly string[];
  /** Absolute destination, resolved against the WORKDIR in force. */
  readonly dest: string;
  /** The destination was written with a trailing slash (a directory). */
  readonly destIsDir: boolean;
  readonly line: number;
}

export interface Stage {
  readonly name: string | undefined;
  readonly base: string;
  readonly runs: string[];
  readonly copies: CopyStep[];
  readonly env: Map<string, string>;
  readonly labels: Map<string, string>;
  readonly exposes: string[];
  workdir: string;
  user: string | undefined;
  entrypoint: string[] | undefined;
  cmd: string[] | undefined;
}

const SUPPORTED = new Set(['ARG', 'FROM', 'RUN', 'WORKDIR', 'COPY', 'ENV', 'USER', 'LABEL', 'EXPOSE', 'ENTRYPOINT', 'CMD']);

/** Parses `text` (named `file` in errors) with `buildArgs` as `--build-arg` values. */
export function parseContainerfile(text: string, file: string, buildArgs: Readonly<Record<string, string>> = {}): Stage[] {
  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  let stageArgs = new Map<string, string>();
  for (const { keyword, rest, line } of logicalLines(text)) {
    const where = `${file}:${line}`;
    if (!SUPPORTED.has(keyword)) throw new Error(`${where}: unsupported instruction ${keyword}`);
    const stage = stages[stages.length - 1];
    const scope = new Map([...(stage ? stageArgs : globalArgs), ...(stage?.env ?? [])]);
    const expand = (value: string): string => expandVariables(value, scope, where);
    if (keyword === 'ARG') {
      const [name, value] = splitOnce(rest.trim(), '=');
      const resolved = buildArgs[name] ?? (value !== undefined ? expand(unquote(value)) : globalArgs.get(name)) ?? '';
      (stage ? stageArgs : globalArgs).set(name, resolved);
      continue;
    }
    if (keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+([a-z0-9][a-z0-9_.-]*))?$/i.exec(rest.trim());
      if (!match) throw new Error(`${where}: FROM must be "<image> [AS <name>]"`);
      stageArgs = new Map();
      stages.push({
        name: match[2]?.toLowerCase(), base: expandVariables(match[1]!, globalArgs, where), runs: [], copies: [],
        env: new Map(), labels: new Map(), exposes: [], workdir: '/', user: undefined, entrypoint: undefined, cmd: undefined,
      });
      continue;
    }
    if (!stage) throw new Error(`${where}: ${keyword} before the first FROM`);
    switch (keyword) {
      case 'RUN':
        stage.runs.push(rest.trim());
        break;
      case 'WORKDIR':
        stage.workdir = resolvePath(stage.workdir, expand(rest.trim()));
        break;
      case 'COPY':
        stage.copies.push(parseCopy(expand(rest.trim()), stage.workdir, line, where));
        break;
      case 'ENV':
      case 'LABEL':
        for (const [key, value] of keyValues(rest, where)) (keyword === 'ENV' ? stage.env : stage.labels).set(key, expand(value));
        break;
      case 'USER':
        stage.user = expand(rest.trim());
        break;
      case 'EXPOSE':
        stage.exposes.push(...expand(rest.trim()).split(/\s+/));
        break;
      case 'CMD':
        stage.cmd = execForm(rest, keyword, where);
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = execForm(rest, keyword, where);
        break;
    }
  }
  if (stages.length === 0) throw new Error(`${file}: no FROM`);
  return stages;
}

function* logicalLines(text: string): Generator<{ keyword: string; rest: string; line: number }> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let current = lines[i]!;
    if (/^\s*(#.*)?$/.test(current)) continue;
    while (/\\\s*$/.test(current) && i + 1 < lines.length) {
      i++;
      if (/^\s*#/.test(lines[i]!)) continue;
      current = `${current.replace(/\\\s*$/, '')} ${lines[i]!.trim()}`;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(current);
    if (!match) throw new Error(`line ${start + 1}: cannot read "${current.trim()}"`);
    yield { keyword: match[1]!.toUpperCase(), rest: match[2]!, line: start + 1 };
  }
}

function parseCopy(rest: string, workdir: string, line: number, where: string): CopyStep {
  const words = rest.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (!flag.startsWith('--from=')) throw new Error(`${where}: unsupported COPY flag ${flag}`);
    from = flag.slice('--from='.length).toLowerCase();
  }
  if (rest.trimStart().startsWith('[') || words.length < 2) throw new Error(`${where}: COPY needs "<src>... <dest>" (no JSON form)`);
  const dest = words.pop()!;
  if (words.some((source) => /[*?[]/.test(source))) throw new Error(`${where}: COPY wildcards are not supported`);
  if (words.length > 1 && !dest.endsWith('/')) throw new Error(`${where}: COPY with several sources needs a destination ending in /`);
  return { from, sources: words, dest: resolvePath(workdir, dest), destIsDir: dest.endsWith('/') || dest === '.', line };
}

function execForm(rest: string, keyword: string, where: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rest);
  } catch {
    throw new Error(`${where}: ${keyword} must be in exec (JSON array) form, so signals reach the process`);
  }
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`${where}: ${keyword} must be a JSON array of strings`);
  return parsed;
}

/** `k=v k2="v 2"` pairs (ENV also accepts the legacy `ENV k v`). */
function keyValues(rest: string, where: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const pattern = /\s*([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|\S*)/gy;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = pattern.exec(rest)) !== null) {
    pairs.push([match[1]!, unquote(match[2]!)]);
    end = pattern.lastIndex;
  }
  if (rest.slice(end).trim() !== '') {
    const legacy = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.+)$/.exec(rest.trim());
    if (pairs.length === 0 && legacy) return [[legacy[1]!, legacy[2]!]];
    throw new Error(`${where}: cannot read "${rest.slice(end).trim()}"`);
  }
  return pairs;
}

function expandVariables(value: string, scope: ReadonlyMap<string, string>, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_all, braced: string, fallback: string | undefined, bare: string) => {
    const name = braced ?? bare;
    const found = scope.get(name);
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (found === undefined) throw new Error(`${where}: variable ${name} is not defined`);
    return '';
  });
}

function resolvePath(base: string, path: string): string {
  const parts = (path.startsWith('/') ? path : `${base}/${path}`).split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '..') out.pop();
    else if (part !== '' && part !== '.') out.push(part);
  }
  return `/${out.join('/')}`;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
}
