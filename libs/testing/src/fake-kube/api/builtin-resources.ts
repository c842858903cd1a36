import { CUSTOM_RESOURCE_DEFINITIONS } from './crd/crd-definitions.js';
import { LEASES, PODS, SECRETS, type ResourceDefinition } from './resources.js';

/** Every built-in kind the fake serves. */
export const BUILTIN_RESOURCES: readonly ResourceDefinition[] = [PODS, SECRETS, LEASES, CUSTOM_RESOURCE_DEFINITIONS];
