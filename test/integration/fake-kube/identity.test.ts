/**
 * HTTPS and identity of the fake API server (issue 20 item 4): its own CA in the kubeconfig it writes, a token →
 * user table (401 Status otherwise), client certificates, `kubectl auth whoami`, and the user of every request in
 * the request log — what the egress tests assert ("the identity that reached the API was X").
 */
import { readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { AuthenticationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { RuntimeCa } from '@cli-mcp/egress';
import { FakeKubeServer, startFakeCluster, writeKubeconfig, type FakeCluster } from '@cli-mcp/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { describeWhenReady, KUBECTL, KUBECTL_PROBLEM } from '../../support/prerequisites.js';
import { apiError, Kubectl, rawRequest, type RawAnswer } from './support.js';

const USERS = { 'tok-investigation': 'investigation', 'tok-other': { username: 'other', uid: 'u-2', groups: ['devs'] } };

function clients(kubeconfigPath: string): { core: CoreV1Api; auth: AuthenticationV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return { core: kc.makeApiClient(CoreV1Api), auth: kc.makeApiClient(AuthenticationV1Api) };
}

/** A kubeconfig written by the test (not by the server): removed when the test ends. */
async function ownKubeconfig(options: Parameters<typeof writeKubeconfig>[0]): Promise<string> {
  const path = await writeKubeconfig(options);
  onTestFinished(() => rm(dirname(path), { recursive: true, force: true }));
  return path;
}

/** A raw HTTPS GET trusting `ca`: status and parsed body, as no client library reshapes them. */
async function rawGet(url: string, ca: string, token?: string, headers: Record<string, string | string[]> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const { status, body } = await rawRequest(url, ca, { token, headers });
  return { status, body };
}

describe('fake API server: HTTPS and identity', () => {
  let cluster: FakeCluster;

  beforeAll(async () => {
    cluster = await startFakeCluster({ kubelet: false, users: USERS });
  });
  afterAll(() => cluster?.stop());

  it('serves HTTPS (on with a token table) with a certificate of its own CA, which the kubeconfig it writes carries', async () => {
    expect(cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const written = JSON.parse(await readFile(cluster.kubeconfigPath, 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
    expect(Buffer.from(written.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString()).toBe(cluster.caPem);
    expect((await clients(cluster.kubeconfigPath).core.listNamespacedPod({ namespace: 'default' })).items).toEqual([]);
    // Trusting another CA fails the handshake: the server's certificate really chains to `caPem` only.
    const other = await RuntimeCa.generate('not the fake');
    const wrongCa = await ownKubeconfig({ server: cluster.url, certificateAuthority: other.certPem, token: 'tok-investigation' });
    await expect(clients(wrongCa).core.listNamespacedPod({ namespace: 'default' })).rejects.toThrow(/certificate/i);
  });

  it('maps bearer tokens to users, answers SelfSubjectReview with the caller, and logs who made each request', async () => {
    const first = clients(cluster.kubeconfigPath);
    const review = await first.auth.createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo).toEqual({ username: 'investigation', groups: ['system:authenticated'] });
    await first.core.listNamespacedSecret({ namespace: 'default' });
    expect(cluster.requests.last({ resource: 'secrets' })).toMatchObject({ user: 'investigation', credential: 'token', bearerToken: 'tok-investigation', status: 200 });

    const other = clients(await cluster.server.writeKubeconfig(undefined, undefined, { token: 'tok-other' }));
    const otherReview = await other.auth.createSelfSubjectReview({ body: {} });
    expect(otherReview.status?.userInfo).toEqual({ username: 'other', uid: 'u-2', groups: ['devs', 'system:authenticated'] });
    expect(cluster.requests.count({ resource: 'selfsubjectreviews', user: 'other' })).toBe(1);
  });

  it('logs the Host header each request carried, as sent', async () => {
    await rawGet(`${cluster.url}/api/v1/namespaces/default/pods`, cluster.caPem as string, 'tok-investigation');
    expect(cluster.requests.last()).toMatchObject({ host: new URL(cluster.url).host, status: 200 });
    // Over a raw TLS socket: node's https would take SNI and the certificate check from a Host header.
    const { hostname, port } = new URL(cluster.url);
    const socket = tlsConnect({ host: hostname, port: Number(port), ca: cluster.caPem as string });
    const answered = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).once('end', () => resolve(text)).once('error', reject);
    });
    socket.end('GET /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: other.example:443\r\nAuthorization: Bearer tok-investigation\r\nConnection: close\r\n\r\n');
    expect(await answered).toMatch(/^HTTP\/1\.1 200 /);
    expect(cluster.requests.last()).toMatchObject({ host: 'other.example:443', status: 200 });
  });

  it('answers 401 with a Kubernetes Status for a token outside the table, or none, and logs no user', async () => {
    const stolen = await ownKubeconfig({ server: cluster.url, certificateAuthority: cluster.caPem, token: 'stolen' });
    const denied = await apiError(clients(stolen).core.listNamespacedPod({ namespace: 'default' }));
    expect(denied.code).toBe(401);
    const record = cluster.requests.last();
    expect(record).toMatchObject({ status: 401, bearerToken: 'stolen' });
    expect(record?.user).toBeUndefined();

    for (const token of ['stolen', undefined]) {
      const raw = await rawGet(`${cluster.url}/api/v1/namespaces/default/pods`, cluster.caPem as string, token);
      expect(raw).toEqual({ status: 401, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 } });
    }
  });

  it('authenticates a client certificate of its client CA as its CN, before any token; one of another CA authenticates nobody', async () => {
    const pair = await cluster.server.issueClientCertificate('cert-user');
    const certOnly = clients(await ownKubeconfig({ server: cluster.url, certificateAuthority: cluster.caPem, clientCertificate: pair }));
    expect((await certOnly.auth.createSelfSubjectReview({ body: {} })).status?.userInfo?.username).toBe('cert-user');
    expect(cluster.requests.last()).toMatchObject({ user: 'cert-user', credential: 'certificate' });

    // kube-apiserver's union tries x509 before bearer tokens: a valid certificate wins over a token.
    const both = clients(await ownKubeconfig({ server: cluster.url, certificateAuthority: cluster.caPem, clientCertificate: pair, token: 'tok-other' }));
    expect((await both.auth.createSelfSubjectReview({ body: {} })).status?.userInfo?.username).toBe('cert-user');

    const foreign = await (await RuntimeCa.generate('a foreign client CA')).mintLeaf('intruder', false, 3_600_000, 'client');
    const forged = clients(await ownKubeconfig({ server: cluster.url, certificateAuthority: cluster.caPem, clientCertificate: foreign }));
    expect((await apiError(forged.core.listNamespacedPod({ namespace: 'default' }))).code).toBe(401);
  });

  it('without a token table serves everyone, as system:anonymous or the certificate user; without TLS, plain HTTP (the default)', async () => {
    const open = new FakeKubeServer({ tls: true });
    await open.start();
    const plain = new FakeKubeServer();
    await plain.start();
    try {
      await clients(await open.writeKubeconfig()).core.listNamespacedPod({ namespace: 'default' });
      expect(open.requests.last()).toMatchObject({ user: 'system:anonymous', groups: ['system:unauthenticated'], credential: 'none', bearerToken: 'fake-kube-token' });
      const pair = await open.issueClientCertificate('someone');
      await clients(await open.writeKubeconfig(undefined, undefined, { clientCertificate: pair })).core.listNamespacedPod({ namespace: 'default' });
      expect(open.requests.last()).toMatchObject({ user: 'someone', credential: 'certificate' });

      expect(plain.url).toMatch(/^http:\/\//);
      expect(plain.caPem).toBeUndefined();
      await clients(await plain.writeKubeconfig()).core.listNamespacedPod({ namespace: 'default' });
      expect(plain.requests.last()).toMatchObject({ status: 200, user: 'system:anonymous' });
      await expect(plain.issueClientCertificate('x')).rejects.toThrow(/needs TLS/);
    } finally {
      await open.stop();
      await plain.stop();
    }
  });

  it('honours Impersonate-* headers (no RBAC) and logs the real caller; `impersonators` limits who may', async () => {
    const ca = cluster.caPem as string;
    const url = `${cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`;
    const post = (token: string, headers: Record<string, string | string[]>): Promise<RawAnswer> => rawRequest(url, ca, { method: 'POST', token, headers, body: {} });
    const impersonated = await post('tok-investigation', { 'impersonate-user': 'admin', 'impersonate-group': ['ops', 'sre'] });
    expect(impersonated.body).toMatchObject({ status: { userInfo: { username: 'admin', groups: ['ops', 'sre', 'system:authenticated'] } } });
    expect(cluster.requests.last()).toMatchObject({ user: 'admin', impersonatedBy: 'investigation', bearerToken: 'tok-investigation' });
    const groupsOnly = await post('tok-investigation', { 'impersonate-group': 'ops' });
    expect(groupsOnly).toMatchObject({ status: 500, body: { reason: 'InternalError' } });

    const strict = await startFakeCluster({ kubelet: false, users: USERS, impersonators: ['other'] });
    try {
      const refused = await rawGet(`${strict.url}/api/v1/namespaces/default/pods`, strict.caPem as string, 'tok-investigation', { 'impersonate-user': 'admin' });
      expect(refused).toMatchObject({ status: 403, body: { reason: 'Forbidden', message: 'users "admin" is forbidden: User "investigation" cannot impersonate resource "users" in API group "" at the cluster scope' } });
      expect((await rawGet(`${strict.url}/api/v1/namespaces/default/pods`, strict.caPem as string, 'tok-other', { 'impersonate-user': 'admin' })).status).toBe(200);
    } finally {
      await strict.stop();
    }
  });

  it('refuses a configuration whose kubeconfig token is not in its table, and certificate names that would forge a DN', async () => {
    expect(() => new FakeKubeServer({ token: 'a', users: { b: 'bee' } })).toThrow(/`token` must be one of the tokens/);
    await expect(cluster.server.issueClientCertificate('a,O=system:masters')).rejects.toThrow(/cannot be a client certificate user name/);
  });

  describeWhenReady('with the real kubectl', KUBECTL_PROBLEM, () => {
    let kubectl: Kubectl;
    beforeAll(async () => {
      kubectl = await Kubectl.create(KUBECTL as string, cluster.kubeconfigPath);
    });
    afterAll(() => kubectl?.remove());

    it('kubectl auth whoami names the kubeconfig user; --token switches user; a wrong token is Unauthorized', async () => {
      const mine = await kubectl.run(['auth', 'whoami']);
      expect(mine.code, mine.stderr).toBe(0);
      expect(mine.stdout).toMatch(/Username\s+investigation/);
      expect(mine.stdout).toMatch(/Groups\s+\[system:authenticated\]/);

      const other = await kubectl.run(['auth', 'whoami', '--token', 'tok-other', '-o', 'json']);
      expect(other.code, other.stderr).toBe(0);
      expect(JSON.parse(other.stdout)).toMatchObject({ kind: 'SelfSubjectReview', status: { userInfo: { username: 'other', groups: ['devs', 'system:authenticated'] } } });

      const stolen = await kubectl.run(['auth', 'whoami', '--token', 'stolen']);
      expect(stolen.code).not.toBe(0);
      expect(stolen.stderr).toMatch(/Unauthorized/);
      const get = await kubectl.run(['get', 'pods', '--token', 'stolen']);
      expect(get.code).not.toBe(0);
      expect(get.stderr).toMatch(/You must be logged in to the server/);
      expect(cluster.requests.entries({ user: 'other' }).every((r) => r.bearerToken === 'tok-other')).toBe(true);
      expect(cluster.requests.entries().filter((r) => r.bearerToken === 'stolen').every((r) => r.status === 401 && r.user === undefined)).toBe(true);
    });

    it('kubectl --as impersonates; the log keeps the real caller', async () => {
      const result = await kubectl.run(['auth', 'whoami', '--as', 'admin', '-o', 'jsonpath={.status.userInfo.username}']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('admin');
      expect(cluster.requests.last({ resource: 'selfsubjectreviews' })).toMatchObject({ user: 'admin', impersonatedBy: 'investigation' });
    });

    it('kubectl with a client certificate kubeconfig is its CN', async () => {
      const pair = await cluster.server.issueClientCertificate('cert-kubectl');
      const path = await cluster.server.writeKubeconfig(undefined, undefined, { clientCertificate: pair });
      const certKubectl = await Kubectl.create(KUBECTL as string, path);
      onTestFinished(() => certKubectl.remove());
      const result = await certKubectl.run(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('cert-kubectl');
    });
  });
});
