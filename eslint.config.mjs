// ESLint (flat config) with type information. `npm run lint` runs it and `prettier --check`.
// Style is Prettier's (.prettierrc.json); these rules are about correctness and the layers.
import fs from "node:fs";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import importX from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

/**
 * The layers (docs/architecture.md; lib/targets/types.ts): imports only go down. Each zone names a
 * directory and what it may NOT import. Sideways helpers: lib/runtime (processes, containers,
 * cleanup, debug log) and lib/params/validate.ts (ParameterError) are below everything;
 * lib/stats and lib/jupyter import nothing else in lib.
 *
 *   runtime, params/validate  ←  stats, jupyter, network  ←  targets  ←  engines, results
 *     ←  display, workloads  ←  params  ←  compare  ←  experiments  ←  lib/index.ts  ←  scripts, bench
 * (compare reads stored runs: results, stats, display and params, nothing that runs a server.)
 *
 * Inside experiments, one folder per notebook (its params, its `workload/`, claims, summary,
 * presentation, ETA model) above the shared files beside them (session, contract, eta, …). A
 * notebook's folder imports no other notebook's; the shared files import no notebook's (the registry
 * alone lists them); a `workload/` part runs servers and imports neither display nor compare nor
 * the rest of its notebook but its params. registry.ts and notebooks.ts list the notebooks.
 */
const layer = (dir) => `./lib/${dir}`;
const ABOVE_RUNTIME = [
  "targets",
  "engines",
  "workloads",
  "experiments",
  "display",
  "results",
  "stats",
  "params",
  "network",
  "jupyter",
  "compare",
].map(layer);
const EXPERIMENTS = "./lib/experiments";
const features = fs
  .readdirSync(EXPERIMENTS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => `${EXPERIMENTS}/${e.name}`);
const sharedExperimentFiles = fs
  .readdirSync(EXPERIMENTS)
  .filter((f) => f.endsWith(".ts") && f !== "registry.ts" && f !== "notebooks.ts")
  .map((f) => `${EXPERIMENTS}/${f}`);
const featureZones = features.flatMap((folder) => [
  { target: folder, from: features.filter((other) => other !== folder) },
  { target: `${folder}/workload`, from: ["display", "compare"].map(layer) },
  { target: `${folder}/workload`, from: sharedExperimentFiles },
  { target: `${folder}/workload`, from: folder, except: ["./params.ts", "./workload"] },
]);
const zones = [
  ...featureZones,
  ...sharedExperimentFiles.map((file) => ({ target: file, from: features })),
  { target: layer("runtime"), from: ABOVE_RUNTIME },
  { target: "./lib/params/validate.ts", from: ABOVE_RUNTIME.filter((d) => d !== layer("params")) },
  { target: layer("stats"), from: ABOVE_RUNTIME.filter((d) => d !== layer("stats")) },
  { target: layer("jupyter"), from: ABOVE_RUNTIME.filter((d) => d !== layer("jupyter")) },
  { target: layer("network"), from: ABOVE_RUNTIME.filter((d) => d !== layer("network")) },
  {
    target: layer("targets"),
    from: ["engines", "workloads", "experiments", "display", "results", "network", "compare"].map(layer),
  },
  { target: layer("targets"), from: layer("params"), except: ["./validate.ts"] },
  {
    target: layer("engines"),
    from: ["workloads", "experiments", "display", "results", "params", "network", "compare"].map(layer),
  },
  {
    target: layer("results"),
    from: ["engines", "workloads", "experiments", "display", "params", "network", "compare"].map(layer),
  },
  {
    target: layer("display"),
    from: ["engines", "workloads", "experiments", "params", "network", "targets", "compare"].map(layer),
  },
  { target: layer("workloads"), from: ["experiments", "display", "compare"].map(layer) },
  { target: layer("workloads"), from: layer("params"), except: ["./validate.ts"] },
  { target: layer("params"), from: ["experiments", "display", "results", "engines", "compare"].map(layer) },
  { target: layer("compare"), from: ["experiments", "workloads", "engines", "targets", "network"].map(layer) },
  { target: layer("experiments"), from: ["./lib/index.ts"] },
  { target: "./lib", from: ["./scripts", "./bench", "./test"] },
];

export default tseslint.config(
  {
    ignores: [
      "build/**",
      "build-fast/**",
      "node_modules/**",
      "assets/**",
      "vendor/**",
      "data/**",
      "reports/**",
      "notebooks/**",
    ],
  },
  // typescript-eslint's recommended rules, with type information, for TypeScript sources.
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ["**/*.ts"] })),
  {
    files: ["**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin, "import-x": importX },
    settings: {
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      // Prettier wraps code at 120 but never breaks a string: a message or SQL kept whole stays greppable,
      // so strings and template literals may run past it; code and comments may not.
      "max-len": [
        "error",
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true },
      ],
      // `t.seconds!`: a type that can say it (a union, a narrowed variable) says it instead.
      "@typescript-eslint/no-non-null-assertion": "error",
      // An un-awaited promise loses its error and its ordering (a cleanup that runs after exit).
      "@typescript-eslint/no-floating-promises": [
        "error",
        // node:test's test()/describe() return promises the runner itself awaits.
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "it", "describe", "suite"] },
          ],
        },
      ],
      "@typescript-eslint/no-explicit-any": "error",
      // As tsc's noUnusedParameters: a leading underscore marks a parameter an interface makes a
      // function take without using it (a fake's `_options`, a present function's `_run`).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
      // An async function without await is how a Promise-returning interface method rejects instead
      // of throwing synchronously (restart() of a server that cannot restart, test fakes); the rules
      // that catch a lost promise (no-floating-promises, no-misused-promises) stay on.
      "@typescript-eslint/require-await": "off",
      // tslab must be required lazily and from the project (the kernel's own instance, and only in
      // a kernel): lib/display/output.ts and lib/jupyter/kernel-preload.ts.
      "@typescript-eslint/no-require-imports": ["error", { allow: ["^tslab(/|$)", "^@tslab/"] }],
      "import-x/no-restricted-paths": ["error", { zones }],
    },
  },
  {
    // Tests may assert what they have just checked; the rule's point is the library's types.
    files: ["test/**/*.ts", "lib/**/*.test.ts"],
    rules: { "@typescript-eslint/no-non-null-assertion": "off" },
  },
  {
    // A notebook's unit files sit beside its code and share test/support with the other tests; the layers hold.
    files: ["lib/**/*.test.ts"],
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        { zones: zones.map((z) => (z.target === "./lib" ? { ...z, from: ["./scripts", "./bench"] } : z)) },
      ],
    },
  },
);
