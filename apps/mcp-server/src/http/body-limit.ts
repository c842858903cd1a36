/**
 * Largest accepted HTTP request body. Above the 1 MiB command limit on purpose: a too-large command gets the tool
 * error that names its size (C-MCP-4) instead of a bare 413.
 */
export const HTTP_BODY_LIMIT_BYTES = 8 * 1024 * 1024;
