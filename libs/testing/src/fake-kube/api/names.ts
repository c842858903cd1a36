/**
 * Name and label validation with the wording of `k8s.io/apimachinery/pkg/util/validation` (the messages appear
 * verbatim in real 400/422 responses, so clients that print them see the same text).
 */

const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

const QUALIFIED_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** Problems with a label/annotation key (`[prefix/]name`); empty when valid. */
export function qualifiedNameErrors(key: string): string[] {
  const parts = key.split('/');
  let name = key;
  const errors: string[] = [];
  if (parts.length === 2) {
    const [prefix, rest] = parts as [string, string];
    name = rest;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else for (const e of dnsSubdomainErrors(prefix)) errors.push(`prefix part ${e}`);
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (name.length > 63) errors.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME_PART.test(name)) errors.push(QUALIFIED_NAME_MSG);
  return errors;
}

/** Problems with a label value (≤63 chars, may be empty); empty when valid. */
export function labelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) errors.push(LABEL_VALUE_MSG);
  return errors;
}

/** Problems with a DNS-1123 subdomain (object names of pods, secrets, leases); empty when valid. */
export function dnsSubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 253) errors.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) errors.push(DNS1123_SUBDOMAIN_MSG);
  return errors;
}

/** Problems with a DNS-1123 label (container names); empty when valid. */
export function dnsLabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(value)) errors.push(DNS1123_LABEL_MSG);
  return errors;
}

/** Problems with a Secret data key; empty when valid. */
export function configKeyErrors(key: string): string[] {
  const errors: string[] = [];
  if (key.length > 253) errors.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) errors.push(CONFIG_KEY_MSG);
  if (key === '.' || key === '..' || key.startsWith('..')) errors.push(`must not be '.' or '..' or start with '..'`);
  return errors;
}
