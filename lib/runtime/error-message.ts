/**
 * Adds to an error's message after it was made, and to its stack's first line with it (a notebook
 * shows the stack). V8 formats `stack` on first read, with the message as it is then: reading it
 * after the message grew and replacing the old message in it wrote the addition twice (seen in a
 * headless run's error: the resume advice repeated). So the stack is read first.
 */
export function extendMessage(error: Error, addition: string): void {
  const before = error.message;
  const stack = error.stack;
  error.message = before + addition;
  if (stack !== undefined) error.stack = stack.replace(before, error.message);
}
