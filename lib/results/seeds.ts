/**
 * The five published articles the notebooks reproduce, keyed by their file id in the seeds folder.
 * Only what each seed's own text says is cited; what it does not name is said to be not named
 * (test/unit/seeds.test.ts checks the README, notebooks and seed texts agree).
 */

/** Said of a field the seed's text does not give. */
export const NOT_NAMED = "not named in the seed";

export interface SeedCitation {
  readonly file: string;
  readonly notebook: string;
  /** As the text gives it (in its language), or NOT_NAMED. */
  readonly title: string;
  readonly author: string;
  readonly publication: string;
  readonly year: string;
  readonly url: string;
  /** The code behind it, where the text (or the lab's notes on the seeds) names a repository. */
  readonly code?: string;
  /** What else the text says about where it comes from. */
  readonly note?: string;
}

export const SEEDS: readonly SeedCitation[] = [
  {
    file: "000_6b2b070f90f5f7f5.txt",
    notebook: "01",
    title: "【データベース】インデックスを増やすと書き込みはどれだけ遅くなるのか（MongoDB／PostgreSQLで検証）",
    author: NOT_NAMED,
    publication: NOT_NAMED,
    year: NOT_NAMED,
    url: NOT_NAMED,
    code: "https://github.com/taako-502/db-index-write-benchmark",
    note: "Japanese; the benchmark's Go code is in the repository its text links",
  },
  {
    file: "001_e0937b2429842988.txt",
    notebook: "02",
    title: "CREATE INDEX はなぜ速いのか(PostgreSQLで確認)",
    author: NOT_NAMED,
    publication: NOT_NAMED,
    year: "2023 or earlier (the text has an addendum dated 2023/04/04)",
    url: NOT_NAMED,
    note: "Japanese",
  },
  {
    file: "002_176237938a31fc9c.txt",
    notebook: "03",
    title: `${NOT_NAMED} (a Chinese translation without its title; the original's address reads "benchmarking-postgresql-the-hidden-cost-of-over-indexing")`,
    author: "Pablo Svampa (the original's author, 原文作者; the translator is not named)",
    publication: "Percona's blog (the original, by its address; the translation's is not named)",
    year: NOT_NAMED,
    url: "https://www.percona.com/blog/benchmarking-postgresql-the-hidden-cost-of-over-indexing/",
    code: "https://github.com/psvampa/postgresql_benchmarking_overindexing",
  },
  {
    file: "003_5f007f3d6d8e6471.txt",
    notebook: "04",
    title: `${NOT_NAMED} (the text starts at its introduction)`,
    author: NOT_NAMED,
    publication: NOT_NAMED,
    year: NOT_NAMED,
    url: NOT_NAMED,
    note: "Japanese; PostgreSQL 17.6 on an OCI compute instance",
  },
  {
    file: "004_2e58e5ca6b4539c9.txt",
    notebook: "05",
    title: `${NOT_NAMED}; it calls itself the sequel of "PostgreSQL: Update 時、トランザクション有無や ORM 利用でどれくらい性能差が出るかを検証する"`,
    author: NOT_NAMED,
    publication: NOT_NAMED,
    year: NOT_NAMED,
    url: NOT_NAMED,
    // The text links "a GitHub repository" without its name; the lab's notes (EXPERIMENTS.md) name it.
    code: "https://github.com/yy-at-here/psql_update (named in the lab's notes on the seeds, not in the text)",
    note: "Japanese; local Docker against Aurora PostgreSQL 17.6 in one AZ and across AZs",
  },
];

export function seedCitation(file: string): SeedCitation {
  const seed = SEEDS.find((s) => s.file === file);
  if (!seed) throw new Error(`no citation for seed file ${file} (lib/results/seeds.ts)`);
  return seed;
}

/** One line: title; author; publication; year; address (and code). */
export function citationText(seed: SeedCitation): string {
  const parts = [
    `title: ${seed.title}`,
    `author: ${seed.author}`,
    `publication: ${seed.publication}`,
    `year: ${seed.year}`,
    `URL: ${seed.url}`,
  ];
  if (seed.code) parts.push(`code: ${seed.code}`);
  return `seed ${seed.file.slice(0, 3)} (${seed.file}) — ${parts.join("; ")}`;
}
