/** Where the server reports faults and lifecycle lines; the entry point decides (stderr, a file, nothing). */
export interface Logger {
  error(message: string, error?: unknown): void;
  info(message: string): void;
}
