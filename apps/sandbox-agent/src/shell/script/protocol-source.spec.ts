import { describe, expect, it } from 'vitest';
import { SHELL_SETUP } from './command-script.js';
import { assembleProtocol } from './protocol-source.js';

describe(assembleProtocol.name, () => {
  it('drops comments, blank lines and indentation; a trailing backslash joins the next line with one space', () => {
    const source = '# a comment\n\n  set -m;   \\\n    x=1\n# shellcheck disable=SC2043 # why\ny=2\n';
    expect(assembleProtocol(source, {})).toBe('set -m; x=1\ny=2\n');
  });

  it('puts a piece in place of each use (its statements joined with "; "), its argument for "$1", and drops its definition', () => {
    const source = [
      '__climcp_inline_quit() {', '  a "$1"', '  b', '}',
      '__climcp_inline_outer() {', '  __climcp_inline_quit "$1"; c', '}',
      'f() { :; }; __climcp_inline_outer 0', 'g; __climcp_inline_quit "$1"',
    ].join('\n');
    expect(assembleProtocol(source, {})).toBe('f() { :; }; a 0; b; c\ng; a "$1"; b\n');
  });

  it('makes any other function one line, and fills @q:NAME@ (quoted) and @NAME@ from pieces and values', () => {
    const source = [
      '__climcp_inline_trap() {', "  echo 'it''s'", '}',
      '__climcp_f() {', '  x=@q:trap@', '  [[ $y == @TAKEN@ ]]', '  z=@q:NOTE@', '}',
    ].join('\n');
    expect(assembleProtocol(source, { TAKEN: 'taken', NOTE: "a 'b'" })).toBe(
      `__climcp_f() { x='echo '\\''it'\\'''\\''s'\\'''; [[ $y == taken ]]; z='a '\\''b'\\'''; }\n`);
  });

  it.each([
    ['__climcp_x() {\n  a\n', /has no closing }/],
    ['a \\\n', /a continued line is followed by a blank line/],
    ['a \\\n# note\nb', /a continued line is followed by a comment/],
    ['a \\', /ends in a continued line/],
    ['__climcp_inline_missing', /no piece missing/],
    ['x=@q:NOWHERE@', /no piece or value NOWHERE/],
    ['__climcp_inline_loop() {\n  __climcp_inline_loop\n}\n__climcp_inline_loop', /nest too deep/],
  ])('refuses a malformed source: %j', (source, problem) => {
    expect(() => assembleProtocol(source, {})).toThrow(problem);
  });

  it('leaves nothing of its own notation in the shell set-up the agent sends', () => {
    expect(SHELL_SETUP).not.toMatch(/__climcp_inline_|@q:|@[A-Z_]+@|^\s*#/m);
    expect(SHELL_SETUP).toContain("__climcp_p=$'\\x1f__CLIMCP_'");
  });
});
