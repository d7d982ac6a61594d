/**
 * Every notebook's parameters, one list: name, type and meaning from their declarations in
 * each lib/experiments/<name>/params.ts (lib/params/declare.ts; the registry's lib/experiments/notebooks.ts
 * exports them) and lib/compare/params.ts, and the smoke / default / full values from the profiles the
 * notebooks run. `npm run reproduce -- --only NN --help`
 * prints a notebook's part; `npm run docs:parameters` writes docs/parameters.md, and a unit test
 * fails when that file differs from what this module renders.
 *
 *   node build/scripts/parameters.js           docs/parameters.md's text on stdout
 *   node build/scripts/parameters.js --write   writes docs/parameters.md
 */
import fs from "node:fs";
import path from "node:path";
import { PROFILES, type ProfileName } from "../lib/params/profiles";
import { EXPERIMENTS } from "../lib/experiments/registry";
import type { RegisteredExperiment } from "../lib/experiments/contract";
import * as notebooks from "../lib/experiments/notebooks";
import { CompareRunsParams } from "../lib/compare/params";
import { DeclaredParams } from "../lib/params/declare";

export interface NotebookParameter {
  readonly name: string;
  readonly type: string;
  readonly meaning: string;
  readonly values: Readonly<Record<ProfileName, unknown>>;
}

export interface NotebookParameters {
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  /** The declaration they are in, and its file. */
  readonly declaredIn: string;
  readonly parameters: readonly NotebookParameter[];
}

/** One notebook's declared parameters: the declaration's name and each parameter's name, type and meaning. */
export interface ParametersDeclaration {
  readonly name: string;
  readonly parameters: readonly { readonly name: string; readonly type: string; readonly meaning: string }[];
}

/** Every declaration the registry exports, and 00's. */
export function readDeclarations(): ParametersDeclaration[] {
  const declared = Object.entries(notebooks)
    .filter((e): e is [string, DeclaredParams<never>] => e[1] instanceof DeclaredParams)
    .map(([name, d]) => ({ name, parameters: d.list() }));
  return [...declared, { name: "CompareRunsParams", parameters: CompareRunsParams.list() }];
}

/** The file a notebook's parameters are declared in, relative to the project root: its folder is its slug's words. */
export const declarationFile = (entry: RegisteredExperiment): string =>
  entry.id === "00"
    ? path.join("lib", "compare", "params.ts")
    : path.join("lib", "experiments", entry.slug.slice(3), "params.ts");

/**
 * A notebook's parameters: the declaration whose parameters are exactly its profile's keys
 * (no name to keep in step by hand; two notebooks with the same keys, or none, is an error).
 */
export function notebookParameters(
  entry: RegisteredExperiment,
  declarations: readonly ParametersDeclaration[] = readDeclarations(),
): NotebookParameters {
  const keys = Object.keys(entry.profiles.default).sort().join(",");
  const matches = declarations.filter(
    (d) =>
      d.parameters
        .map((p) => p.name)
        .sort()
        .join(",") === keys,
  );
  if (matches.length !== 1) {
    throw new Error(
      `notebook ${entry.id}: ${matches.length} declared parameter sets have exactly its parameters (${keys}); ` +
        `expected one in lib/experiments/<name>/params.ts, exported by lib/experiments/notebooks.ts`,
    );
  }
  const [declared] = matches;
  const values = (name: string) =>
    Object.fromEntries(
      PROFILES.map((profile) => [profile, (entry.profiles[profile] as Record<string, unknown>)[name]]),
    ) as Record<ProfileName, unknown>;
  return {
    id: entry.id,
    slug: entry.slug,
    title: entry.title,
    declaredIn: `${declared.name} (${declarationFile(entry)})`,
    parameters: declared.parameters.map((p) => ({ ...p, values: values(p.name) })),
  };
}

export function allParameters(declarations = readDeclarations()): NotebookParameters[] {
  return EXPERIMENTS.map((e) => notebookParameters(e, declarations));
}

/** A value as typed after `--set KEY=`: JSON (a string alone stays quoted, as JSON). */
export function valueText(value: unknown): string {
  return value === undefined ? "—" : JSON.stringify(value);
}

/** What `npm run reproduce -- --only NN --help` prints after the usage. */
export function helpText(n: NotebookParameters, width = 100): string {
  const wrap = (text: string, indent: string): string[] => {
    const lines: string[] = [];
    let line = "";
    for (const word of text.split(" ")) {
      if (line && indent.length + line.length + 1 + word.length > width) {
        lines.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) lines.push(indent + line);
    return lines;
  };
  const out = [
    ...wrap(`Parameters of ${n.id} ${n.title}.`, ""),
    ...wrap(
      `Set one with \`--set KEY=VALUE\` (\`npm run reproduce -- --only ${n.id} --set KEY=VALUE\`), ` +
        "or in the notebook's parameters cell through `overrides`. Values per profile: smoke · default · full.",
      "",
    ),
    "",
  ];
  for (const p of n.parameters) {
    out.push(`  ${p.name}: ${p.type}`);
    out.push(...wrap(p.meaning, "      "));
    out.push(...wrap(PROFILES.map((profile) => `${profile} ${valueText(p.values[profile])}`).join(" · "), "      "));
  }
  out.push("", `The same list for every notebook: docs/parameters.md`);
  return out.join("\n");
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => `\`${cell(text)}\``;

/** docs/parameters.md. */
export function parametersMarkdown(all: readonly NotebookParameters[]): string {
  const out = [
    "# Every notebook's parameters",
    "",
    "<!-- Generated by `npm run docs:parameters` from the declarations in lib/experiments/<name>/params.ts (each",
    "     parameter's meaning, type and check) and the profiles' values; a unit test fails when this file differs. -->",
    "",
    "Each notebook's knobs, their type, what they mean and their value on each profile (`smoke`:",
    "seconds, for tests; `default`: the main job, minutes; `full`: the seed's scale). Set one headless",
    "with `npm run reproduce -- --only NN --set KEY=VALUE` (VALUE is JSON if it parses, else a string),",
    "or in a notebook's parameters cell through `overrides`. The same list for one notebook:",
    "`npm run reproduce -- --only NN --help`. A key not listed here is refused before anything starts.",
  ];
  for (const n of all) {
    out.push("", `## ${n.id} ${n.title}`, "", `\`${n.slug}\`; declared in ${n.declaredIn}.`, "");
    out.push("| parameter | type | meaning | smoke | default | full |", "|---|---|---|---|---|---|");
    for (const p of n.parameters) {
      const values = PROFILES.map((profile) => code(valueText(p.values[profile])));
      out.push(`| \`${p.name}\` | ${code(p.type)} | ${cell(p.meaning)} | ${values.join(" | ")} |`);
    }
  }
  return `${out.join("\n")}\n`;
}

export const PARAMETERS_DOC = path.join("docs", "parameters.md");

if (require.main === module) {
  const args = process.argv.slice(2);
  const write = args[0] === "--write";
  if (args.length > 1 || (args.length === 1 && !write)) {
    const help = args[0] === "--help" || args[0] === "-h";
    (help ? process.stdout : process.stderr).write(
      `${help ? "" : `parameters: unknown argument "${args[0]}"\n`}` +
        "Usage: node build/scripts/parameters.js [--write]   (docs/parameters.md on stdout, or written)\n",
    );
    process.exit(help ? 0 : 2);
  }
  const text = parametersMarkdown(allParameters());
  if (write) {
    const file = path.resolve(__dirname, "..", "..", PARAMETERS_DOC);
    fs.writeFileSync(file, text);
    console.log(`wrote ${file}`);
  } else process.stdout.write(text);
}
