// What an image runs, read from its recipe: the benches measure the apps as shipped, with the ENTRYPOINT's own Node
// flags (docker/Containerfile.<image>, exec form `["node", …flags, script]`).
import { readFileSync } from 'node:fs';

/** The ENTRYPOINT of `docker/Containerfile.<image>` after `node`: the Node flags, then the script. */
export function imageEntrypoint(image) {
  const recipe = readFileSync(new URL(`../../docker/Containerfile.${image}`, import.meta.url), 'utf8');
  const line = recipe.split('\n').filter((l) => l.startsWith('ENTRYPOINT ')).at(-1);
  if (!line) throw new Error(`docker/Containerfile.${image} has no ENTRYPOINT`);
  return JSON.parse(line.slice('ENTRYPOINT '.length)).slice(1);
}

/** The ENTRYPOINT's Node flags, or those of the environment variable `override` when it is set (empty: none). */
export function imageNodeFlags(image, override) {
  const given = override === undefined ? undefined : process.env[override];
  if (given !== undefined) return given.split(/\s+/).filter(Boolean);
  return imageEntrypoint(image).filter((arg) => arg.startsWith('--'));
}

/** The value the recipe's last `ENV name=value` gives `name` (unquoted, one pair per line), if any. */
export function imageEnv(image, name) {
  const recipe = readFileSync(new URL(`../../docker/Containerfile.${image}`, import.meta.url), 'utf8');
  const lines = recipe.split('\n').filter((l) => l.startsWith(`ENV ${name}=`));
  return lines.at(-1)?.slice(`ENV ${name}=`.length).trim();
}
