/** Moved to lib/runtime/docker-client.ts (the reaper needs it and may not import a target); kept for importers. */
export * from "../../runtime/docker-client";
