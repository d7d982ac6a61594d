// test-tier: shared — embedded servers, kernels and runs of its own, signalled by pid
/**
 * The fault matrix's cells on the embedded target (test/support/fault-matrix.ts says what every cell
 * asserts), one after the other: the file runs beside another, and a kill -9 or SIGSTOP reaches only
 * the processes of its own run, found from its own state folder.
 */
import { faultMatrix } from "../support/fault-matrix";

faultMatrix(["embedded"], false);
