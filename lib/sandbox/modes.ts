/**
 * The choices of `--sandbox` and `--build-network`, apart so the command line loads no more.
 *
 * @module
 */

/** `--sandbox`: contain builds where possible (`auto`), always (`on`), or never (`off`). */
export type SandboxMode = "auto" | "on" | "off";

/** Whether a contained build reaches the network. */
export type BuildNetwork = "on" | "off";

/** The values `--sandbox` takes, the default first. */
export const SANDBOX_MODES: readonly SandboxMode[] = ["auto", "on", "off"];
/** The values `--build-network` takes, the default first. */
export const BUILD_NETWORKS: readonly BuildNetwork[] = ["on", "off"];
