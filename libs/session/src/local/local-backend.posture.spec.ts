import { describe, expect, it } from 'vitest';
import { never, useLocalBackend } from '../../test/local-backend-setup.js';
import { FakeRunner, FakeSocketEndpoints, flush } from '../../test/local-fakes.js';
import { LocalBackend } from './local-backend.js';

/** What the sandboxes get once `auto` is resolved, the warnings when less (C-SEC-2, C-SEC-4), and their network. */
describe(`${LocalBackend.name} posture`, () => {
  const make = useLocalBackend();

  describe('configuration', () => {
    it('auto isolation uses bwrap when the probe works', async () => {
      const { backend, runner, launcher } = make({ isolation: 'auto', endpoints: new FakeSocketEndpoints() });
      await backend.acquire('s1', never());
      expect(backend.isolation).toBe('bwrap');
      // The probe is the real two-level command (network namespace included), with `true` as the sandbox.
      expect((runner as FakeRunner).runs[0]).toMatch(/^bwrap --die-with-parent --unshare-pid --unshare-user --uid 0 --gid 0 --cap-add ALL --unshare-net .* bwrap --unshare-user --uid \d+ --gid \d+ --disable-userns .* -- true$/);
      expect((runner as FakeRunner).runs[1]).toBe('slirp4netns --version');
      expect(backend.posture).toMatchObject({ isolation: 'bwrap', network: 'isolated', warnings: [] });
      const spec = launcher.launched[0]!.spec;
      expect(spec.command).toBe('bwrap');
      // Deny by default: the host's /home and /run exist (FakeHostFs) but are not in the view.
      expect(spec.args.join(' ')).not.toMatch(/--ro-bind \/home|--ro-bind \/run/);
      expect(spec.args.join(' ')).toContain('--bind /state/sessions/s1/workspace /workspace');
      expect(spec.env.SANDBOX_WORKDIR).toBe('/workspace');
    });

    it('auto isolation falls back to none with a warning', async () => {
      const { backend, warnings } = make({ isolation: 'auto', commandRunner: new FakeRunner({ bwrap: { ok: false, detail: 'spawn bwrap ENOENT' } }) });
      await backend.start();
      expect(backend.isolation).toBe('none');
      expect(warnings[0]).toContain('WITHOUT isolation');
      expect(warnings[0]).toContain('Debian package "bubblewrap"');
      expect(warnings[1]).toContain('share the host network');
      await expect(backend.checkHealth()).resolves.toEqual({
        details: { isolation: 'none', network: 'host', sandbox_user: 'server user', bounds: expect.objectContaining({ tasks: 'off', tmp: expect.stringMatching(/^off/) }), warnings },
      });
    });

    it('explicit bwrap that does not work is a configuration error naming the flag', async () => {
      const { backend } = make({ isolation: 'bwrap', commandRunner: new FakeRunner({ bwrap: { ok: false, detail: 'No permissions to create new namespace' } }) });
      await expect(backend.start()).rejects.toThrow(/--local-isolation=bwrap but bubblewrap is not usable: No permissions/);
      await expect(backend.acquire('s1', never())).rejects.toThrow(/--local-isolation/);
    });
  });


  describe('isolated networking (C-SEC-2)', () => {
    it('attaches the network to the sandbox bubblewrap reports, and ends both together', async () => {
      const { backend, launcher, attacher } = make({ isolation: 'bwrap', network: 'isolated', endpoints: new FakeSocketEndpoints() });
      const handle = await backend.acquire('s1', never());
      expect(handle.agentUrl).toBe('unix:/state/sockets/0.sock');
      const child = launcher.launched[0]!;
      expect(attacher.attached).toMatchObject([{ pid: child.pid + 100_000, closed: false }]);
      await backend.end('s1');
      await flush();
      expect(attacher.attached[0]!.closed).toBe(true);
    });

    it('ends a sandbox whose network died, so the next command gets a whole one', async () => {
      const { backend, launcher, attacher } = make({ isolation: 'bwrap', network: 'isolated', endpoints: new FakeSocketEndpoints() });
      await backend.acquire('s1', never());
      attacher.attached[0]!.cut();
      await flush();
      expect(launcher.launched[0]!.signals).toEqual(['SIGKILL']);
      expect((await backend.acquire('s1', never())).recreated).toBe(true);
    });

    it('a root server runs sandboxes as an unprivileged user that owns their workspaces (C-SEC-1)', async () => {
      const { backend, launcher, workspaces } = make({ isolation: 'bwrap', network: 'host', sandboxUser: { uid: 65534, gid: 65534 } });
      await backend.acquire('s1', never());
      expect(workspaces.owner).toEqual({ uid: 65534, gid: 65534 });
      expect(launcher.launched[0]!.spec.args.join(' ')).toContain(' sh setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-user --disable-userns');
      expect((await backend.checkHealth()).details).toMatchObject({ sandbox_user: 'uid 65534' });
    });

    it('auto falls back to the host network, loudly, when slirp4netns is missing', async () => {
      const probed: string[] = [];
      const { backend, warnings } = make({
        isolation: 'auto', commandRunner: new FakeRunner({ slirp4netns: { ok: false, detail: 'spawn slirp4netns ENOENT' } }),
        networkProbe: async () => (probed.push('attach'), undefined),
      });
      await backend.start();
      expect(probed).toEqual([]);
      expect(backend.posture).toMatchObject({ isolation: 'bwrap', network: 'host' });
      expect(warnings).toEqual([expect.stringMatching(/share the host network.*Debian package "slirp4netns".*--local-network=auto: slirp4netns is not usable: spawn slirp4netns ENOENT/)]);
      expect((await backend.checkHealth()).details).toMatchObject({ network: 'host', warnings });
    });

    it('asks the attach probe once slirp4netns exists', async () => {
      const probed: string[] = [];
      const { backend } = make({ isolation: 'auto', endpoints: new FakeSocketEndpoints(), networkProbe: async () => (probed.push('attach'), undefined) });
      await backend.start();
      expect(probed).toEqual(['attach']);
      expect(backend.posture).toMatchObject({ isolation: 'bwrap', network: 'isolated', warnings: [] });
    });

    it('auto falls back to the host network, loudly, when slirp4netns exists but cannot attach (e.g. /dev/net/tun mode 0600)', async () => {
      const { backend, warnings } = make({
        isolation: 'auto', networkProbe: async () => 'slirp4netns exited before the network was up: open("/dev/net/tun"): Permission denied',
      });
      await backend.start();
      expect(backend.posture).toMatchObject({ isolation: 'bwrap', network: 'host' });
      expect(warnings).toEqual([expect.stringMatching(
        /share the host network.*--local-network=auto: slirp4netns cannot attach to a sandbox here: .*Permission denied — \/dev\/net\/tun must be readable and writable by the server's user \(udev makes it mode 0666 by default\)\)$/,
      )]);
      expect((await backend.checkHealth()).details).toMatchObject({ network: 'host', warnings });
    });

    it('explicit isolated whose attach fails is a configuration error naming the flag and the cause', async () => {
      const { backend } = make({ isolation: 'bwrap', network: 'isolated', networkProbe: async () => 'setns(CLONE_NEWNET): Operation not permitted' });
      await expect(backend.start()).rejects.toThrow(/^--local-network=isolated: slirp4netns cannot attach to a sandbox here: setns\(CLONE_NEWNET\): Operation not permitted; fix that or use --local-network=host or none$/);
    });

    it('explicit isolated without slirp4netns is a configuration error naming the flag', async () => {
      const { backend } = make({ isolation: 'bwrap', network: 'isolated', commandRunner: new FakeRunner({ slirp4netns: { ok: false, detail: 'ENOENT' } }) });
      await expect(backend.start()).rejects.toThrow(/--local-network=isolated needs slirp4netns, .*Debian package "slirp4netns"/);
    });
  });

});
