"use strict";
// danfo reads CSV/JSON from URLs through `request`; the lab only reads local files.
function disabled() {
  throw new Error("Reading data from URLs through danfo is disabled in DB Write Lab (deprecated `request` package removed). Download the file and read it locally.");
}
module.exports = disabled;
module.exports.get = disabled;
module.exports.default = disabled;
