import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const SECONDS = process.env['LEAKY_SECONDS'] ?? '61';

/** The `sleep`s process.fixture.ts leaks (both: the child and the setsid job), wherever they hang now. */
function othersLeaks(): number {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      return new RegExp(`^sleep\\x00${SECONDS}(\\.5)?\\x00$`).test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
    } catch {
      return false;
    }
  }).length;
}

// Clean itself, and checked only once another file's leaks exist: with files in parallel (two workers), what the
// file beside it left must not fail this one. The leaks last until the outer test removes them, so whichever
// of the two files runs first, this one ends while they are there.
it('leaves nothing, while another file has left processes behind', async () => {
  for (const deadline = Date.now() + 60_000; othersLeaks() < 2 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(othersLeaks()).toBe(2);
}, 70_000);
