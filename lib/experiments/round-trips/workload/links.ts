/** A delay link with its calibrations: per round-trip target, the one-way delay that reaches it here, cached. */
import { withClient } from "../../../engines/postgres/connect";
import { calibrateLink, measureRtt, medianRtt, reachTolerance, type LinkCalibration } from "../../../network/calibrate";
import type { DelayLink, LinkKind } from "../../../network/types";
import type { ConnectionInfo } from "../../../targets/types";
import { selectOneProbe } from "../../../workloads/statement-timing";

/** What a standby link's calibrations stand for (its records' `purpose`). */
export const STANDBY_PURPOSE = "primary ↔ standby";

export interface CalibrationRecord extends LinkCalibration {
  readonly link: string;
  readonly kind: LinkKind;
  readonly purpose: string;
}

/** The direct SELECT 1 round trip (median, ms), after a warm-up that lets a fresh server settle. */
export function measureBaseline(connection: ConnectionInfo, samples: number, warmup = 200): Promise<number> {
  return withClient(connection, (c) => medianRtt(selectOneProbe(c), samples, warmup));
}

export class CalibratedLink {
  private readonly cache = new Map<number, LinkCalibration>();
  readonly records: CalibrationRecord[] = [];
  /** The fastest round trips seen, direct and through the link at 0 ms: load never raises them. */
  private baselineFloorMs = Infinity;
  private linkFloorMs = Infinity;

  constructor(
    readonly link: DelayLink,
    readonly server: ConnectionInfo,
    private readonly samples: number,
  ) {}

  get viaLink(): ConnectionInfo {
    return { ...this.server, host: this.link.host, port: this.link.port };
  }

  /** Finds (or recalls) the setting for `targetMs`; `viaLinkOnly` (a standby): below loopback, the link at 0 ms. */
  async calibrate(targetMs: number, purpose: string, viaLinkOnly = false): Promise<LinkCalibration> {
    const known = this.cache.get(targetMs);
    if (known) {
      await this.apply(known);
      // Load only slows a round trip, so it never calls for less delay; a round trip now faster than the target
      // calls for a new calibration: the floor was read too high, also where that left the link at 0 ms added.
      const now = await withClient(this.connectionFor(known), (c) =>
        measureRtt(selectOneProbe(c), Math.ceil(this.samples / 3)),
      );
      // The block that follows runs at what the path gives now, not under the first calibration's load.
      if (now.floorMs >= targetMs - reachTolerance(targetMs))
        return { ...known, achievedRttMs: now.medianMs, achievedFloorMs: now.floorMs };
      this.cache.delete(targetMs);
    }
    // Direct round trip measured right before, link at 0: netem delays direct connections too.
    await this.link.setOneWayDelay(0);
    const direct = await withClient(this.server, (c) => measureRtt(selectOneProbe(c), this.samples, 50));
    this.baselineFloorMs = Math.min(this.baselineFloorMs, direct.floorMs);
    const baselineRttMs = direct.medianMs;
    let cal = await withClient(this.viaLink, (c) =>
      calibrateLink(this.link, selectOneProbe(c), {
        targetRttMs: targetMs,
        baselineRttMs,
        baselineFloorMs: this.baselineFloorMs,
        linkFloorMs: this.linkFloorMs,
        samples: this.samples,
      }),
    );
    this.linkFloorMs = Math.min(this.linkFloorMs, cal.linkZeroFloorMs);
    if (viaLinkOnly && cal.mode === "direct") {
      cal = {
        ...cal,
        mode: "link-at-zero",
        achievedRttMs: cal.linkZeroRttMs,
        achievedFloorMs: cal.steps[0].floorMs,
        note: `${cal.note}; this link's peer connects only through it, so it runs at 0 ms added (${cal.linkZeroRttMs.toFixed(3)} ms)`,
      };
    }
    if (
      this.link.kind === "netem" &&
      cal.mode === "delayed" &&
      cal.achievedRttMs - baselineRttMs < 0.5 * (targetMs - baselineRttMs)
    ) {
      throw new Error(
        `netem did not delay the ${this.link.name} link (asked ${targetMs} ms, reached ${cal.achievedRttMs.toFixed(3)} ms): ` +
          `its packets probably do not cross lo here (e.g. Docker's port forwarding). Run with network: "proxy".`,
      );
    }
    this.cache.set(targetMs, cal);
    this.records.push({ ...cal, link: this.link.name, kind: this.link.kind, purpose });
    await this.apply(cal);
    return cal;
  }

  async apply(cal: LinkCalibration): Promise<void> {
    await this.link.setOneWayDelay(cal.mode === "delayed" ? cal.oneWayDelayMs : 0);
  }

  connectionFor(cal: LinkCalibration): ConnectionInfo {
    return cal.mode === "direct" ? this.server : this.viaLink;
  }
}
