import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { Server } from 'node:https';
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { errorText, tlsPairProblem } from '@cli-mcp/common';
import type { TlsFiles } from '../config/server-config.js';

/**
 * How often the certificate and key files are stat'ed. A Kubernetes Secret volume is updated by swapping a symlink
 * (inotify on the file itself misses it), and cert-manager and OpenShift's service CA rotate well ahead of expiry,
 * so two stats every few seconds are the cheap, reliable choice.
 */
const POLL_MS = 2000;

export interface TlsPems {
  readonly cert: string;
  readonly key: string;
}

/** The PEMs as the configuration checked them (the loader already refused a pair that does not load). */
export function readTlsPems(files: TlsFiles): TlsPems {
  return { cert: readFileSync(files.certFile, 'utf8'), key: readFileSync(files.keyFile, 'utf8') };
}

/** Subject, SANs and expiry of the served certificate, for the log (never the key). */
export function describeCertificate(cert: string): Record<string, string | undefined> {
  try {
    const leaf = new X509Certificate(cert);
    return { subject: leaf.subject.replace(/\n/g, ', '), san: leaf.subjectAltName, not_after: new Date(leaf.validTo).toISOString() };
  } catch (error) {
    return { problem: errorText(error) };
  }
}

/**
 * Serves a rotated certificate without a restart: when either file changes, the pair is re-read and, if it loads,
 * becomes the server's context for new connections (open ones keep theirs). A pair caught half-written, or a bad
 * one, is logged and the previous certificate stays: a rotation mistake must not take the server off the air.
 * Returns the stop function.
 */
export function reloadTlsOnChange(server: Pick<Server, 'setSecureContext'>, files: TlsFiles, logger: Logger): () => void {
  let served = readTlsPems(files);
  const onChange = (): void => {
    let next: TlsPems;
    try {
      next = readTlsPems(files);
    } catch (error) {
      logger.warn({ err: errorText(error) }, 'TLS files cannot be read; still serving the previous certificate');
      return;
    }
    if (next.cert === served.cert && next.key === served.key) return;
    const problem = tlsPairProblem(next.cert, next.key);
    if (problem !== undefined) {
      logger.warn({ problem }, 'the changed TLS files do not load as a certificate and its key; still serving the previous certificate');
      return;
    }
    server.setSecureContext({ cert: next.cert, key: next.key });
    served = next;
    logger.info(describeCertificate(next.cert), 'TLS certificate reloaded');
  };
  const options = { interval: POLL_MS, persistent: false };
  watchFile(files.certFile, options, onChange);
  watchFile(files.keyFile, options, onChange);
  return () => {
    unwatchFile(files.certFile, onChange);
    unwatchFile(files.keyFile, onChange);
  };
}
