import type { FieldError } from '../status.js';
import { isJsonObject, type KubeObject } from '../types.js';
import type { ResourceRules } from './resource-rules.js';

type Json = Record<string, unknown>;

const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

function specOf(object: KubeObject): Json {
  if (!isJsonObject(object['spec'])) object['spec'] = {};
  return object['spec'] as Json;
}

function portsOf(spec: Json): Json[] {
  return (Array.isArray(spec['ports']) ? spec['ports'] : []).filter(isJsonObject);
}

/**
 * Service cluster IPs from 10.96.0.0/12 (the kubeadm default), one allocator per server. Not routable: the fake
 * has no kube-proxy, so clients reach pods by their pod IPs.
 */
export class ClusterIpAllocator {
  private next = 10;
  private readonly used = new Set<string>();

  allocate(): string {
    for (;;) {
      const n = this.next++;
      const ip = `10.96.${(n >> 8) & 255}.${n & 255}`;
      if (!this.used.has(ip) && (n & 255) !== 0) {
        this.used.add(ip);
        return ip;
      }
    }
  }
}

/** Services (v1): defaults, a cluster IP allocated on create and kept on update, ports validated. */
export function serviceRules(allocator: ClusterIpAllocator): ResourceRules {
  return {
    applyDefaults(service) {
      const spec = specOf(service);
      spec['type'] ??= 'ClusterIP';
      spec['sessionAffinity'] ??= 'None';
      if (spec['type'] !== 'ExternalName') {
        spec['internalTrafficPolicy'] ??= 'Cluster';
        spec['ipFamilies'] ??= ['IPv4'];
        spec['ipFamilyPolicy'] ??= 'SingleStack';
      }
      for (const port of portsOf(spec)) {
        port['protocol'] ??= 'TCP';
        port['targetPort'] ??= port['port'];
      }
    },
    prepareForCreate(service) {
      const spec = specOf(service);
      if (spec['type'] !== 'ExternalName' && (spec['clusterIP'] === undefined || spec['clusterIP'] === '')) spec['clusterIP'] = allocator.allocate();
      if (typeof spec['clusterIP'] === 'string') spec['clusterIPs'] ??= [spec['clusterIP']];
      service['status'] = { loadBalancer: {} };
    },
    prepareForUpdate(next, old) {
      // As the real strategy: allocated values an update leaves out are carried over; status is the subresource's.
      const [spec, before] = [specOf(next), specOf(old)];
      if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') spec['clusterIP'] = before['clusterIP'];
      spec['clusterIPs'] ??= before['clusterIPs'];
      next['status'] = old['status'];
    },
    validate(service) {
      const spec = specOf(service);
      const errors: FieldError[] = [];
      const type = spec['type'] as string;
      if (!TYPES.includes(type)) errors.push({ type: 'NotSupported', field: 'spec.type', value: type, detail: TYPES.map((t) => `"${t}"`).join(', ').replace(/^/, 'supported values: ') });
      const ports = portsOf(spec);
      if (ports.length === 0 && type !== 'ExternalName' && spec['clusterIP'] !== 'None') errors.push({ type: 'Required', field: 'spec.ports' });
      const names = new Set<unknown>();
      ports.forEach((port, i) => {
        const at = `spec.ports[${i}]`;
        if (ports.length > 1 && !port['name']) errors.push({ type: 'Required', field: `${at}.name` });
        if (port['name'] && names.has(port['name'])) errors.push({ type: 'Duplicate', field: `${at}.name`, value: port['name'] });
        names.add(port['name']);
        const number = port['port'];
        if (typeof number !== 'number' || number < 1 || number > 65535) errors.push({ type: 'Invalid', field: `${at}.port`, value: number ?? 0, detail: 'must be between 1 and 65535, inclusive' });
      });
      return errors;
    },
    validateUpdate(next, old) {
      const [a, b] = [specOf(next)['clusterIP'], specOf(old)['clusterIP']];
      return a === b ? [] : [{ type: 'Invalid', field: 'spec.clusterIPs[0]', value: a, detail: 'may not change once set' }];
    },
  };
}

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];

/** EndpointSlices (discovery.k8s.io/v1): addressType, one to 100 addresses per endpoint, ready conditions. */
export const endpointSliceRules: ResourceRules = {
  validate(slice) {
    const errors: FieldError[] = [];
    const type = slice['addressType'];
    if (type === undefined) errors.push({ type: 'Required', field: 'addressType' });
    else if (!ADDRESS_TYPES.includes(type as string)) errors.push({ type: 'NotSupported', field: 'addressType', value: type, detail: 'supported values: "FQDN", "IPv4", "IPv6"' });
    const endpoints = Array.isArray(slice['endpoints']) ? slice['endpoints'] : [];
    endpoints.forEach((endpoint, i) => {
      const addresses = isJsonObject(endpoint) && Array.isArray(endpoint['addresses']) ? endpoint['addresses'] : [];
      if (addresses.length === 0) errors.push({ type: 'Required', field: `endpoints[${i}].addresses`, detail: 'must contain at least 1 address' });
      if (addresses.length > 100) errors.push({ type: 'TooMany', field: `endpoints[${i}].addresses`, value: addresses.length, detail: 'must have at most 100 items' });
    });
    return errors;
  },
};
