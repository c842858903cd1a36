/** The media type of a Content-Type value, without parameters, lowercased (`Application/JSON; charset=utf-8` → `application/json`). */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
