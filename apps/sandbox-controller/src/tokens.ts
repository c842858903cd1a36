import { getConfigToken } from '@nestjs/config';

/** The @nestjs/config namespace of the validated `ControllerConfig`. */
export const CONTROLLER_CONFIG_NAMESPACE = 'controller';
export const CONTROLLER_CONFIG = getConfigToken(CONTROLLER_CONFIG_NAMESPACE);
/** The `ControllerRuntime` of this process. */
export const CONTROLLER_RUNTIME = Symbol('ControllerRuntime');
/** The app's prom-client `Registry`. */
export const METRICS_REGISTRY = Symbol('MetricsRegistry');
