// Types for build/build.mjs (plain JavaScript so it runs before anything is compiled).
export interface BuildOptions {
  /** The repository root (holds the sources and node_modules/). */
  root?: string;
  /** Where the build goes: out/main for the runtime, out/renderer for the UI. */
  outDir?: string;
  log?: (message: string) => void;
}
export const ROOT: string;
export const RUNTIME_ENTRIES: Record<string, string>;
export function runtimeIsStale(root?: string, outDir?: string): boolean;
export function rendererIsStale(root?: string, outDir?: string): boolean;
export function ensureRuntimeBuilt(options?: BuildOptions): Promise<string>;
export function ensureRendererBuilt(options?: BuildOptions): Promise<string>;
export function ensureBuilt(options?: { root?: string; ui?: boolean; log?: (message: string) => void }): Promise<void>;
