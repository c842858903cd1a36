import type { Stage } from './containerfile.js';

/**
 * Static checks of a parsed Containerfile (C-SHIP-1), each returning its problems. They name the bugs the first
 * recipes had — Node 20 bases, npm ci without node-pty's toolchain, a sandbox hard-wired to amd64 without
 * checksums — and test/integration/ship/fixtures keeps those recipes to prove every check fires on them.
 */

/** Every external base is the official Node image at exactly the LTS version CI tests (`.ci/node-lts`). */
export function baseImageProblems(stages: readonly Stage[], ltsVersion: string): string[] {
  const names = new Set(stages.map((stage) => stage.name));
  return stages
    .filter((stage) => !names.has(stage.base))
    .flatMap((stage) => {
      const match = /^(?:docker\.io\/library\/)?node:(\d+\.\d+\.\d+)(-[a-z0-9-]+)?(@sha256:[0-9a-f]{64})?$/.exec(stage.base);
      if (!match) return [`${stage.name ?? 'runtime'}: base ${stage.base} is not the official node image pinned to a full version`];
      return match[1] === ltsVersion ? [] : [`${stage.name ?? 'runtime'}: base Node ${match[1]} is not the tested LTS ${ltsVersion}`];
    });
}

/**
 * A stage that runs `npm ci` with install scripts builds node-pty from source: python3, make and g++ first; the
 * base image's own headers (ENV npm_config_nodedir=/usr/local), since node-gyp would fetch them from nodejs.org;
 * and a check chained after it that fails the build naming node-pty when it did not compile (npm drops an
 * optional package whose build failed and carries on). Issue 22 item 5. The agent's prctl addon
 * (@cli-mcp/non-dumpable, native/) is built by the same npm ci and is checked the same way (issue 22 item 4).
 */
export function toolchainProblems(stages: readonly Stage[]): string[] {
  return stages.flatMap((stage) => {
    const ci = stage.runs.findIndex((line) => /(^|&&\s*)npm ci\b/.test(line) && !line.includes('--ignore-scripts'));
    if (ci < 0) return [];
    const name = stage.name ?? 'runtime';
    const before = stage.runs.slice(0, ci).join(' ');
    const missing = ['python3', 'make', 'g++'].filter((tool) => !new RegExp(`apt-get install[^&]*\\s${tool.replace('+', '\\+')}(\\s|$)`).test(before));
    const problems = missing.length === 0 ? [] : [`${name}: npm ci builds node-pty but ${missing.join(', ')} are not installed before it`];
    if (stage.env.get('npm_config_nodedir') !== '/usr/local') problems.push(`${name}: npm ci builds node-pty without npm_config_nodedir=/usr/local (node-gyp would download headers)`);
    if (!/require\('node-pty'\)"\s*\|\|\s*\{[^}]*node-pty did not compile[^}]*exit 1/.test(stage.runs[ci]!)) problems.push(`${name}: npm ci is not followed by a check that fails naming node-pty`);
    if (!/require\('@cli-mcp\/non-dumpable'\)"\s*\|\|\s*\{[^}]*@cli-mcp\/non-dumpable[^}]*did not compile[^}]*exit 1/.test(stage.runs[ci]!)) problems.push(`${name}: npm ci is not followed by a check that fails naming @cli-mcp/non-dumpable`);
    return problems;
  });
}

/**
 * The runtime stage: a numeric non-root USER (kubelet's runAsNonRoot check), an ENTRYPOINT, the OCI labels. The
 * recipe must be parsed with `expected.sourceUrl` as its SOURCE_URL build arg: the source label is that build arg
 * (never a URL written into the recipe, which would name a project the builder may not be), version and licence
 * are mandatory.
 */
export function runtimeProblems(runtime: Stage, expected: { version: string; license: string; sourceUrl: string }): string[] {
  const problems: string[] = [];
  if (runtime.user === undefined || !/^[1-9]\d*(:\d+)?$/.test(runtime.user)) problems.push(`USER ${runtime.user ?? '(unset)'} is not a numeric non-root UID`);
  if (!runtime.entrypoint?.length) problems.push('no ENTRYPOINT');
  const labels = runtime.labels;
  if (labels.get('org.opencontainers.image.source') !== expected.sourceUrl) problems.push('label org.opencontainers.image.source is not the SOURCE_URL build arg');
  if (labels.get('org.opencontainers.image.version') !== expected.version) problems.push(`label org.opencontainers.image.version is not ${expected.version}`);
  if (labels.get('org.opencontainers.image.licenses') !== expected.license) problems.push(`label org.opencontainers.image.licenses is not ${expected.license}`);
  return problems;
}

/**
 * The sandbox's investigation tools (C-SHIP-1): bash, curl (the readiness probe), jq and yq from the distribution;
 * kubectl for the build's target architecture (TARGETARCH, no architecture written out) with its checksum verified.
 */
export function sandboxToolProblems(runtime: Stage): string[] {
  const runs = runtime.runs.join(' && ');
  const problems: string[] = [];
  for (const tool of ['bash', 'curl', 'jq', 'yq']) {
    if (!new RegExp(`apt-get install[^&]*\\s${tool}(\\s|$)`).test(runs)) problems.push(`${tool} is not installed`);
  }
  if (!/\/release\/\$\{KUBECTL_VERSION\}\/bin\/linux\/\$\{arch\}\/kubectl/.test(runs) || !/arch="\$\{TARGETARCH:-/.test(runs)) {
    problems.push('kubectl is not downloaded for ${TARGETARCH}');
  }
  if (/\b(amd64|arm64|x86_64|aarch64)\b/.test(runs)) problems.push('an architecture is written out');
  if (!/sha256sum --check/.test(runs)) problems.push('the kubectl download is not checksum-verified');
  return problems;
}
