/**
 * The choices of `--sandbox` and `--build-network`, apart so the command line loads no more.
 *
 * @module
 */

/** The values `--sandbox` takes, the default first: contain builds where possible, always, never. */
export const SANDBOX_MODES = ["auto", "on", "off"] as const;
/** The values `--build-network` takes, the default first: whether a contained build reaches the network. */
export const BUILD_NETWORKS = ["on", "off"] as const;

/** A value of `--sandbox`. */
export type SandboxMode = (typeof SANDBOX_MODES)[number];
/** A value of `--build-network`. */
export type BuildNetwork = (typeof BUILD_NETWORKS)[number];
