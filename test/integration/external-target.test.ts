// test-tier: fast — embedded PostgreSQL as the external server, its own state folder, clean on it
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { recreateDatabase } from "../../lib/engines/postgres/template-database";
import { listRecords } from "../../lib/runtime/resource-registry";
import { withEnv } from "../support/env";
import { EmbeddedPostgresTarget } from "../../lib/targets/embedded/embedded-postgres";
import { ExternalTarget, LAB_DATABASE_COMMENT } from "../../lib/targets/external/external-target";

test("external target: works only inside a database it creates and marks, and drops it on stop", async () => {
  // An embedded server plays the remote one: the external target only sees its URI.
  const remote = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "remote" });
  try {
    const server = await new ExternalTarget(remote.uri).start({ engine: "postgresql" });
    assert.match(server.connection.database, /^dblab_[a-z0-9_]+$/);
    assert.equal(server.description.kind, "external");
    assert.ok(!server.description.source.includes(remote.connection.password), "the recorded source is redacted");
    await assert.rejects(server.restart(), /cannot be restarted/);

    const admin = new Client(remote.connection);
    await admin.connect();
    const comment = await admin.query<{ c: string }>(
      "SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = $1",
      [server.connection.database],
    );
    assert.ok(comment.rows[0].c.startsWith(`${LAB_DATABASE_COMMENT} (owner `), comment.rows[0].c);
    const inside = new Client(server.connection);
    await inside.connect();
    await inside.query("CREATE TABLE t (x int)");
    await inside.end();
    await server.stop();
    const left = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_database WHERE datname = $1", [
      server.connection.database,
    ]);
    assert.equal(left.rows[0].n, 0, "the lab's database is dropped");
    const others = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname = 'postgres'",
    );
    assert.equal(others.rows[0].n, 1, "nothing else touched");
    await admin.end();
  } finally {
    await remote.stop();
  }
});

test("external target: an unreachable server is a clear error without the password", async () => {
  await assert.rejects(
    new ExternalTarget("postgresql://lab:topsecret@127.0.0.1:1/postgres").start({ engine: "postgresql" }),
    (e: Error) =>
      /Cannot reach the external PostgreSQL at postgresql:\/\/lab:\*\*\*@127\.0\.0\.1:1\/postgres/.test(e.message) &&
      !e.message.includes("topsecret"),
  );
});

