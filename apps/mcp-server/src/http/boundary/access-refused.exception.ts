import type { AccessRefusal } from './access-policy.js';

/** Thrown by the boundary guard; answered by the HTTP error filter in the JSON-RPC shape with its headers. */
export class AccessRefusedException extends Error {
  constructor(readonly refusal: AccessRefusal) {
    super(refusal.message);
    this.name = 'AccessRefusedException';
  }
}
