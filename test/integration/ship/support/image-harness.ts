import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseContainerfile, type CopyStep, type Stage } from './containerfile.js';
import { addBaseLayout, assembleImageRoot, type StageSource } from './image-root.js';
import { installStage } from './stage-install.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export type ImageName = 'server' | 'sandbox' | 'controller' | 'egress';
export const IMAGE_NAMES: readonly ImageName[] = ['server', 'sandbox', 'controller', 'egress'];

export interface AssembledImage {
  readonly stages: Stage[];
  readonly runtime: Stage;
  readonly root: string;
  readonly copied: string[];
  remove(): void;
}

/** `docker/Containerfile.<image>` parsed with the build args `npm run image:<image>` passes (`buildArgs` add to them). */
export function readRecipe(image: ImageName, buildArgs: Readonly<Record<string, string>> = {}): Stage[] {
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const file = `docker/Containerfile.${image}`;
  return parseContainerfile(readFileSync(join(REPO_ROOT, file), 'utf8'), file, { VERSION: version, ...buildArgs });
}

/**
 * The runtime stage of `docker/Containerfile.<image>` assembled into a scratch root from a clean build of this
 * repository (the build stage) and a real `npm ci` of each dependency stage, plus the base image's layout and
 * the pod's mount points. `skip` drops COPY steps.
 */
export async function assembleImage(image: ImageName, mountPoints: readonly string[], skip?: (copy: CopyStep) => boolean): Promise<AssembledImage> {
  const stages = readRecipe(image);
  const runtime = stages[stages.length - 1]!;
  const sources = new Map<string, StageSource>();
  for (const stage of stages.slice(0, -1)) {
    if (stage.name === undefined) throw new Error(`docker/Containerfile.${image}: every build stage needs a name`);
    sources.set(stage.name, stage.runs.some((line) => line.startsWith('node scripts/build.mjs')) ? buildStage(stage) : { hostDir: await installStage(stage, REPO_ROOT), workdir: stage.workdir });
  }
  const root = mkdtempSync(join(tmpdir(), `cli-mcp-ship-${image}-root-`));
  try {
    const copied = assembleImageRoot(runtime, (from) => {
      const source = from === undefined ? undefined : sources.get(from);
      if (!source) throw new Error(`docker/Containerfile.${image}: COPY from ${from ?? 'the build context'} is not a build stage this check knows`);
      return source;
    }, root, skip);
    addBaseLayout(root, mountPoints);
    return { stages, runtime, root, copied, remove: () => rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The build stage is this checkout after `npm run build`, narrowed to what the stage's own
 * `node scripts/build.mjs <apps>` produces: dist/ of other apps (and libs/testing, the dev-cluster app's) is not
 * there in the image build.
 */
function buildStage(stage: Stage): StageSource {
  const line = stage.runs.find((run) => run.startsWith('node scripts/build.mjs'))!;
  const apps = line.split('&&')[0]!.trim().split(/\s+/).slice(2);
  const builds = (app: string): boolean => apps.length === 0 || apps.includes(app);
  return {
    hostDir: REPO_ROOT,
    workdir: stage.workdir,
    refuse: (path) => {
      if (path === 'node_modules' || path.startsWith('node_modules/')) return 'the build stage has every dev dependency; copy production dependencies from a stage that runs npm ci --omit=dev';
      const parts = path.split('/');
      if (parts[0] !== 'dist') return undefined;
      if (parts[1] === 'apps' && parts[2] !== undefined && !builds(parts[2])) return `the stage does not build ${parts[2]}`;
      // The bundles (scripts/bundle-agent.mjs, scripts/bundle-nest-app.mjs) sit at dist/<app>, built with their app.
      const bundle = parts[1] === 'sandbox-agent' || parts[1] === 'mcp-server' || parts[1] === 'sandbox-controller' || parts[1] === 'egress-gateway';
      if (bundle && !builds(parts[1]!)) return `the stage does not build ${parts[1]}`;
      if (parts[1] === 'libs' && parts[2] === 'testing' && !builds('dev-cluster')) return 'libs/testing is test support, built only with dev-cluster';
      if (parts.length < 3 && !bundle) return 'copy the dist/ folders of the apps and libraries the image runs, not dist/ or dist/libs whole';
      return undefined;
    },
  };
}
