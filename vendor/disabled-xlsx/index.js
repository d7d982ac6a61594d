"use strict";
// Any use of Excel I/O through danfo ends here with a clear message (see vendor/README.md).
function disabled() {
  throw new Error("Excel I/O is disabled in DB Write Lab: the npm release of xlsx has unfixed advisories. Export CSV instead.");
}
module.exports = { read: disabled, readFile: disabled, write: disabled, writeFile: disabled, utils: new Proxy({}, { get: () => disabled }) };
