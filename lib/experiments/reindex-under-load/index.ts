/** Notebook 04's public API (run, summarise, present). (Being written.) */
export {};
