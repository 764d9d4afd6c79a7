/**
 * The parts of `ServiceAPI.describe()` and of a generate result that the page reads (a subset;
 * lib/core/describe.ts and spec/generate-response.schema.json give the whole shapes). Types
 * only: nothing here reaches the bundle.
 * @module
 */

export interface FieldSpec {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  enum?: string[];
  description?: string;
}

export interface CharacterClass {
  name: string;
  option: string;
  characters: string;
  size: number;
}

export interface LabelRow {
  level: number;
  label: string;
  minBits: number;
  maxBits: number | null;
}

export interface Description {
  request: { mode: FieldSpec; count: FieldSpec };
  modes: {
    password: { options: Record<string, FieldSpec>; characterClasses: CharacterClass[]; ambiguousCharacters: string };
    passphrase: {
      options: Record<string, FieldSpec>;
      separators: Record<string, string>;
      wordlist: { name: string; size: number; bitsPerWord: number };
    };
  };
  entropy: { labels: LabelRow[] };
}

export type Mode = keyof Description['modes'];

export interface Entropy {
  bits: number;
  label: string;
  level: number;
}

export interface Metadata {
  poolSize?: number;
  length?: number;
  classes?: { name: string; size: number }[];
  wordCount?: number;
  wordlistSize?: number;
  wordlist?: string;
  addNumber?: boolean;
}

export interface Credential {
  value: string;
  entropy: Entropy;
  metadata: Metadata;
}

/** The body of a 200, as the page reads it. */
export interface Generated {
  mode: string;
  count: number;
  entropy: Entropy;
  metadata: Metadata;
  results: Credential[];
}

/** What the form sends to `ServiceAPI.generate()`: values as typed, never corrected. */
export interface FormRequest {
  mode: Mode;
  count: unknown;
  options: Record<string, unknown>;
}
