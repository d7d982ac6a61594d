/** Notebook 02's public API (run, summarise, present). (Being written.) */
export {};
