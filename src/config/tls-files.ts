import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The server's certificate (with its chain) and private key, as the two files hold them. */
export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/**
 * Reads TLS_CERT_FILE and TLS_KEY_FILE at start-up and checks what the server would
 * otherwise find only as it starts listening, in a stack trace naming neither variable:
 * that both can be read, that the first holds a PEM certificate and the second an
 * unencrypted PEM private key, and that the key is the certificate's. Problems come back
 * as `NAME: message` lines.
 */
export function readTlsFiles(certFile: string, keyFile: string): TlsFiles | { problems: string[] } {
  const cert = read('TLS_CERT_FILE', certFile);
  const key = read('TLS_KEY_FILE', keyFile);
  if (typeof cert === 'string' || typeof key === 'string') {
    return { problems: [cert, key].filter((r): r is string => typeof r === 'string') };
  }
  const problems: string[] = [];
  const certificate = parsed(() => new X509Certificate(cert));
  const privateKey = parsed<KeyObject>(() => createPrivateKey(key));
  if (!certificate) problems.push(`TLS_CERT_FILE: ${certFile} holds no PEM certificate`);
  if (!privateKey) {
    problems.push(`TLS_KEY_FILE: ${keyFile} holds no PEM private key (or an encrypted one)`);
  }
  if (certificate && privateKey && !certificate.checkPrivateKey(privateKey)) {
    problems.push('TLS_KEY_FILE: is not the private key of the certificate in TLS_CERT_FILE');
  }
  return problems.length > 0 ? { problems } : { cert, key };
}

/** The file's bytes, or the problem line naming `name`. */
function read(name: string, file: string): Buffer | string {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return `${name}: ${file} cannot be read (${code})`;
  }
}

function parsed<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch {
    return undefined;
  }
}
