/**
 * Certificates for the TLS tests, made with openssl in a folder of the test's own: a CA, a server
 * key and certificate signed by it for the names given, and an unrelated second CA (for the
 * "wrong CA" refusals). The server's files are owned by the embedded server's OS user (it reads its
 * key as itself and refuses one that others can read).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { serverOsUser } from "../../lib/targets/embedded/postgres-binaries";

/** The names a certificate for the loopback server carries. */
export const LOOPBACK_SAN = "subjectAltName=DNS:localhost,IP:127.0.0.1";

export interface TestCa {
  /** The CA that signed the server's certificate. */
  readonly ca: string;
  /** A CA that signed nothing of the server's. */
  readonly wrongCa: string;
  readonly serverCert: string;
  readonly serverKey: string;
  /** Signs the server's key again with these names (`subjectAltName=…`), over the previous certificate. */
  issueServerCertificate(san: string): void;
}

/** Whether openssl runs here; without it the TLS tests skip with this reason. */
export function opensslMissing(): string | undefined {
  return spawnSync("openssl", ["version"]).status === 0 ? undefined : "no openssl on PATH (for the test certificates)";
}

export function makeTestCa(dir: string, san: string = LOOPBACK_SAN): TestCa {
  const sh = (args: string[]): void =>
    void execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  const days = ["-days", "2"];
  sh(["req", "-x509", "-newkey", "rsa:2048", "-nodes", ...days, "-subj", "/CN=dblab test CA",
    "-keyout", "ca-key.pem", "-out", "ca.pem"]); // prettier-ignore
  sh(["req", "-x509", "-newkey", "rsa:2048", "-nodes", ...days, "-subj", "/CN=someone else's CA",
    "-keyout", "wrong-ca-key.pem", "-out", "wrong-ca.pem"]); // prettier-ignore
  sh(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr"]);
  const issueServerCertificate = (names: string): void => {
    fs.writeFileSync(
      path.join(dir, "server.ext"),
      `${names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
    );
    sh(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
      ...days, "-extfile", "server.ext", "-out", "server.crt"]); // prettier-ignore
    const user = serverOsUser();
    fs.chmodSync(dir, 0o755);
    for (const f of ["server.crt", "server.key"]) {
      fs.chmodSync(path.join(dir, f), 0o600);
      if (user) fs.chownSync(path.join(dir, f), user.uid, user.gid);
    }
  };
  issueServerCertificate(san);
  return {
    ca: path.join(dir, "ca.pem"),
    wrongCa: path.join(dir, "wrong-ca.pem"),
    serverCert: path.join(dir, "server.crt"),
    serverKey: path.join(dir, "server.key"),
    issueServerCertificate,
  };
}

/** A certificate's SHA-256 fingerprint, from its PEM text; undefined if openssl reads none there. */
function fingerprint(pem: string): string | undefined {
  const r = spawnSync("openssl", ["x509", "-noout", "-fingerprint", "-sha256"], { input: pem, encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * Whether the PostgreSQL at 127.0.0.1:`port` presents the certificate in `certFile` to a new TLS
 * session (openssl's STARTTLS for postgres). A reload (pg_reload_conf) is asynchronous: a test that
 * changed the server's certificate waits for this, not for a delay.
 */
export function servesCertificate(port: number, certFile: string): boolean {
  const served = spawnSync("openssl", ["s_client", "-connect", `127.0.0.1:${port}`, "-starttls", "postgres"], {
    input: "",
    encoding: "utf8",
    timeout: 10_000,
  });
  const wanted = fingerprint(fs.readFileSync(certFile, "utf8"));
  return wanted !== undefined && fingerprint(served.stdout ?? "") === wanted;
}
