import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildBasePod, buildSessionPod, buildWarmPod } from '../pod-builder.js';
import { INSTANCE, NOW, OVERLAY, SESSION_ID, sandboxConfig } from './fixtures.js';
import { PSS_CONTROLS, checkRestrictedPodSecurity, type PssControl } from './restricted-pss.js';

const good = (): V1Pod => buildSessionPod(sandboxConfig(), INSTANCE, SESSION_ID, NOW);
const main = (pod: V1Pod): V1Container => pod.spec!.containers[0]!;

// C-K8S-3: the spec passes the Kubernetes "restricted" Pod Security Standard.
describe('sandbox pods vs the restricted Pod Security Standard', () => {
  it.each<[string, V1Pod]>([
    ['session pod', good()],
    ['warm pod', buildWarmPod(sandboxConfig(), 'cli-mcp-oc-pool-0a0b0c0d0e', NOW)],
    [
      'overlay-built pod',
      buildSessionPod(
        sandboxConfig({
          ...OVERLAY,
          env: '[{"name":"AWS_SECRET","valueFrom":{"secretKeyRef":{"name":"aws","key":"secret"}}}]',
          runtimeClassName: 'gvisor',
          agentPort: 9000,
          terminationGracePeriodSeconds: 0,
        }),
        INSTANCE,
        SESSION_ID,
        NOW,
      ),
    ],
    ['base pod', buildBasePod('p', sandboxConfig(OVERLAY), NOW)],
  ])('%s passes', (_kind, pod) => {
    expect(checkRestrictedPodSecurity(pod)).toEqual([]);
  });
});

/** One mutation of a good pod per way of breaking a control; every control appears at least once. */
const VIOLATIONS: Array<[PssControl, string, (pod: V1Pod) => void]> = [
  ['hostProcess', 'pod hostProcess', (p) => (p.spec!.securityContext!.windowsOptions = { hostProcess: true })],
  ['hostProcess', 'container hostProcess', (p) => (main(p).securityContext!.windowsOptions = { hostProcess: true })],
  ['hostNamespaces', 'hostNetwork', (p) => (p.spec!.hostNetwork = true)],
  ['hostNamespaces', 'hostPID', (p) => (p.spec!.hostPID = true)],
  ['hostNamespaces', 'hostIPC', (p) => (p.spec!.hostIPC = true)],
  ['privileged', 'privileged container', (p) => (main(p).securityContext!.privileged = true)],
  ['privileged', 'privileged init container', (p) => (p.spec!.initContainers = [{ ...structuredClone(main(p)), name: 'init', securityContext: { ...main(p).securityContext, privileged: true } }])],
  ['capabilities', 'adds SYS_ADMIN', (p) => (main(p).securityContext!.capabilities!.add = ['SYS_ADMIN'])],
  ['capabilities', 'adds a baseline-allowed CHOWN', (p) => (main(p).securityContext!.capabilities!.add = ['CHOWN'])],
  ['capabilities', 'does not drop ALL', (p) => (main(p).securityContext!.capabilities = { drop: ['NET_RAW'] })],
  ['hostPathVolumes', 'hostPath volume', (p) => p.spec!.volumes!.push({ name: 'host', hostPath: { path: '/' } })],
  ['hostPorts', 'hostPort', (p) => (main(p).ports![0]!.hostPort = 8090)],
  ['appArmor', 'container Unconfined', (p) => (main(p).securityContext!.appArmorProfile = { type: 'Unconfined' })],
  ['appArmor', 'pod Unconfined', (p) => (p.spec!.securityContext!.appArmorProfile = { type: 'Unconfined' })],
  ['appArmor', 'unconfined annotation', (p) => (p.metadata!.annotations!['container.apparmor.security.beta.kubernetes.io/sandbox'] = 'unconfined')],
  ['seLinux', 'spc_t type', (p) => (main(p).securityContext!.seLinuxOptions = { type: 'spc_t' })],
  ['seLinux', 'custom user', (p) => (p.spec!.securityContext!.seLinuxOptions = { user: 'system_u' })],
  ['seLinux', 'custom role', (p) => (main(p).securityContext!.seLinuxOptions = { role: 'sysadm_r' })],
  ['procMount', 'Unmasked /proc', (p) => (main(p).securityContext!.procMount = 'Unmasked')],
  ['seccomp', 'pod Unconfined', (p) => (p.spec!.securityContext!.seccompProfile = { type: 'Unconfined' })],
  ['seccomp', 'container Unconfined', (p) => (main(p).securityContext!.seccompProfile = { type: 'Unconfined' })],
  ['seccomp', 'no profile anywhere', (p) => {
    delete p.spec!.securityContext!.seccompProfile;
    delete main(p).securityContext!.seccompProfile;
  }],
  ['sysctls', 'unsafe sysctl', (p) => (p.spec!.securityContext!.sysctls = [{ name: 'kernel.msgmax', value: '1' }])],
  ['volumeTypes', 'nfs volume', (p) => p.spec!.volumes!.push({ name: 'nfs', nfs: { server: 'x', path: '/' } })],
  ['volumeTypes', 'gitRepo volume', (p) => p.spec!.volumes!.push({ name: 'git', gitRepo: { repository: 'x' } })],
  ['volumeTypes', 'hostPath volume', (p) => p.spec!.volumes!.push({ name: 'host', hostPath: { path: '/' } })],
  ['privilegeEscalation', 'allowed', (p) => (main(p).securityContext!.allowPrivilegeEscalation = true)],
  ['privilegeEscalation', 'unset', (p) => delete main(p).securityContext!.allowPrivilegeEscalation],
  ['runAsNonRoot', 'container false', (p) => (main(p).securityContext!.runAsNonRoot = false)],
  ['runAsNonRoot', 'pod false', (p) => (p.spec!.securityContext!.runAsNonRoot = false)],
  ['runAsNonRoot', 'unset everywhere', (p) => {
    delete p.spec!.securityContext!.runAsNonRoot;
    delete main(p).securityContext!.runAsNonRoot;
  }],
  ['runAsUser', 'container root', (p) => (main(p).securityContext!.runAsUser = 0)],
  ['runAsUser', 'pod root', (p) => (p.spec!.securityContext!.runAsUser = 0)],
];

