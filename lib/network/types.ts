/**
 * An emulated network link between a client and a server on this machine: bytes in each
 * direction take an extra one-way delay. Made by a user-space delay proxy or by Linux netem.
 */

export type LinkKind = "proxy" | "netem";

export interface DelayLink {
  readonly kind: LinkKind;
  readonly name: string;
  /** Where a client connects to go through the link. */
  readonly host: string;
  readonly port: number;
  /** The one-way delay now added in each direction, ms (what was asked for, before calibration). */
  readonly oneWayDelayMs: number;
  setOneWayDelay(ms: number): Promise<void>;
  /** What the link itself measured about its deliveries, when it can (the proxy can; netem not). */
  stats(reset?: boolean): Promise<LinkStats | undefined>;
  close(): Promise<void>;
}

export interface LinkStats {
  /** Chunks delivered, and how late against their due time, µs. */
  readonly delivered: number;
  readonly lateP50Us: number;
  readonly lateP90Us: number;
  readonly lateP99Us: number;
  readonly lateMaxUs: number;
  /** The precise sleeper's current lateness estimate and the CPU it spent spinning. */
  readonly sleepLateUs: number;
  readonly spinMs: number;
}
