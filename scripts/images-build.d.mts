// Types of what the TypeScript tests use of scripts/images-build.mjs.
/** The build context's .dockerignore as a predicate on paths relative to the context root. */
export function readIgnore(file: string): (rel: string) => boolean;
