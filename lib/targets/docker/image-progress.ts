/**
 * Progress events of image pulls and builds (its own module, so images.ts and standin-image.ts need not import each
 * other).
 */
export interface ImageProgress {
  readonly phase: "pull" | "build";
  readonly image: string;
  /** e.g. "Downloading" or a build step. */
  readonly message: string;
  /** Layer id while pulling. */
  readonly layer?: string;
  /** Bytes done and expected, when Docker reports them. */
  readonly current?: number;
  readonly total?: number;
}

export type ImageProgressCallback = (event: ImageProgress) => void;
