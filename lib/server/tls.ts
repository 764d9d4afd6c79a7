/**
 * HTTPS settings and certificate renewal.
 *
 * Protocols and suites follow Mozilla's "intermediate" profile without its DHE suites: TLS 1.2
 * and 1.3 only, and on TLS 1.2 only ECDHE key exchange (forward secrecy) with AEAD ciphers
 * (GCM, ChaCha20-Poly1305). Node's default list would also accept RSA key exchange
 * (`AES256-GCM-SHA384`: no forward secrecy) and CBC/SHA-1 suites (`AES128-SHA`,
 * `ECDHE-RSA-AES128-SHA`). DHE is left out because it needs operator-supplied parameters and
 * every client that speaks DHE-with-AEAD also speaks ECDHE. TLS 1.3 suites are all ECDHE+AEAD;
 * they are listed so the string says everything that can be negotiated.
 *
 * Renewal: certificate tools (certbot, cert-manager, acme.sh) replace the files in place or by
 * rename, usually the certificate and the key one after the other. Both files are polled; a
 * change is acted on once neither file has changed for one more poll, then the pair is loaded
 * into a fresh secure context (which fails on a key that does not match the certificate) and
 * handed to `server.setSecureContext`, so new handshakes use it and open connections keep
 * theirs. A pair that fails keeps the last good one serving and logs why.
 *
 * Both files are read under the trust rule of lib/files/trusted-file.ts, at start and at every
 * renewal (security review S3, docs/security.md): whoever can write the key or the
 * certificate, or a directory on their path, decides who the server is. Symbolic links are
 * resolved first (certbot's `live/` names are links into `archive/`), and both directories
 * are judged. A private key that other users may read is used, with a warning.
 * @module
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { Stats } from 'node:fs';
import { createSecureContext, type SecureContextOptions, type TlsOptions } from 'node:tls';
import { octal, readableByOthers, readTrustedFile, serverOwners, type TrustedRead } from '../files/trusted-file.ts';
import { watchFile, type FileWatch } from '../files/watch-file.ts';
import type { Logger } from '../log/logger.ts';

export const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export interface PemPair {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** Everything a secure context of this server gets: the pair and the fixed profile. */
export function secureContextOptions(pair: PemPair): SecureContextOptions & TlsOptions {
  return { cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2', ciphers: TLS_CIPHERS, honorCipherOrder: true };
}

/** Why a pair cannot serve (a bad PEM, a key that is not the certificate's), or null. The
 * reason is OpenSSL's or Node's text, which names the problem and never quotes key material.
 * The explicit key check matters: OpenSSL keeps keys per algorithm, so an EC key beside an
 * RSA certificate loads without complaint and only every handshake fails. */
export function pairProblem(pair: PemPair): string | null {
  try {
    createSecureContext(secureContextOptions(pair));
    if (!new X509Certificate(pair.cert).checkPrivateKey(createPrivateKey(pair.key)))
      return "the key is not the certificate's";
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A TLS file (certificate or key) under the trust rule, links resolved. */
export function readTlsFile(file: string): TrustedRead {
  return readTrustedFile(file, serverOwners(), { links: 'resolve' });
}

/** The warning for a private key other users may read, or null. */
export function keyExposure(file: string, stats: Stats): { message: string; fields: Record<string, string> } | null {
  if (!readableByOthers(stats)) return null;
  return {
    message: 'TLS private key is readable by other users; chmod o-r it',
    fields: { key: file, mode: octal(stats.mode) },
  };
}

/** Both files, trusted, or why not: the file and the reason. */
export function readPair(files: TlsFiles): { pair: PemPair; keyStats: Stats } | { file: string; reason: string } {
  const cert = readTlsFile(files.certFile);
  if (cert.kind !== 'ok') return { file: files.certFile, reason: cert.kind === 'missing' ? 'ENOENT' : cert.reason };
  const key = readTlsFile(files.keyFile);
  if (key.kind !== 'ok') return { file: files.keyFile, reason: key.kind === 'missing' ? 'ENOENT' : key.reason };
  return { pair: { cert: cert.data, key: key.data }, keyStats: key.stats };
}

/**
 * Watches the two files and swaps the server's secure context when a good new pair is on
 * disk. `pollMs` is the stat interval (1 s by default: renewal is a rare event, and stat is
 * cheap).
 */
export class CertificateWatcher {
  private readonly files: TlsFiles;
  private readonly install: (options: SecureContextOptions) => void;
  private readonly logger: Logger;
  private readonly pollMs: number;
  private readonly onReload: ((outcome: 'loaded' | 'rejected') => void) | undefined;
  private last: string;
  private settle: NodeJS.Timeout | null = null;
  private watches: FileWatch[] = [];

  /** `install` hands a new context to the server (https.Server#setSecureContext). */
  constructor(options: {
    files: TlsFiles;
    install: (options: SecureContextOptions) => void;
    logger: Logger;
    pollMs?: number;
    loaded: PemPair;
    /** Told whether the pair on disk now is served (installed or unchanged) or was refused. */
    onReload?: (outcome: 'loaded' | 'rejected') => void;
  }) {
    this.files = options.files;
    this.install = options.install;
    this.logger = options.logger;
    this.pollMs = options.pollMs ?? 1_000;
    this.onReload = options.onReload;
    this.last = fingerprint(options.loaded);
  }

  start(): void {
    this.watches = [this.files.certFile, this.files.keyFile].map((file) =>
      watchFile(file, this.pollMs, () => {
        this.changed();
      }),
    );
  }

  /** A change seen: wait one more poll so a certificate and key written one after the other
   * are read as a pair. */
  private changed(): void {
    if (this.settle !== null) clearTimeout(this.settle);
    this.settle = setTimeout(() => this.reload(), this.pollMs + 50);
    this.settle.unref();
  }

  /** Reads the pair and installs it if it is new, trusted and good. Exposed for tests. */
  reload(): 'installed' | 'unchanged' | 'rejected' {
    const outcome = this.judge();
    this.onReload?.(outcome === 'rejected' ? 'rejected' : 'loaded');
    return outcome;
  }

  private judge(): 'installed' | 'unchanged' | 'rejected' {
    this.settle = null;
    const read = readPair(this.files);
    if ('reason' in read) {
      this.logger.error('TLS files cannot be used; keeping the last good pair', {
        cert: this.files.certFile,
        key: this.files.keyFile,
        file: read.file,
        reason: read.reason,
      });
      return 'rejected';
    }
    const { pair } = read;
    const print = fingerprint(pair);
    if (print === this.last) return 'unchanged';
    const problem = pairProblem(pair);
    if (problem !== null) {
      this.logger.error('TLS certificate and key rejected; keeping the last good pair', {
        cert: this.files.certFile,
        key: this.files.keyFile,
        reason: problem,
      });
      return 'rejected';
    }
    this.install(secureContextOptions(pair));
    this.last = print;
    this.logger.info('TLS certificate reloaded', { cert: this.files.certFile });
    const exposure = keyExposure(this.files.keyFile, read.keyStats);
    if (exposure !== null) this.logger.warn(exposure.message, exposure.fields);
    return 'installed';
  }

  close(): void {
    for (const watch of this.watches) watch.close();
    this.watches = [];
    if (this.settle !== null) clearTimeout(this.settle);
    this.settle = null;
  }
}

/** Identifies the content of a pair, so a touched but unchanged file logs nothing. */
function fingerprint(pair: PemPair): string {
  return createHash('sha256').update(pair.cert).update('\0').update(pair.key).digest('hex');
}
