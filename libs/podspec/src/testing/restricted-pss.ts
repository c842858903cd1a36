import type { V1Container, V1EphemeralContainer, V1Pod, V1SecurityContext } from '@kubernetes/client-node';

/**
 * Test support: the Kubernetes "restricted" Pod Security Standard (baseline + restricted controls, as
 * enforced by Pod Security Admission, policy version "latest" ≈ v1.33) as a checker, so C-K8S-3's "passes
 * restricted" is a test, not a claim. Each violation is `<control>: <detail>`; the controls are listed in
 * {@link PSS_CONTROLS}. Windows pods (`spec.os.name: windows`) get no exemptions here: sandboxes are Linux.
 */

/** Control ids, one per Pod Security Standard control. */
export const PSS_CONTROLS = [
  'hostProcess',
  'hostNamespaces',
  'privileged',
  'capabilities',
  'hostPathVolumes',
  'hostPorts',
  'appArmor',
  'seLinux',
  'procMount',
  'seccomp',
  'sysctls',
  'volumeTypes',
  'privilegeEscalation',
  'runAsNonRoot',
  'runAsUser',
] as const;
export type PssControl = (typeof PSS_CONTROLS)[number];

const ALLOWED_VOLUME_SOURCES = new Set([
  'configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret',
]);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const APPARMOR_TYPES = new Set(['RuntimeDefault', 'Localhost']);
const SECCOMP_TYPES = new Set(['RuntimeDefault', 'Localhost']);
const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

type AnyContainer = V1Container | V1EphemeralContainer;

/** Every restricted-profile violation of `pod`; empty when it passes. */
export function checkRestrictedPodSecurity(pod: V1Pod): string[] {
  const out: string[] = [];
  const v = (control: PssControl, detail: string): void => {
    out.push(`${control}: ${detail}`);
  };
  const spec = pod.spec;
  if (!spec) return ['spec: missing'];
  const podSc = spec.securityContext ?? {};
  const containers: Array<{ where: string; c: AnyContainer }> = [
    ...spec.containers.map((c) => ({ where: `containers[${c.name}]`, c })),
    ...(spec.initContainers ?? []).map((c) => ({ where: `initContainers[${c.name}]`, c })),
    ...(spec.ephemeralContainers ?? []).map((c) => ({ where: `ephemeralContainers[${c.name}]`, c })),
  ];
  const scOf = (c: AnyContainer): V1SecurityContext => c.securityContext ?? {};

  if (podSc.windowsOptions?.hostProcess === true) v('hostProcess', 'spec.securityContext.windowsOptions.hostProcess=true');
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC'] as const) if (spec[key] === true) v('hostNamespaces', `spec.${key}=true`);

  for (const { where, c } of containers) {
    const sc = scOf(c);
    if (sc.windowsOptions?.hostProcess === true) v('hostProcess', `${where}.windowsOptions.hostProcess=true`);
    if (sc.privileged === true) v('privileged', `${where}.privileged=true`);
    const added = sc.capabilities?.add ?? [];
    for (const cap of added) if (cap !== 'NET_BIND_SERVICE') v('capabilities', `${where} adds ${cap}`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) v('capabilities', `${where} does not drop ALL`);
    for (const port of c.ports ?? []) if (port.hostPort !== undefined && port.hostPort !== 0) v('hostPorts', `${where} hostPort ${port.hostPort}`);
    if (sc.appArmorProfile && !APPARMOR_TYPES.has(sc.appArmorProfile.type)) v('appArmor', `${where}.appArmorProfile.type=${sc.appArmorProfile.type}`);
    seLinuxViolations(sc.seLinuxOptions, where).forEach((d) => v('seLinux', d));
    if (sc.procMount !== undefined && sc.procMount !== 'Default') v('procMount', `${where}.procMount=${sc.procMount}`);
    if (sc.allowPrivilegeEscalation !== false) v('privilegeEscalation', `${where}.allowPrivilegeEscalation is not false`);
    if (sc.runAsNonRoot === false) v('runAsNonRoot', `${where}.runAsNonRoot=false`);
    else if (sc.runAsNonRoot !== true && podSc.runAsNonRoot !== true) v('runAsNonRoot', `${where} may run as root (runAsNonRoot unset at pod and container)`);
    if (sc.runAsUser === 0) v('runAsUser', `${where}.runAsUser=0`);
    const seccomp = sc.seccompProfile?.type;
    if (seccomp !== undefined && !SECCOMP_TYPES.has(seccomp)) v('seccomp', `${where}.seccompProfile.type=${seccomp}`);
    else if (seccomp === undefined && !SECCOMP_TYPES.has(podSc.seccompProfile?.type ?? '')) v('seccomp', `${where} has no seccomp profile (none at pod level either)`);
  }

  for (const volume of spec.volumes ?? []) {
    const sources = Object.keys(volume).filter((k) => k !== 'name' && (volume as unknown as Record<string, unknown>)[k] !== undefined);
    if (sources.includes('hostPath')) v('hostPathVolumes', `volume ${volume.name} is a hostPath`);
    for (const source of sources) if (!ALLOWED_VOLUME_SOURCES.has(source)) v('volumeTypes', `volume ${volume.name} uses ${source}`);
  }

  if (podSc.appArmorProfile && !APPARMOR_TYPES.has(podSc.appArmorProfile.type)) v('appArmor', `spec.securityContext.appArmorProfile.type=${podSc.appArmorProfile.type}`);
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {})) {
    if (key.startsWith(APPARMOR_ANNOTATION_PREFIX) && value !== 'runtime/default' && !value.startsWith('localhost/')) v('appArmor', `annotation ${key}=${value}`);
  }
  seLinuxViolations(podSc.seLinuxOptions, 'spec.securityContext').forEach((d) => v('seLinux', d));
  const podSeccomp = podSc.seccompProfile?.type;
  if (podSeccomp !== undefined && !SECCOMP_TYPES.has(podSeccomp)) v('seccomp', `spec.securityContext.seccompProfile.type=${podSeccomp}`);
  for (const sysctl of podSc.sysctls ?? []) if (!SAFE_SYSCTLS.has(sysctl.name)) v('sysctls', `unsafe sysctl ${sysctl.name}`);
  if (podSc.runAsNonRoot === false) v('runAsNonRoot', 'spec.securityContext.runAsNonRoot=false');
  if (podSc.runAsUser === 0) v('runAsUser', 'spec.securityContext.runAsUser=0');
  return out;
}

function seLinuxViolations(options: V1SecurityContext['seLinuxOptions'], where: string): string[] {
  if (!options) return [];
  const out: string[] = [];
  if (options.type !== undefined && !SELINUX_TYPES.has(options.type)) out.push(`${where}.seLinuxOptions.type=${options.type}`);
  if (options.user) out.push(`${where}.seLinuxOptions.user is set`);
  if (options.role) out.push(`${where}.seLinuxOptions.role is set`);
  return out;
}
