import type { ResourceDefinition } from './resources.js';

/** An API group as discovery lists it. */
export interface ServedGroup {
  name: string;
  /** Served versions, preferred (built-in, or the CRD's storage version) first. */
  versions: string[];
}

/**
 * Every resource the fake serves: the built-in kinds, plus the versions of each established CustomResourceDefinition
 * (added and removed at run time by the CRD controller). Routing, discovery, the registry and the garbage collector
 * all look resources up here.
 */
export class ResourceRegistry {
  private readonly custom = new Map<string, ResourceDefinition[]>();

  constructor(private readonly builtins: readonly ResourceDefinition[]) {}

  /** Every served resource (one entry per served version). */
  all(): ResourceDefinition[] {
    return [...this.builtins, ...[...this.custom.values()].flat()];
  }

  /** The resource served at `/api[s]/{group}/{version}/…/{plural}`. */
  find(group: string, version: string, plural: string): ResourceDefinition | undefined {
    return this.all().find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  /** The resource of `apiVersion` + `kind` (an owner reference, an Event's involvedObject). */
  byKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    return this.all().find((r) => r.apiVersion === apiVersion && r.kind === kind);
  }

  /** One definition of a storage key (for a CRD: its storage version, listed first). */
  byStorage(storage: string): ResourceDefinition | undefined {
    return this.all().find((r) => r.storage === storage);
  }

  /** Serves (or re-serves) the versions of a CRD; `defs` empty → stops serving it. */
  setCustom(crdName: string, defs: ResourceDefinition[]): void {
    if (defs.length === 0) this.custom.delete(crdName);
    else this.custom.set(crdName, defs);
  }

  removeCustom(crdName: string): void {
    this.custom.delete(crdName);
  }

  /** Named API groups (not the core group) with their served versions. */
  groups(): ServedGroup[] {
    const groups = new Map<string, string[]>();
    for (const def of this.all()) {
      if (def.group === '') continue;
      const versions = groups.get(def.group) ?? [];
      if (!versions.includes(def.version)) versions.push(def.version);
      groups.set(def.group, versions);
    }
    return [...groups.entries()].map(([name, versions]) => ({ name, versions }));
  }

  /** Whether `/apis/{group}[/{version}]` exists. */
  hasGroup(group: string, version?: string): boolean {
    return this.all().some((r) => r.group === group && (version === undefined || r.version === version));
  }
}