describe(checkRestrictedPodSecurity.name, () => {
  it('has a violation case for every control', () => {
    expect(new Set(VIOLATIONS.map(([control]) => control))).toEqual(new Set(PSS_CONTROLS));
  });

  it.each(VIOLATIONS)('catches %s (%s)', (control, _how, mutate) => {
    const pod = good();
    mutate(pod);
    const violations = checkRestrictedPodSecurity(pod);
    expect(violations.some((v) => v.startsWith(`${control}: `)), violations.join('\n') || '(no violations)').toBe(true);
  });

  it('checks ephemeral containers too', () => {
    const pod = good();
    pod.spec!.ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
    const controls = checkRestrictedPodSecurity(pod).map((v) => v.slice(0, v.indexOf(':')));
    expect(controls).toEqual(expect.arrayContaining(['capabilities', 'privilegeEscalation']));
  });

  it.each<[string, (pod: V1Pod) => void]>([
    ['adding NET_BIND_SERVICE', (p) => (main(p).securityContext!.capabilities!.add = ['NET_BIND_SERVICE'])],
    ['hostPort 0', (p) => (main(p).ports![0]!.hostPort = 0)],
    ['SELinux container_t', (p) => (main(p).securityContext!.seLinuxOptions = { type: 'container_t', level: 's0:c1,c2' })],
    ['procMount Default', (p) => (main(p).securityContext!.procMount = 'Default')],
    ['safe sysctls', (p) => (p.spec!.securityContext!.sysctls = [{ name: 'net.ipv4.ping_group_range', value: '0 1' }, { name: 'net.ipv4.tcp_keepalive_time', value: '60' }])],
    ['Localhost seccomp', (p) => (p.spec!.securityContext!.seccompProfile = { type: 'Localhost', localhostProfile: 'x.json' })],
    ['seccomp only per container', (p) => delete p.spec!.securityContext!.seccompProfile],
    ['runAsNonRoot only at pod level', (p) => delete main(p).securityContext!.runAsNonRoot],
    ['runAsNonRoot only per container', (p) => delete p.spec!.securityContext!.runAsNonRoot],
    ['a non-zero runAsUser', (p) => (main(p).securityContext!.runAsUser = 1001)],
    ['AppArmor RuntimeDefault and localhost annotation', (p) => {
      main(p).securityContext!.appArmorProfile = { type: 'RuntimeDefault' };
      p.metadata!.annotations!['container.apparmor.security.beta.kubernetes.io/sandbox'] = 'localhost/custom';
    }],
    ['every allowed volume type', (p) => p.spec!.volumes!.push(
      { name: 'cm', configMap: { name: 'x' } },
      { name: 'csi', csi: { driver: 'x' } },
      { name: 'dapi', downwardAPI: {} },
      { name: 'eph', ephemeral: {} },
      { name: 'pvc', persistentVolumeClaim: { claimName: 'x' } },
      { name: 'proj', projected: { sources: [] } },
    )],
  ])('allows %s (not over-strict)', (_case, mutate) => {
    const pod = good();
    mutate(pod);
    expect(checkRestrictedPodSecurity(pod)).toEqual([]);
  });

  it('reports a pod without spec', () => {
    expect(checkRestrictedPodSecurity({ metadata: {} })).toEqual(['spec: missing']);
  });
});
