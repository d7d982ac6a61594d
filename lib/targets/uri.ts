/** Connection URIs: built in one place, and printed only with the password removed. */
import type { ConnectionInfo } from "./types";

export function postgresUri(c: ConnectionInfo): string {
  const auth = `${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}`;
  return `postgresql://${auth}@${c.host}:${c.port}/${encodeURIComponent(c.database)}`;
}

/** Replaces the password with `***`: user-info, a `password=` parameter, and libpq's key=value form. */
export function redactUri(uri: string): string {
  return (
    uri
      .replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i, "$1:***@")
      // MongoDB: a client key's passphrase, and AWS credentials (a session token) in the auth properties.
      .replace(
        /([?&](?:password|pass|pwd|sslpassword|tlsCertificateKeyFilePassword|authMechanismProperties)=)[^&]*/gi,
        "$1***",
      )
      .replace(/(^|\s)(password\s*=\s*)('(?:\\.|[^'\\])*'?|\S*)/gi, "$1$2***")
  );
}

/** Redacts every URI found in free text (error messages, logs). */
export function redactText(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, (m) => redactUri(m));
}
