/**
 * The parts of `ServiceAPI.describe()` and of a generate result that the page reads (a subset;
 * lib/service/describe.ts and spec/generate-response.schema.json give the whole shapes). Types
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
  /** A list option (firstCharacter, lastCharacter): its bounds and what each item is. */
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  items?: { type?: string; enum?: string[] };
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

export interface RulesSpec {
  /** The options a request with passwordRules may not carry. */
  exclusiveWith: string[];
  lengths: { minimum: number; maximum: number; default: number };
}

export interface WordListSpec {
  name: string;
  language: string;
  size: number;
  bitsPerWord: number;
  letterCase: boolean;
  space: string;
}

export interface Description {
  request: { mode: FieldSpec; count: FieldSpec };
  modes: {
    password: {
      options: Record<string, FieldSpec>;
      characterClasses: CharacterClass[];
      ambiguousCharacters: string;
      passwordRules: RulesSpec;
    };
    passphrase: {
      options: Record<string, FieldSpec>;
      separators: Record<string, string>;
      /** Separators drawn per gap: name -> the characters each gap is drawn from. */
      randomSeparators: Record<string, string>;
      /** Every list of options.wordList, by id. */
      wordLists: Record<string, WordListSpec>;
    };
  };
  entropy: { labels: LabelRow[] };
  /** minEntropyBits: the service's floor (0: none). */
  limits: { minEntropyBits: number };
  /** The serving instance's named policies (none: empty). */
  policies: { name: string; mode: string; description: string | null; entropy: Entropy }[];
}

export type Mode = keyof Description['modes'];

export interface Entropy {
  bits: number;
  label: string;
  level: number;
}

/** Mode password's `metadata.constraints` (present when any constraint was given): what a
 * reviewer needs to recompute the count. `maximums`, of the same shape as `minimums`, is read
 * when the API gives it. */
export interface Constraints {
  minimums: Record<string, number>;
  maximums?: Record<string, number>;
  minClasses: number | null;
  firstCharacter: string[] | null;
  lastCharacter: string[] | null;
  maxRepeating: number | null;
  maxSequential: number | null;
}

export interface Metadata {
  entropyMode?: string;
  poolSize?: number;
  length?: number;
  classes?: { name: string; size: number }[];
  constraints?: Constraints;
  /** Mode password with site rules: the rule as read, its alphabet, the unicode note. */
  passwordRules?: string;
  allowedSize?: number;
  unicodeAsAsciiPrintable?: boolean;
  wordCount?: number;
  wordlistSize?: number;
  wordlist?: string;
  wordlistId?: string;
  minLength?: number;
  maxLength?: number;
  separator?: string;
  addNumber?: boolean;
  /** The named policy the credential was made with. */
  policy?: string;
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

/** What the form sends to `ServiceAPI.generate()`: what the user changed, as typed, never
 * corrected (request.ts). */
export interface FormRequest {
  mode: Mode;
  count?: unknown;
  options?: Record<string, unknown>;
  /** A named policy (policies.ts): then no options. */
  policy?: string;
}
