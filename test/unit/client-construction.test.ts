/**
 * Every node-postgres Client and MongoClient the library opens: a pg Client's options come from
 * postgresClientConfig (its ssl explicit, so neither an exported PGSSLMODE reaches a lab server nor
 * an external server's TLS settings are lost), and each client gets an 'error' listener
 * (handleErrors), without which a dropped connection is an uncaught exception in the kernel.
 * Read from the sources, because a missing listener only shows when a connection drops.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const LIB = path.resolve(__dirname, "..", "..", "..", "lib");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
  });
}

/** The text of the call starting at `open` (the index of its opening parenthesis). */
function callArguments(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

test("every pg Client in lib/ is built by postgresClientConfig, and every client has handleErrors", () => {
  const problems: string[] = [];
  let seen = 0;
  for (const file of sources(LIB)) {
    const text = fs.readFileSync(file, "utf8");
    const pg = /import\s*(type\s*)?\{[^}]*\bClient\b[^}]*\}\s*from\s*"pg"/.test(text);
    for (const m of text.matchAll(/new (MongoClient|Client)\(/g)) {
      const kind = m[1];
      if (kind === "Client" && !pg) continue; // another library's Client (ssh2)
      seen++;
      const at = `${path.relative(LIB, file)}:${text.slice(0, m.index).split("\n").length}`;
      const args = callArguments(text, m.index + m[0].length - 1);
      if (kind === "Client" && !args.includes("postgresClientConfig("))
        problems.push(`${at}: not postgresClientConfig`);
      // The listener: wrapped around the construction, or on the client within the next lines.
      const around = text.slice(Math.max(0, m.index - 80), m.index + args.length + 400);
      if (!around.includes("handleErrors(")) problems.push(`${at}: no handleErrors`);
    }
  }
  assert.ok(seen >= 10, `found only ${seen} clients: the scan no longer matches the sources`);
  assert.deepEqual(problems, []);
});
