import { sendRaw } from '@cli-mcp/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { execResult } from '../../../test/fakes.js';
import { authConfig, startHttpApp, type HttpApp } from '../../../test/http-app.js';
import { attackRequest, METHODS, OPEN_HANDLERS } from '../../../test/request-targets.js';

const TOKEN = 'fuzz-token-31';

/** How one character of a route word is spelled; mostly as is, so that many targets still match a route. */
const spelling = fc.oneof(
  { weight: 6, arbitrary: fc.constant('keep') },
  { weight: 1, arbitrary: fc.constantFrom('upper', 'encode-upper-hex', 'encode-lower-hex') },
);

/** A path segment: a word, its letters in any case, some percent-encoded (upper- or lower-case hex). */
function spelled(word: string): fc.Arbitrary<string> {
  return fc.array(spelling, { minLength: word.length, maxLength: word.length }).map((changes) =>
    [...word]
      .map((char, i) => {
        const hex = char.charCodeAt(0).toString(16);
        switch (changes[i]) {
          case 'upper':
            return char.toUpperCase();
          case 'encode-upper-hex':
            return `%${hex.toUpperCase()}`;
          case 'encode-lower-hex':
            return `%${hex.toLowerCase()}`;
          default:
            return char;
        }
      })
      .join(''),
  );
}

const separator = fc.oneof({ weight: 6, arbitrary: fc.constant('/') }, { weight: 1, arbitrary: fc.constantFrom('//', '/./', '/x/../', '%2F', '/%2e/') });

/** The words of a route (or of none), each spelled and separated in its own way. */
const path = fc
  .constantFrom(['mcp'], ['sessions', 'victim'], ['sessions'], ['sessions', 'a', 'b'], ['live'], ['metrics'], ['x', 'mcp'], ['..', 'mcp'])
  .chain((words) => fc.tuple(...words.map((word) => fc.tuple(separator, spelled(word)))))
  .map((parts) => parts.map(([sep, word]) => `${sep}${word}`).join(''));

/** Request targets around the protected routes: origin- and absolute-form, odd separators and suffixes. */
const target = fc
  .tuple(
    fc.constantFrom('', '', 'http://127.0.0.1:{port}', 'HTTP://localhost', 'http://evil.example'),
    path,
    fc.constantFrom('', '', '/', '//', '?q=1', '?', '#frag', ';p=1', '%2F', '/.', '%3F', '?x=%2F'),
  )
  .map(([prefix, route, suffix]) => `${prefix}${route}${suffix}`);

/** Mostly the methods of the protected routes, so that matches are common. */
const method = fc.oneof({ weight: 2, arbitrary: fc.constantFrom('POST', 'DELETE') }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) });

const authorization = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom<string | undefined>(undefined, 'Bearer wrong', `bearer ${TOKEN}`, `Basic ${TOKEN}`, TOKEN) },
  { weight: 1, arbitrary: fc.constant(`Bearer ${TOKEN}`) },
);

interface Tally {
  /** Requests with the right token that entered a protected handler: proves the generator reaches routes. */
  authorisedEntries: number;
  /** Requests the boundary refused with 401: matched a protected route without the right token. */
  refused: number;
}

/** "Reaches a protected handler ⇒ carried the right bearer", over generated method/target/token triples. */
function reachesOnlyWhenAuthenticated(app: HttpApp, tally: Tally) {
  return fc.asyncProperty(method, target, authorization, async (verb, rawTarget, auth) => {
    const before = app.entries.entries.length;
    const response = await sendRaw(app.port, attackRequest(app.port, verb, rawTarget, auth));
    if (response.status === 401) tally.refused += 1;
    const entered = app.entries.entries.slice(before).filter((entry) => !OPEN_HANDLERS.has(entry.handler));
    for (const entry of entered) {
      if (entry.authorization !== `Bearer ${TOKEN}`) return false;
      tally.authorisedEntries += 1;
    }
    return true;
  });
}

async function appWith(guard?: { canActivate: () => boolean }): Promise<HttpApp> {
  const app = await startHttpApp({ config: authConfig(TOKEN), listen: true, ...(guard ? { guard } : {}) });
  app.sessions.onExecute(async () => execResult()).onEnd(async () => undefined).onCheckHealth(async () => undefined);
  return app;
}

/** 1,000 requests through a real Fastify app: about a second alone, many times that beside a loaded suite (a hang bound). */
const PROPERTY_TIMEOUT_MS = 120_000;

describe('auth boundary, property over generated request targets (C-HTTP-5)', () => {
  const apps: HttpApp[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.app.close();
  });

  it('a request reaches a protected handler only with the right bearer', async () => {
    const app = await appWith();
    apps.push(app);
    const tally: Tally = { authorisedEntries: 0, refused: 0 };
    await fc.assert(reachesOnlyWhenAuthenticated(app, tally), { numRuns: 1000, seed: 0x7c11 });
    // The generator does reach protected routes — with the token, and refused without — so the property was
    // really exercised.
    expect(tally.authorisedEntries).toBeGreaterThan(20);
    expect(tally.refused).toBeGreaterThan(20);
  }, PROPERTY_TIMEOUT_MS);

  it('the property finds the hole in an app whose boundary lets everything through', async () => {
    const app = await appWith({ canActivate: () => true });
    apps.push(app);
    const result = await fc.check(reachesOnlyWhenAuthenticated(app, { authorisedEntries: 0, refused: 0 }), { numRuns: 1000, seed: 0x7c11 });
    expect(result.failed).toBe(true);
  });
});
