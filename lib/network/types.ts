/** An emulated network link on this machine: an extra one-way delay each way, by a delay proxy or netem. */

export type LinkKind = "proxy" | "netem";

export interface DelayLink {
  readonly kind: LinkKind;
  readonly name: string;
  /** Where a client connects to go through the link. */
  readonly host: string;
  readonly port: number;
  /** The one-way delay asked for in each direction, ms. */
  readonly oneWayDelayMs: number;
  setOneWayDelay(ms: number): Promise<void>;
  /** What the link measured about its deliveries (the proxy can; netem not). */
  stats(reset?: boolean): Promise<LinkStats | undefined>;
  close(): Promise<void>;
}

export interface LinkStats {
  /** Chunks delivered, and how late, µs. */
  readonly delivered: number;
  readonly lateP50Us: number;
  readonly lateP90Us: number;
  readonly lateP99Us: number;
  readonly lateMaxUs: number;
  /** The sleeper's lateness estimate and the CPU spent spinning. */
  readonly sleepLateUs: number;
  readonly spinMs: number;
}