test("external target: a database a kill -9 left behind is named by clean with its SQL, and the next run drops it", async () => {
  const remote = await new EmbeddedPostgresTarget().start({ engine: "postgresql", name: "remote" });
  // A state folder of its own: the records seen here are this test's only.
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "dblab-external-leftover-"));
  const admin = new Client(remote.connection);
  try {
    await admin.connect();
    const exists = async (name: string) =>
      (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_database WHERE datname = $1", [name]))
        .rows[0].n === 1;
    await withEnv({ DBLAB_STATE_DIR: state }, async () => {
      // A live run's database on the same server, which the next run's sweep must not touch.
      const live = await new ExternalTarget(remote.uri, { onPreflight: () => {} }).start({
        engine: "postgresql",
        runId: "20261201T000000_03-over-indexing_1111",
      });
      assert.equal(live.connection.database, "dblab_20261201t000000_03_1111", "the run's id in its database's name");
      const liveTemplate = `${live.databasePrefix}_inventory_template`;
      await recreateDatabase(live.connection, liveTemplate);
      // A runner that creates its database and two 03-style templates, then is killed with SIGKILL:
      // nothing of it runs after.
      const build = path.resolve(__dirname, "..", "..");
      const killedRunner = async (runId: string): Promise<string> => {
        const runner = spawn(
          process.execPath,
          [
            "-e",
            `const { ExternalTarget } = require(${JSON.stringify(path.join(build, "lib/targets/external/external-target.js"))});
             const { recreateDatabase, cloneDatabase } = require(${JSON.stringify(path.join(build, "lib/engines/postgres/template-database.js"))});
             new ExternalTarget(process.env.URI, { onPreflight: () => {} })
               .start({ engine: "postgresql", runId: process.env.RUN_ID })
               .then(async (s) => {
                 await recreateDatabase(s.connection, s.databasePrefix + "_inventory_template");
                 await cloneDatabase(s.connection, s.databasePrefix + "_inventory_template", s.databasePrefix + "_inventory_l7");
                 console.log("DB " + s.connection.database);
                 setInterval(() => {}, 1000);
               });`,
          ],
          { env: { ...process.env, URI: remote.uri, RUN_ID: runId }, stdio: ["ignore", "pipe", "inherit"] },
        );
        const database = await new Promise<string>((resolve, reject) => {
          let out = "";
          runner.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /DB (\S+)/.exec(out);
            if (m) resolve(m[1]);
          });
          runner.on("exit", (code) => reject(new Error(`the runner ended (${code}) before its database: ${out}`)));
        });
        const gone = new Promise((r) => runner.once("exit", r));
        runner.kill("SIGKILL");
        await gone;
        return database;
      };
      const left = await killedRunner("20261201T000000_03-over-indexing_2222");
      assert.ok(await exists(left), "the killed runner's database is still there");
      const leftTemplates = [`${left}_inventory_template`, `${left}_inventory_l7`];
      for (const name of leftTemplates) assert.ok(await exists(name), `the killed runner's ${name} is still there`);
      const record = listRecords().find((r) => r.resource.type === "external-database" && !r.ownerAlive);
      assert.ok(record && !record.ownerAlive, "its record names a dead owner");
      assert.ok(
        !fs
          .readFileSync(path.join(state, "resources", `${record.id}.json`), "utf8")
          .includes(remote.connection.password),
        "no password on disk",
      );

      // clean cannot drop it (no password) and says so, with the SQL.
      const clean = spawnSync(process.execPath, [path.join(build, "scripts/clean.js")], { encoding: "utf8" });
      assert.equal(clean.status, 0, clean.stderr);
      assert.match(
        clean.stdout,
        new RegExp(`could not reach[\\s\\S]*${left}[\\s\\S]*DROP DATABASE IF EXISTS "${left}" WITH \\(FORCE\\)`),
      );
      assert.ok(await exists(left), "clean dropped nothing it could not reach");
      const dry = spawnSync(process.execPath, [path.join(build, "scripts/clean.js"), "--dry-run"], {
        encoding: "utf8",
      });
      assert.match(dry.stdout, new RegExp(`could not reach database ${left}[^\\n]*DROP DATABASE`));
      assert.doesNotMatch(dry.stdout, new RegExp(`would remove database ${left}`));

      const notes: string[] = [];
      const next = await new ExternalTarget(remote.uri, { onPreflight: () => {}, onNote: (m) => notes.push(m) }).start({
        engine: "postgresql",
      });
      try {
        assert.equal(await exists(left), false, "the next run against the server dropped the leftover");
        for (const name of leftTemplates)
          assert.equal(await exists(name), false, `the next run dropped the dead run's ${name} too (its owner mark)`);
        assert.ok(await exists(liveTemplate), "a running lab's template stays");
        assert.ok(
          notes.some((n) => n.includes(left)),
          notes.join("\n"),
        );
        assert.ok(await exists(live.connection.database), "a running lab's database stays");
        assert.ok(
          !listRecords().some((r) => r.resource.type === "external-database" && r.resource.database === left),
          "the leftover's record is gone",
        );
        // `npm run clean` with the server's URI drops a dead run's databases itself, templates included.
        const again = await killedRunner("20261201T000000_04-reindex-under-load_3333");
        const againTemplates = [again, `${again}_inventory_template`, `${again}_inventory_l7`];
        for (const name of againTemplates) assert.ok(await exists(name), `${name} left by the second killed runner`);
        const withUri = spawnSync(process.execPath, [path.join(build, "scripts/clean.js")], {
          encoding: "utf8",
          env: { ...process.env, DBLAB_POSTGRES_URI: remote.uri },
        });
        assert.equal(withUri.status, 0, withUri.stderr);
        for (const name of againTemplates)
          assert.equal(await exists(name), false, `clean with the URI dropped ${name}`);
        assert.match(withUri.stdout, new RegExp(`dropped ${again}_inventory_template`));
        assert.ok(await exists(liveTemplate), "clean left a running lab's template alone");
        assert.ok(!withUri.stdout.includes(remote.connection.password), "no password in clean's output");
      } finally {
        await next.stop();
        await live.stop();
      }
      assert.equal(await exists(liveTemplate), false, "a run's stop drops every database under its name");
      assert.deepEqual(
        listRecords().filter((r) => r.resource.type === "external-database"),
        [],
        "stopped servers leave no record",
      );
    });
  } finally {
    await admin.end();
    await remote.stop();
    fs.rmSync(state, { recursive: true, force: true });
  }
});
