/** Notebook 05's public API (run, summarise, present). (Being written.) */
export {};
