/**
 * Runs `work` with some environment variables set (undefined: removed), then puts back what was
 * there, whatever happens: the lab reads DOCKER_HOST, HOME, DBLAB_STATE_DIR … from process.env, and
 * a test that leaves one set points every later test in the file at its engine.
 */
export async function withEnv<T>(
  vars: Readonly<Record<string, string | undefined>>,
  work: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  const apply = (values: Readonly<Record<string, string | undefined>>): void => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(vars);
  try {
    return await work();
  } finally {
    apply(saved);
  }
}
