/** Types of remove-node-hook.mjs (a plain ES module, so that it also loads as a preload). */
export function removeNodeHook(name: string): Promise<() => void>;
