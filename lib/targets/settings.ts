/** Server settings from parameters, checked before they reach a command line. */
import type { ServerSettings } from "./types";

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/i;

export function checkSettingName(name: string): void {
  if (!SETTING_NAME.test(name)) {
    throw new Error(`"${name}" is not a valid server setting name (letters, digits, "_" and "." only)`);
  }
}

/** PostgreSQL `-c name=value` arguments. */
export function settingsToArgs(settings: ServerSettings | undefined): string[] {
  const args: string[] = [];
  for (const [name, value] of Object.entries(settings ?? {})) {
    checkSettingName(name);
    args.push("-c", `${name}=${typeof value === "boolean" ? (value ? "on" : "off") : String(value)}`);
  }
  return args;
}
