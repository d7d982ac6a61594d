/**
 * The commands' `--flag value` / `--flag=value` parsing: Node's `util.parseArgs` splits the
 * arguments (`=`, `-h`, the `--` terminator), and this file only turns what it found into the
 * commands' own usage errors, which the CLI tests and users read ("--reports-dir needs a value").
 *
 * parseArgs runs non-strict with tokens because its strict errors name the problem in Node's words
 * ("Option '--x <value>' argument missing"), and matching those messages would break with the next
 * Node release; the tokens say the same thing as data.
 */
import { parseArgs } from "node:util";

export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
}

/** One option as given, in order (repeated options stay separate: `--set a=1 --set b=2`). */
export interface GivenOption<N extends string> {
  readonly name: N;
  /** The value of a string option; undefined for a boolean one. */
  readonly value: string | undefined;
}

/** The value of a string option (readArgs gave it one); a boolean option here is a programming error. */
export function valueOf(option: GivenOption<string>): string {
  if (option.value === undefined) throw new Error(`--${option.name} is a flag: it has no value`);
  return option.value;
}

export interface ParsedArgs<N extends string> {
  readonly options: readonly GivenOption<N>[];
  readonly positionals: readonly string[];
}

/**
 * Splits `argv` by `specs`. Throws `usage(message)` for an option not in `specs` (`unknown(arg)`
 * words it, the argument as typed), a string option without a value (the next argument starting
 * with "--" is another option, as the hand-written parsers read it, not a value) and a value given
 * to a boolean option.
 */
export function readArgs<N extends string>(
  argv: readonly string[],
  specs: Readonly<Record<N, OptionSpec>>,
  errors: { readonly usage: (message: string) => Error; readonly unknown: (arg: string) => string },
): ParsedArgs<N> {
  const known = (name: string): name is N => Object.prototype.hasOwnProperty.call(specs, name);
  const { tokens } = parseArgs({
    args: [...argv],
    options: specs as Record<string, OptionSpec>,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options: GivenOption<N>[] = [];
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const name = token.name;
    if (!known(name)) throw errors.usage(errors.unknown(argv[token.index] ?? token.rawName));
    if (specs[name].type === "boolean") {
      if (token.value !== undefined) throw errors.usage(`${token.rawName} takes no value`);
      options.push({ name, value: undefined });
      continue;
    }
    const value = token.value;
    if (value === undefined || value === "" || (!token.inlineValue && value.startsWith("--"))) {
      throw errors.usage(`${token.rawName} needs a value`);
    }
    options.push({ name, value });
  }
  return { options, positionals };
}

/**
 * Bad arguments to a command: it prints the message and a pointer to `--help`, and exits 2 before
 * anything has started (no server, no kernel, no file removed).
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** readArgs with the wording every command shares: `unknown argument "--x"`, as a UsageError. */
export function readCommandArgs<N extends string>(
  argv: readonly string[],
  specs: Readonly<Record<N, OptionSpec>>,
): ParsedArgs<N> {
  return readArgs(argv, specs, {
    usage: (message) => new UsageError(message),
    unknown: (arg) => `unknown argument "${arg}"`,
  });
}

/** No positional arguments: the first one given is refused as unknown. */
export function noPositionals(parsed: ParsedArgs<string>): void {
  const [first] = parsed.positionals;
  if (first !== undefined) throw new UsageError(`unknown argument "${first}"`);
}

/** Whether a boolean option was given. */
export function has<N extends string>(parsed: ParsedArgs<N>, name: N): boolean {
  return parsed.options.some((o) => o.name === name);
}

/** The last value given to a string option, or undefined. */
export function lastValue<N extends string>(parsed: ParsedArgs<N>, name: N): string | undefined {
  const given = parsed.options.filter((o) => o.name === name);
  const last = given[given.length - 1];
  return last === undefined ? undefined : valueOf(last);
}

/**
 * What a command prints for a UsageError; returns the exit status, 2. `helpCommand` is how its help
 * is asked for (default `npm run <command> -- --help`).
 */
export function refuse(command: string, error: UsageError, helpCommand = `npm run ${command} -- --help`): 2 {
  console.error(`${command}: ${error.message}`);
  console.error(`Run \`${helpCommand}\` for usage.`);
  return 2;
}
