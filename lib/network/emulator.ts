/**
 * Chooses netem where the kernel has it, else the delay proxy; both give a `DelayLink`, differing only in where a
 * client connects.
 */
import { DelayProxy } from "./delay-proxy";
import { detectNetem, NetemController } from "./netem";
import type { DelayLink, LinkKind } from "./types";
import { ignored } from "../runtime/debug";

export type NetworkChoice = "auto" | LinkKind;
export const NETWORK_CHOICES: readonly NetworkChoice[] = ["auto", "netem", "proxy"];

export interface LinkRequest {
  readonly name: string;
  readonly serverHost: string;
  readonly serverPort: number;
  /** netem only: the loopback address that identifies this link (default 127.0.0.1). */
  readonly address?: string;
}

export interface NetworkEmulator {
  readonly kind: LinkKind;
  /** Why this kind, for the report. */
  readonly reason: string;
  createLink(request: LinkRequest): Promise<DelayLink>;
  close(): Promise<void>;
}

class ProxyEmulator implements NetworkEmulator {
  readonly kind = "proxy" as const;
  private readonly links: DelayLink[] = [];
  constructor(readonly reason: string) {}
  async createLink(r: LinkRequest): Promise<DelayLink> {
    const link = await DelayProxy.start({ name: r.name, targetHost: r.serverHost, targetPort: r.serverPort });
    this.links.push(link);
    return link;
  }
  async close(): Promise<void> {
    for (const link of this.links.splice(0)) await link.close().catch(ignored("network: close a delay link"));
  }
}

const isLoopback = (host: string): boolean => host === "localhost" || host.startsWith("127.") || host === "::1";

class NetemEmulator implements NetworkEmulator {
  readonly kind = "netem" as const;
  /** Links to servers off the loopback device (a Docker bridge), which netem here does not shape. */
  private readonly offLoopback = new ProxyEmulator("the server is not on the loopback device that netem shapes");
  constructor(
    readonly reason: string,
    private readonly controller: NetemController,
  ) {}
  async createLink(r: LinkRequest): Promise<DelayLink> {
    if (!r.address && !isLoopback(r.serverHost)) return this.offLoopback.createLink(r);
    return this.controller.createLink(r.name, r.address ?? "127.0.0.1", r.serverPort);
  }
  async close(): Promise<void> {
    await this.offLoopback.close();
    await this.controller.close();
  }
}

export async function createEmulator(choice: NetworkChoice = "auto"): Promise<NetworkEmulator> {
  if (choice === "proxy") return new ProxyEmulator("asked for the user-space delay proxy");
  const netem = detectNetem();
  if (!netem.available) {
    if (choice === "netem") throw new Error(`network "netem" was asked for, but ${netem.reason}`);
    return new ProxyEmulator(`user-space delay proxy, because ${netem.reason}`);
  }
  return new NetemEmulator(netem.reason, await NetemController.open());
}
