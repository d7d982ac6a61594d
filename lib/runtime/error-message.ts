/**
 * Adds to an error's message and its stack's first line (a notebook shows the stack). V8 formats
 * `stack` on first read, so it is read before the message grows, else the addition appears twice.
 */
export function extendMessage(error: Error, addition: string): void {
  const before = error.message;
  const stack = error.stack;
  error.message = before + addition;
  if (stack !== undefined) error.stack = stack.replace(before, error.message);
}
