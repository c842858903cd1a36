export * from './egress-names.js';
export * from './egress-gateway-config.js';
export * from './gateway-deployment.js';
export * from './gateway-objects.js';
export * from './egress-network-policies.js';
export * from './egress-sandbox.js';
