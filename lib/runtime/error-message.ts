/** V8 formats `stack` on first read, so it is read before the message grows, else the addition appears twice. */
export function extendMessage(error: Error, addition: string): void {
  const before = error.message;
  const stack = error.stack;
  error.message = before + addition;
  if (stack !== undefined) error.stack = stack.replace(before, error.message);
}

/** What was thrown, as text: an Error's message, anything else (a string, a rejected value) as String gives it. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
