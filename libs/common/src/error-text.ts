/** Model-safe text of any failure (Go `%v` of the wrapped error). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
