import { describe, expect, it } from 'vitest';
import {
  COMPONENT_LABEL,
  CREATED_AT_ANNOTATION,
  INSTANCE_LABEL,
  LAST_ACTIVITY_ANNOTATION,
  SANDBOX_COMPONENT,
  SESSION_ID_LABEL,
  SPEC_HASH_ANNOTATION,
  assignedSelector,
  sandboxLabels,
  sandboxSelector,
  unassignedSelector,
} from './labels.js';

describe('label and annotation keys', () => {
  it('are the Go Phase 3 keys (C-K8S-1, Go §3.2) plus the spec hash', () => {
    expect([INSTANCE_LABEL, COMPONENT_LABEL, SANDBOX_COMPONENT, SESSION_ID_LABEL]).toEqual([
      'cli-mcp.redhat.com/instance',
      'cli-mcp.redhat.com/component',
      'sandbox',
      'cli-mcp.redhat.com/session-id',
    ]);
    expect([CREATED_AT_ANNOTATION, LAST_ACTIVITY_ANNOTATION, SPEC_HASH_ANNOTATION]).toEqual([
      'cli-mcp.redhat.com/created-at',
      'cli-mcp.redhat.com/last-activity',
      'cli-mcp.redhat.com/spec-hash',
    ]);
  });
});

// Go TestSelectorsIncludeInstance: literal strings, order instance, component, session-id.
describe(assignedSelector.name, () => {
  it('is the exact Go string', () => {
    expect(assignedSelector('oc', 'inv-1')).toBe(
      'cli-mcp.redhat.com/instance=oc,cli-mcp.redhat.com/component=sandbox,cli-mcp.redhat.com/session-id=inv-1',
    );
  });
});

describe(unassignedSelector.name, () => {
  it('is the exact Go string', () => {
    expect(unassignedSelector('oc')).toBe(
      'cli-mcp.redhat.com/instance=oc,cli-mcp.redhat.com/component=sandbox,!cli-mcp.redhat.com/session-id',
    );
  });
});

describe(sandboxSelector.name, () => {
  it('is the exact Go string', () => {
    expect(sandboxSelector('oc')).toBe('cli-mcp.redhat.com/instance=oc,cli-mcp.redhat.com/component=sandbox');
  });
});

describe(sandboxLabels.name, () => {
  it('carries instance and component, and the session only when given', () => {
    expect(sandboxLabels('oc')).toEqual({ [INSTANCE_LABEL]: 'oc', [COMPONENT_LABEL]: 'sandbox' });
    expect(sandboxLabels('oc', 's1')).toEqual({ [INSTANCE_LABEL]: 'oc', [COMPONENT_LABEL]: 'sandbox', [SESSION_ID_LABEL]: 's1' });
  });
});
