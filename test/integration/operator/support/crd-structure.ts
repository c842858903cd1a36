/**
 * The rules that make a CRD schema "structural" (Kubernetes docs, "Specifying a structural schema"), checked
 * offline: kube-apiserver refuses a CRD that breaks them, and no maintained npm package implements them. Also
 * checks that every default and enum value satisfies its own node (the API server does, at CRD creation).
 */
export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  default?: unknown;
  enum?: unknown[];
  pattern?: string;
  anyOf?: SchemaNode[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-validations'?: Array<{ rule: string; message?: string }>;
  [key: string]: unknown;
}

/** Every structural-schema violation, as `path: problem`. */
export function structuralProblems(node: SchemaNode, path = ''): string[] {
  const problems: string[] = [];
  const at = path || '<root>';
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  if (node.type === undefined && !intOrString && node['x-kubernetes-preserve-unknown-fields'] !== true) problems.push(`${at}: no type`);
  if (node.properties && node.additionalProperties !== undefined) problems.push(`${at}: properties and additionalProperties together`);
  if (node.anyOf && !intOrString) problems.push(`${at}: anyOf outside x-kubernetes-int-or-string`);
  if (node.type === 'array' && !node.items) problems.push(`${at}: array without items`);
  for (const value of [...(node.default === undefined ? [] : [node.default]), ...(node.enum ?? [])]) {
    const problem = valueProblem(node, value);
    if (problem) problems.push(`${at}: default/enum ${JSON.stringify(value)} ${problem}`);
  }
  for (const [key, child] of Object.entries(node.properties ?? {})) problems.push(...structuralProblems(child, `${path}.${key}`));
  if (node.items) problems.push(...structuralProblems(node.items, `${path}[]`));
  if (typeof node.additionalProperties === 'object') problems.push(...structuralProblems(node.additionalProperties, `${path}{}`));
  return problems;
}

/** Why `value` does not fit `node` (type, pattern, enum, nested properties), or undefined. */
export function valueProblem(node: SchemaNode, value: unknown): string | undefined {
  if (node['x-kubernetes-int-or-string']) {
    if (typeof value === 'number') return Number.isInteger(value) ? undefined : 'is not an integer';
    if (typeof value !== 'string') return 'is not an integer or string';
  } else if (node.type === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not an object';
    for (const [key, child] of Object.entries(value)) {
      const schema = node.properties?.[key];
      if (!schema) return `has unknown field ${key}`;
      const problem = valueProblem(schema, child);
      if (problem) return `${key} ${problem}`;
    }
    return undefined;
  } else if (node.type === 'integer' && !Number.isInteger(value)) return 'is not an integer';
  else if (node.type === 'string' && typeof value !== 'string') return 'is not a string';
  if (typeof value === 'string' && node.pattern && !new RegExp(node.pattern, 'u').test(value)) return `does not match ${node.pattern}`;
  if (node.enum && !node.enum.includes(value)) return `is not one of ${JSON.stringify(node.enum)}`;
  return undefined;
}

/** Every property path the schema declares (`spec.sandbox.idleTimeout`, `spec.proxy.targets[].type`). */
export function schemaPaths(node: SchemaNode, path = ''): string[] {
  const own = path ? [path] : [];
  const children = Object.entries(node.properties ?? {}).flatMap(([key, child]) => schemaPaths(child, path ? `${path}.${key}` : key));
  const items = node.items ? schemaPaths(node.items, `${path}[]`).filter((p) => p !== `${path}[]`) : [];
  return [...own, ...children, ...items];
}
