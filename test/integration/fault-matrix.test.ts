// test-tier: host — the local Docker daemon, the remote-engine namespace (dockerd, sshd, iptables), iptables on lo
/**
 * The fault matrix's cells on a Docker engine (local, or remote over ssh://) and on an external
 * server reached by URI (test/support/fault-matrix.ts says what every cell asserts). The namespace's
 * cells run beside the others: two runs at a time.
 */
import { faultMatrix } from "../support/fault-matrix";

faultMatrix(["docker", "ssh", "external"], true);
