import { SetMetadata } from '@nestjs/common';

/** Metadata key of {@link OpenRoute}. */
export const OPEN_ROUTE = 'cli-mcp:open-route';

/**
 * Marks a controller or handler as reachable without the bearer token (C-HTTP-5): only the probes and the
 * metrics (`/live`, `/health`, `/metrics`), which kubelets and scrapers call and which hold no session data.
 * Every other route is protected by default — forgetting this decorator fails closed.
 */
export const OpenRoute = (): ClassDecorator & MethodDecorator => SetMetadata(OPEN_ROUTE, true);
