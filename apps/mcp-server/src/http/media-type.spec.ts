import { describe, expect, it } from 'vitest';
import { mediaType } from './media-type.js';

describe(mediaType.name, () => {
  it.each([
    ['application/json', 'application/json'],
    ['Application/JSON; charset=utf-8', 'application/json'],
    ['  text/event-stream ;x=1', 'text/event-stream'],
    ['application/jsonx', 'application/jsonx'],
    ['', ''],
    [null, ''],
    [undefined, ''],
  ])('%j → %j', (value, expected) => {
    expect(mediaType(value)).toBe(expected);
  });
});
