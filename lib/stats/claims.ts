/** A seed's claim checked against this run: the verdict and the numbers that decided it. */

export type Verdict = "held" | "did not hold" | "inconclusive";

export interface ClaimCheck {
  readonly id: string;
  readonly claim: string;
  /** The seed's own numbers, as text. */
  readonly seed: string;
  /** Ours, as text. */
  readonly ours: string;
  readonly verdict: Verdict;
  /** Why, from the server-side counters where they explain it. */
  readonly why: string;
}

export function claimRows(claims: readonly ClaimCheck[]): Record<string, string>[] {
  return claims.map((c) => ({ claim: `${c.id}. ${c.claim}`, seed: c.seed, "this run": c.ours, verdict: c.verdict, why: c.why }));
}
