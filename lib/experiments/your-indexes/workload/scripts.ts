/** The workload's pgbench scripts and the columns their UPDATEs set, so a lost HOT share can name them: a light
 * reading, not a parser (a statement it cannot read is left out of that sentence, not the measurement). */
import fs from "node:fs";
import path from "node:path";
import type { PgbenchScript } from "../../../workloads/pgbench";

export interface WorkloadScript extends PgbenchScript {
  readonly file: string;
  readonly weight: number;
}

export function readWorkload(entries: readonly string[]): WorkloadScript[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const m = /^(.*)@(\d+)$/.exec(entry);
    const file = m ? m[1] : entry;
    const base = path.basename(file).replace(/[^A-Za-z0-9_.-]/g, "_");
    // Two scripts of the same name from different folders get distinct file names in pgbench's folder.
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return {
      file,
      name: n === 1 ? base : `${n}-${base}`,
      text: fs.readFileSync(file, "utf8"),
      weight: m ? Number(m[2]) : 1,
    };
  });
}

export interface UpdateStatement {
  readonly script: string;
  readonly statement: string;
  readonly table: string;
  readonly columns: readonly string[];
}

const unquote = (s: string) => s.replace(/"/g, "").split(".").pop()?.toLowerCase() ?? s;

/** Top-level `a = …` assignments of a SET list: the names before '=' at parenthesis depth 0. */
function setColumns(list: string): string[] {
  let [depth, start, end] = [0, 0, list.length];
  const parts: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) {
      end = i; // the end of the WITH … ( … ) the UPDATE stands in
      break;
    } else if (ch === "," && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start, end));
  return parts.flatMap((part) => {
    const tuple = /^\s*\(([^)]*)\)\s*=/.exec(part);
    const single = /^\s*("?[\w$]+"?)\s*=/.exec(part);
    return tuple ? tuple[1].split(",").map((c) => unquote(c.trim())) : single ? [unquote(single[1])] : [];
  });
}

export function updateStatements(scripts: readonly Pick<WorkloadScript, "name" | "text">[]): UpdateStatement[] {
  const out: UpdateStatement[] = [];
  for (const s of scripts) {
    const sql = s.text
      .split("\n")
      .filter((l) => !/^\s*\\/.test(l))
      .map((l) => l.replace(/--.*$/, ""))
      .join(" ");
    for (const raw of sql.split(";")) {
      const statement = raw.replace(/\s+/g, " ").trim();
      const re =
        /\bUPDATE\s+(?:ONLY\s+)?("?[\w$.]+"?)(?:\s+(?:AS\s+)?[\w$]+)?\s+SET\s+(.*?)(?=\s+(?:FROM|WHERE|RETURNING)\b|$)/gi;
      for (const m of statement.matchAll(re))
        out.push({ script: s.name, statement, table: unquote(m[1]), columns: setColumns(m[2]) });
    }
  }
  return out;
}
