/** `'…'` literal for any text without NUL: every `'` becomes `'\''`. */
export function singleQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
