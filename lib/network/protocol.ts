/** Messages between the lab and a delay-proxy child process (IPC, JSON). */
import type { SchedulerStats } from "./delay-lines";

export interface ProxyStartRequest {
  readonly type: "start";
  readonly listenHost: string;
  readonly targetHost: string;
  readonly targetPort: number;
  readonly upMs: number;
  readonly downMs: number;
  readonly blockWindowUs: number;
  /** Scheduling priority to ask for (nice value); refused quietly where not allowed. */
  readonly niceness: number;
}

export type ProxyRequest =
  | ProxyStartRequest
  | { readonly type: "set-delay"; readonly upMs: number; readonly downMs: number }
  | { readonly type: "stats"; readonly reset?: boolean }
  | { readonly type: "stop" };

export interface ProxyStats extends SchedulerStats {
  readonly connections: number;
  readonly upMs: number;
  readonly downMs: number;
}

export type ProxyReply =
  | {
      readonly type: "listening";
      readonly port: number;
      readonly waitLateUs: number;
      readonly niceness: number | null;
      readonly timerSlackNs: number | null;
    }
  | { readonly type: "ok" }
  | { readonly type: "stats"; readonly stats: ProxyStats }
  | { readonly type: "error"; readonly message: string };

export interface Envelope<T> {
  readonly id: number;
  readonly body: T;
}
