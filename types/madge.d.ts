// madge ships no types; only the part scripts/check-cycles.ts uses.
declare module 'madge' {
  interface MadgeResult {
    circular(): string[][];
    obj(): Record<string, string[]>;
  }
  export default function madge(paths: string[], config?: Record<string, unknown>): Promise<MadgeResult>;
}
