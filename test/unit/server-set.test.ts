/**
 * The ServerSet's rules with stand-in servers: named, the watched view per engine follows what
 * runs, unwatched servers (standbys) are never the watchdog's, and stopAll stops in reverse order
 * and goes on past a stop that fails.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ServerSet } from "../../lib/experiments/servers";
import type { StartedServer } from "../../lib/targets/types";

function fake(id: string, stopped: string[], fail = false): StartedServer {
  return {
    id,
    engine: "postgresql",
    stop: async () => {
      stopped.push(id);
      if (fail) throw new Error(`${id} would not stop`);
    },
  } as unknown as StartedServer;
}

test("a ServerSet: by name, the latest watched server per engine, standbys unwatched, stopped last-first", async () => {
  const stopped: string[] = [];
  const set = new ServerSet();
  const first = set.add("05-pg", fake("a", stopped));
  assert.equal(set.byEngine.get("postgresql"), first);
  const primary = set.add("05-primary", fake("b", stopped, true));
  assert.equal(set.byEngine.get("postgresql"), primary, "the latest watched server of the engine");
  set.add("s1", fake("s1", stopped), { watched: false });
  set.add("s1", fake("s1b", stopped), { watched: false });
  assert.equal(set.byEngine.get("postgresql"), primary, "a standby is never the watchdog's server");
  assert.equal(set.get("s1-2")?.id, "s1b", "a second server of a name gets its own");
  await set.stop(first);
  assert.deepEqual(stopped, ["a"]);
  assert.equal(set.get("05-pg"), undefined);
  await set.stopAll();
  assert.deepEqual(stopped, ["a", "s1b", "s1", "b"], "reverse order, past the primary's failed stop");
  assert.equal(set.byEngine.size, 0);
  assert.deepEqual(set.all(), []);
});
