/**
 * Reads every notebook's parameters from their declarations: the `…Params` interfaces of
 * lib/experiments/<name>/params.ts and lib/compare/params.ts, each member's type (aliases spelled out: `"auto" |
 * "embedded" | …`) and its doc comment, the one place a parameter's meaning is written. Run by
 * scripts/build-assets.ts into build/assets/parameters.json, which `npm run reproduce -- --help`
 * and docs/parameters.md read (scripts/parameters.ts).
 *
 * The type checker is needed to spell out the aliases, and a program over these files takes 5 s
 * here (372 files with their imports): scripts/build-assets.ts loads this module (and typescript,
 * 0.7 s) only when a file the last program read has changed, or a params file was added.
 */
import path from "node:path";
import ts from "typescript";
import { parameterSources, type ParametersInterface } from "./parameters-asset";

function typeText(checker: ts.TypeChecker, type: ts.Type): string {
  if (type.flags & ts.TypeFlags.Boolean) return "boolean";
  if (type.isUnion()) {
    const parts = type.types.map((t) => typeText(checker, t));
    // boolean is true | false inside a wider union: say boolean once.
    const hasTrue = parts.includes("true") && parts.includes("false");
    const merged = hasTrue ? [...parts.filter((p) => p !== "true" && p !== "false"), "boolean"] : parts;
    return merged.join(" | ");
  }
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    const inner = element ? typeText(checker, element) : "unknown";
    return inner.includes(" | ") ? `(${inner})[]` : `${inner}[]`;
  }
  // An object of the lab's own (05's hosts): its members, since its name alone says nothing on --help.
  const declaration = type.getSymbol()?.declarations?.[0];
  if (type.flags & ts.TypeFlags.Object && declaration && !declaration.getSourceFile().isDeclarationFile) {
    const members = checker.getPropertiesOfType(type).map((p) => {
      const optional = p.flags & ts.SymbolFlags.Optional ? "?" : "";
      const memberType = checker.getNonNullableType(checker.getTypeOfSymbol(p));
      return `${p.name}${optional}: ${typeText(checker, memberType)}`;
    });
    return `{ ${members.join("; ")} }`;
  }
  return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
}

export function extractParameters(sourceRoot: string): { interfaces: ParametersInterface[]; inputs: string[] } {
  const files = parameterSources(sourceRoot);
  const program = ts.createProgram(files, {
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
    lib: ["lib.es2022.d.ts"],
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    resolveJsonModule: true,
  });
  const checker = program.getTypeChecker();
  const interfaces: ParametersInterface[] = [];
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    ts.forEachChild(sf, (node) => {
      if (!ts.isInterfaceDeclaration(node) || !/Params$/.test(node.name.text)) return;
      const exported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (!exported) return;
      // Its own members and those it extends (the base's target and server limits), each with its doc comment.
      // Inherited first: the target leads every table, as it did when each notebook declared it.
      const all = checker.getPropertiesOfType(checker.getTypeAtLocation(node));
      const own = (s: ts.Symbol) => s.valueDeclaration?.parent === node;
      // The checker lists own members before the base's: reversed by declaring interface, the root's lead.
      const parents = [...new Set(all.filter((s) => !own(s)).map((s) => s.valueDeclaration?.parent))].reverse();
      const inherited = parents.flatMap((p) => all.filter((s) => s.valueDeclaration?.parent === p));
      const parameters = [...inherited, ...all.filter(own)].map((symbol) => {
        const meaning = ts.displayPartsToString(symbol.getDocumentationComment(checker)).replace(/\s+/g, " ").trim();
        const declaration = symbol.valueDeclaration;
        const type = declaration ? checker.getTypeAtLocation(declaration) : checker.getTypeOfSymbol(symbol);
        return { name: symbol.name, type: typeText(checker, type), meaning };
      });
      interfaces.push({ interface: node.name.text, file: path.relative(sourceRoot, file), parameters });
    });
  }
  const inputs = program
    .getSourceFiles()
    .map((s) => s.fileName)
    .filter((f) => !f.includes(`${path.sep}node_modules${path.sep}`) && !/\/node_modules\//.test(f));
  return { interfaces, inputs };
}
