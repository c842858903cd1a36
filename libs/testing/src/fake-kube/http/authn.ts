import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { Statuses } from '../api/status.js';

/** A user of the token table: a bare name, or the fields of `authentication.k8s.io/v1` UserInfo. */
export type FakeUserSpec = string | { username: string; uid?: string; groups?: string[] };

/** Who made a request, as a SelfSubjectReview reports it. */
export interface UserInfo {
  username: string;
  uid?: string;
  /** Always ends with `system:authenticated` (or is `system:unauthenticated` for the anonymous user). */
  groups: string[];
}

/** How a request's identity was established. */
export type CredentialKind = 'token' | 'certificate' | 'none';

/** Result of authenticating one request. */
export interface Authentication {
  /** The user the request acts as (the impersonated one, when it impersonates). */
  user: UserInfo;
  credential: CredentialKind;
  /** The authenticated user name, when the request impersonated `user`. */
  impersonatedBy?: string;
}

const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const AUTHENTICATED = 'system:authenticated';
/** Characters that would change the meaning of the `CN=<name>` a client certificate is minted with. */
const DN_SPECIAL = /[,+=<>#;"\\\n\r]/;

function userInfo(spec: FakeUserSpec): UserInfo {
  const base = typeof spec === 'string' ? { username: spec } : spec;
  if (!base.username) throw new Error('fake-kube users: a user needs a non-empty username');
  const groups = [...(typeof spec === 'string' ? [] : (spec.groups ?? [])).filter((g) => g !== AUTHENTICATED), AUTHENTICATED];
  return base.uid === undefined ? { username: base.username, groups } : { username: base.username, uid: base.uid, groups };
}

/** Checks a name can be a client certificate's CN (throws with the offending name otherwise). */
export function assertCertificateUsername(username: string): void {
  if (username === '' || DN_SPECIAL.test(username)) throw new Error(`fake-kube: ${JSON.stringify(username)} cannot be a client certificate user name`);
}

/**
 * The authenticators of a real API server, in its order (`union` of x509 then bearer tokens, first success wins):
 * 1. a client certificate that chains to the client CA → user = its CN;
 * 2. `Authorization: Bearer <token>` found in the token table (a static token file) → that user;
 * 3. otherwise 401 Unauthorized.
 * Without a table (`tokens` undefined) authentication is off, a fake-only mode kept for tests that do not care
 * who calls: every request is served, as its certificate's user or as `system:anonymous`.
 */
export class Authenticator {
  private readonly tokens?: ReadonlyMap<string, UserInfo>;

  /**
   * @param tokens the token table, or undefined for authentication off.
   * @param impersonators users allowed to send `Impersonate-*` headers; undefined = everyone (no RBAC).
   */
  constructor(
    tokens: Readonly<Record<string, FakeUserSpec>> | undefined,
    private readonly impersonators?: readonly string[],
  ) {
    if (tokens !== undefined) {
      const table = new Map<string, UserInfo>();
      for (const [token, spec] of Object.entries(tokens)) {
        if (token === '' || /\s/.test(token)) throw new Error(`fake-kube users: token ${JSON.stringify(token)} is empty or has whitespace`);
        table.set(token, userInfo(spec));
      }
      this.tokens = table;
    }
  }

  /** Whether requests must authenticate. */
  get enabled(): boolean {
    return this.tokens !== undefined;
  }

  /**
   * Authenticates a request, then applies its `Impersonate-*` headers (kube-apiserver's WithImpersonation filter).
   * Throws the 401 KubeApiError when a table is set and nothing in it matches, 403 when the caller may not
   * impersonate, 500 for groups or a uid without a user (the real filter's InternalError).
   */
  authenticate(req: IncomingMessage): Authentication {
    const authenticated = this.authenticateCaller(req);
    const impersonated = impersonation(req);
    if (!impersonated) return authenticated;
    const caller = authenticated.user.username;
    if (this.impersonators !== undefined && !this.impersonators.includes(caller)) throw Statuses.cannotImpersonate(caller, impersonated.username);
    return { user: impersonated, credential: authenticated.credential, impersonatedBy: caller };
  }

  private authenticateCaller(req: IncomingMessage): Authentication {
    const certificateUser = clientCertificateUser(req);
    if (certificateUser !== undefined) return { user: userInfo(certificateUser), credential: 'certificate' };
    const token = bearerToken(req);
    if (this.tokens === undefined) return { user: ANONYMOUS, credential: 'none' };
    const user = token === undefined ? undefined : this.tokens.get(token);
    if (!user) throw Statuses.unauthorized();
    return { user, credential: 'token' };
  }
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const value = req.headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** The user a request's `Impersonate-User`/`-Group`/`-Uid` headers ask to act as, or undefined. */
function impersonation(req: IncomingMessage): UserInfo | undefined {
  const [username] = headerValues(req, 'impersonate-user');
  const groups = headerValues(req, 'impersonate-group');
  const [uid] = headerValues(req, 'impersonate-uid');
  if (username === undefined) {
    if (groups.length > 0 || uid !== undefined) throw Statuses.internalError('requested impersonation of groups or a uid without impersonating a user');
    return undefined;
  }
  // As the real filter: an impersonated user other than the anonymous one is also `system:authenticated`.
  if (username === ANONYMOUS.username) return { username, groups: [...groups.filter((g) => g !== 'system:unauthenticated'), 'system:unauthenticated'] };
  return userInfo(uid === undefined ? { username, groups } : { username, groups, uid });
}

/** The bearer token of a request, if it carries one (`Authorization: Bearer <token>`, scheme case-insensitive). */
export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
}

/** CN of a verified client certificate (the TLS layer checked it against the client CA), else undefined. */
function clientCertificateUser(req: IncomingMessage): string | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.encrypted !== true || socket.authorized !== true || typeof socket.getPeerCertificate !== 'function') return undefined;
  const cn = socket.getPeerCertificate().subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  return name === undefined || name === '' ? undefined : name;
}
