/** Notebook 03's public API (run, summarise, present). (Being written.) */
export {};
