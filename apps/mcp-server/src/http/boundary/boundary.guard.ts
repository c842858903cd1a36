import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ServerConfig } from '../../config/server-config.js';
import { ShutdownCoordinator } from '../../lifecycle/shutdown-coordinator.js';
import { APP_LOGGER, SERVER_CONFIG } from '../../tokens.js';
import { decideAccess, type AccessPolicy } from './access-policy.js';
import { AccessRefusedException } from './access-refused.exception.js';
import { OPEN_ROUTE } from './open-route.decorator.js';

/**
 * The HTTP auth boundary (C-HTTP-5, C-MCP-8), a global guard: it runs only for a request the router matched to a
 * handler, and decides on that handler's metadata — never on the request target, whose spellings (`/mcp/`,
 * `/%6Dcp`, absolute-form …) the router normalises. Unmatched requests get the router's 404 and reach nothing.
 */
@Injectable()
export class BoundaryGuard implements CanActivate {
  private readonly policy: AccessPolicy;
  private readonly log: Logger;

  constructor(
    private readonly reflector: Reflector,
    @Inject(SERVER_CONFIG) config: ServerConfig,
    @Inject(APP_LOGGER) logger: Logger,
    shutdown: ShutdownCoordinator,
  ) {
    this.policy = { allowedHosts: config.http.allowedHosts, authToken: config.http.authToken, draining: () => shutdown.draining };
    this.log = logger.child({ component: 'http' });
  }

  canActivate(context: ExecutionContext): boolean {
    const open = this.reflector.getAllAndOverride<boolean | undefined>(OPEN_ROUTE, [context.getHandler(), context.getClass()]) === true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const refusal = decideAccess({ open, headers: request.headers }, this.policy);
    if (!refusal) return true;
    this.log.warn(
      { method: request.method, route: request.routeOptions.url, status: refusal.status, reason: refusal.message.split(':')[0] },
      'request refused',
    );
    throw new AccessRefusedException(refusal);
  }
}
