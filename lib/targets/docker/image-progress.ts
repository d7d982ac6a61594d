/**
 * Progress events of image pulls and builds. A module of its own so that images.ts (which calls
 * the stand-in build) and standin-image.ts (which reports build progress) need not import each other.
 */
export interface ImageProgress {
  readonly phase: "pull" | "build";
  readonly image: string;
  /** Docker's status line, e.g. "Downloading" or a build step. */
  readonly message: string;
  /** Layer id while pulling. */
  readonly layer?: string;
  /** Bytes done and expected for that layer, when Docker reports them. */
  readonly current?: number;
  readonly total?: number;
}

export type ImageProgressCallback = (event: ImageProgress) => void;
