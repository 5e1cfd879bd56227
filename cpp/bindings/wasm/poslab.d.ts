// Types for dist/poslab.js (and dist/poslab-web.js, the same API with the wasm
// in dist/poslab.wasm), the Position Lab core compiled to WebAssembly.
// Hand-written (Emscripten 3.1.6 has no .d.ts emitter): keep in step with
// cpp/bindings/wasm/bindings.cpp.
//
//   const lab = await createPositionLab();
//   const r = lab.forward({ text: '犬が猫を追いかけた', pe: 'sinusoidal' });
//   r.output.shape // [6, 8]
//
// Every function throws a PositionLabError (a JS Error) whose message is the
// core's: it says what was wrong and what is allowed. Unknown option names,
// wrong types and fractions where whole numbers are needed are errors too.

/** A dense row-major matrix copied out of wasm memory (safe to keep). */
export interface Matrix {
  shape: number[];
  data: Float32Array;
}

/** What every function throws: message in English, code and params for translations. */
export interface PositionLabError extends Error {
  name: 'PositionLabError';
  /**
   * Stable identifier, e.g. 'position_past_table', 'odd_width', 'empty_text', 'unknown_option'.
   * 'invalid_text': a string anywhere in the argument (a value or a key) holds a lone
   * UTF-16 surrogate, which has no UTF-8 form; params {path, position (UTF-16 index),
   * character (1-based code point number), codeUnit ('U+D800')}. Checked before the core runs.
   * 'too_large': a request past the lab's memory or a grading limit (nesting over 32, …).
   */
  code: string;
  /** The values involved, as strings (e.g. {position: '1024', max_positions: '1024'}). */
  params: Record<string, string>;
}

export type PositionScheme = 'none' | 'sinusoidal' | 'learned' | 'rope' | 'alibi';
export type WeightsKind = 'identity' | 'random';
export type Combine = 'add' | 'concat';

export interface ForwardOptions {
  // The input: exactly one of text, tokens, vectors.
  /** The sentence, tokenized by the core as `tokenize` does (at most 4096 tokens). */
  text?: string;
  /** Tokens already split (e.g. chips the student reordered); each a non-empty string. */
  tokens?: string[];
  /** S rows of D finite numbers (or a Matrix), used instead of token embeddings. */
  vectors?: number[][] | Matrix;
  /** Default 'none'. */
  pe?: PositionScheme;
  /** Exclude j > i. Default false. */
  causal?: boolean;
  /** Token embedding width D (ignored with `vectors`). Default 8; 1…4096. */
  dModel?: number;
  /** Heads H; must divide the width attention sees. Default 1. */
  heads?: number;
  /** Default 'random'. 'identity' is the seed's hand calculation (no output projection). */
  weights?: WeightsKind;
  /** Seed of embeddings, learned table and random weights. Default 0; 0…2^32-1. */
  seed?: number;
  /** Rows of the learned table. Default 1024 (GPT-2). */
  maxPositions?: number;
  /** Base of sinusoidal and RoPE frequencies. Default 10000. */
  base?: number;
  /** For sinusoidal and learned: add (default) or concat (width D + D). */
  combine?: Combine;
  /** Position of the first token. Default 0. */
  positionOffset?: number;
  /** Return the [H, S, S] weights. Default true; false saves S²·H floats at large S. */
  returnAttention?: boolean;
}

export interface ForwardResult {
  /** Tokens of `text` / `tokens` (empty with `vectors`). */
  tokens: string[];
  /** [S, D] token embeddings (or the given vectors). */
  input: Matrix;
  /** [S, D] position vectors; zeros for none, rope and alibi. */
  positional: Matrix;
  /** [S, D'] what attention sees: input + positional, or [input | positional] with concat. */
  hidden: Matrix;
  /** [H, S, S] attention weights, or null when returnAttention is false. */
  attention: Matrix | null;
  /** [S, D'] attention output. */
  output: Matrix;
  /** [D'] the mean of the output rows: the sentence vector. */
  outputMean: Matrix;
}

export interface EncodingOptions {
  /** Default 'sinusoidal'. */
  scheme?: 'sinusoidal' | 'learned';
  /** Rows S. Default 8. */
  length?: number;
  /** Width D (even for sinusoidal). Default 8. */
  dModel?: number;
  base?: number;
  seed?: number;
  maxPositions?: number;
  /** First position. Default 0. A learned row >= maxPositions throws (the 1024 wall). */
  positionOffset?: number;
}

export interface PermutationCheckOptions extends ForwardOptions {
  /** Row i of PX is row permutation[i] of X; each of 0…S-1 exactly once. */
  permutation: number[];
}

export interface PermutationCheckResult {
  permutation: number[];
  original: ForwardResult;
  permuted: ForwardResult;
  /** max |Attention(PX) − P·Attention(X)|: ≈ 0 without position information. */
  maxAbsDiff: number;
}

export interface AttentionStepsOptions extends ForwardOptions {
  /** 'sqrt_dk' (default, the real formula); 'none' and 'dk' reproduce the usual mistakes. */
  scale?: 'sqrt_dk' | 'none' | 'dk';
}

/** The hand calculation step by step (at most 256 tokens). */
export interface AttentionStepsResult extends ForwardResult {
  /** [H, S, S] q_i·k_j (after RoPE, before scaling). */
  dots: Matrix;
  /** [H, S, S] the scaled scores with ALiBi bias; -Infinity where masked. */
  scores: Matrix;
  /** [H, S, S] softmax of the scores (equals `attention` when scale is 'sqrt_dk'). */
  weights: Matrix;
  /** [S, D'] weights·V with this scale (equals `output` when scale is 'sqrt_dk'). */
  stepOutput: Matrix;
}

export interface RopeCheckOptions {
  /** Width of q and k (even). Default 8. */
  dHead?: number;
  m: number;
  n: number;
  /** Both positions move by this much. */
  shift: number;
  seed?: number;
  base?: number;
  /** Optional q and k (dHead wide); drawn from seed when absent. */
  q?: number[];
  k?: number[];
}

export interface RopeCheckResult {
  score: number;
  shiftedScore: number;
  diff: number;
  q: Float32Array;
  k: Float32Array;
}

export interface SimilarityOptions {
  scheme: PositionScheme;
  length: number;
  dModel?: number;
  base?: number;
  seed?: number;
  maxPositions?: number;
  heads?: number;
}

// Grading (the same rules as `poslab grade`; exercises are the parsed YAML).
export type Exercise = Record<string, unknown>;
export type Text = { ja: string; en: string };

export interface CheckAttemptOptions {
  exercise: Exercise;
  question: string;
  /** numeric: strings as typed; choice: option ids; task: the lab settings it was solved with;
   *  prediction: [one option id]; explain: the text (at most max_length, default 2000, characters). */
  answer: string[] | string | Record<string, unknown>;
  /** From variant(). */
  variant?: Record<string, unknown>;
  /**
   * The lab's current values ($sentence, $d, …) named by `expect` args. With
   * `tokens` (the page's split of `sentence`), `text: $sentence` runs on those
   * tokens, after checking that they spell the sentence (code 'bad_lab_tokens',
   * 'tokens_not_of_text', 'empty_token', 'too_many_tokens' otherwise).
   * `runSeeds`: the seeds of the learner's finished Part 2 run (exercise 9), one of
   * the exercise's `lab.run_seeds` (else code 'lab_not_allowed'); a question with
   * `answer_from.extend_run` is malformed without it. The core recomputes that run
   * (from its compiled-in cache of the page's runs); a result in the lab is never read.
   */
  lab?: Record<string, unknown> & { sentence?: string; tokens?: string[]; runSeeds?: number[] };
  lang?: 'ja' | 'en';
}

export interface AttemptResult {
  /** recorded: a prediction (score 1) or an explanation (score 0), never right or wrong. */
  status: 'correct' | 'partial' | 'incorrect' | 'malformed' | 'recorded';
  /** 0…1 */
  score: number;
  /** Per field (numeric), per option (choice), or [ok] (task). */
  parts: boolean[];
  /** Numeric: the expected values. */
  expected: number[];
  /** For malformed: what was wrong (costs no attempt). */
  message: string;
  /** A matched known mistake's or a wrong choice's explanation. */
  feedback: Text | null;
  /** Which named mistake matched (null: none). */
  mistake: MatchedMistake | null;
  /** Code questions: how the run went. A hidden case's expected values are never in it. */
  detail?: CodeDetail;
}

/** A named mistake a wrong answer matched: numeric, the question's `mistakes`
 * entry (id: its own `id`, else "mistake-N", N its 1-based place); choice, a
 * wrong option the file explains with `why` (id "option-<option id>"). */
export interface MatchedMistake {
  id: string;
  index?: number;
  option?: string;
  feedback: Text;
}

/** A code question's result (answer: {code, status, results?, message?}). */
export interface CodeDetail {
  /** The run stopped before any case (timeout, syntax_error, load_error, no_function, memory, crashed, blocked). */
  kind?: string;
  message?: string;
  passed?: number;
  total?: number;
  /** The first failing hidden case: its arguments and how it failed. */
  failed?: CodeCaseVerdict & { case: number; args: unknown[] };
  /** The named mistake the results match (e.g. sin_cos_swapped). */
  mistake?: string;
}

export interface CodeCaseVerdict {
  ok: boolean;
  /** shape · type · value · exception · no_raise · wrong_exception */
  kind?: string;
  /** Index path of the first difference, e.g. [2, 3]. */
  at?: number[];
  expected_len?: number;
  got_len?: number;
  got?: unknown;
  want?: string;
  error?: string;
  /** Visible cases only (codeRun). */
  expected?: unknown;
}

export interface Attempt {
  question: string;
  answer: unknown;
  lab?: Record<string, unknown>;
  lang?: 'ja' | 'en';
  time?: string;
}

export interface ExerciseGrade {
  points: number;
  max: number;
  questions: {
    id: string;
    type: 'numeric' | 'choice' | 'task' | 'prediction' | 'explain';
    /** Best over the counted attempts of score × credit (the file's `credit` list) × the question's points. */
    points: number;
    max: number;
    attempts: number;
    /** Attempts past max_attempts, or (prediction) sent after the learner trained first (kept, not counted). */
    ignored: number;
    /** Right (a prediction: recorded; an explanation is optional, so always true). */
    solved: boolean;
    hintsUnlocked: number;
    /** choice: the option ids in the order this learner saw them. */
    order?: string[];
    /** prediction: the first prediction; explain: the last text saved. */
    response?: unknown;
    /** prediction: true when the page's mark {ran_before_prediction: true} came before any prediction
     * (the learner trained first: 0 points, the question closed). Absent otherwise. */
    ranBeforePrediction?: true;
    /** Counted attempts up to and including the first correct one; null: never correct. */
    attemptsToCorrect: number | null;
    /** Each counted attempt that was not right, in order, with the named mistake it matched. */
    wrong: { attempt: number; status: 'incorrect' | 'partial'; score: number; mistake: MatchedMistake | null; answer: unknown }[];
  }[];
  /** Attempts not graded: 'lab_not_allowed' (lab settings the exercise does not offer; one per attempt)
   * or 'too_many_attempts' (past 200 for one question; one per question, with count). */
  rejected: { attempt?: number; question: string; status: 'lab_not_allowed' | 'too_many_attempts'; message: string; detail: GradeDetail; count?: number }[];
}

/** A part of a grading message as a stable code and its parameters: the results page
 * words it in its language (web/i18n grade_msg.<code>); `message` keeps the English.
 * 'not_graded' nests the rejected attempt's detail; 'core_error' holds the core's
 * error code and params (err.<code>). */
export interface GradeDetail {
  code: string;
  params: Record<string, unknown>;
  detail?: GradeDetail | null;
}

/** One row of `poslab grade` (--format json) and of gradeSubmission. */
export interface SubmissionRow {
  file: string;
  learner: string;
  exercise: string;
  points: number | null;
  max: number | null;
  claimedPoints: number | null;
  claimedDiffers: boolean | null;
  status: 'graded' | 'invalid_file' | 'too_large' | 'invalid_exercise' | 'unknown_exercise' | 'hash_mismatch';
  message: string;
  /** The message's parts, in order (empty when there is no message). */
  details: GradeDetail[];
  /** duplicate_entries:N, lab_not_allowed:N, too_many_attempts:N, not_rerun:N (at most 20; more_flags:N last) */
  flags: string[];
  /** Per code question, how its counted attempts ended: {status: count}; status is a re-run status or
   * "not_rerun(<reason>)" (too_long, no_result, no_code_results, budget, sandbox_unavailable, bad_result). */
  codeRuns?: Record<string, Record<string, number>>;
  questions?: ExerciseGrade['questions'];
  rejected?: ExerciseGrade['rejected'];
}

/** One code attempt a re-run must run (codeAttempts, poslab code-attempts). */
export interface CodeAttempt {
  /** "exercise/question/index" (index into the merged history): the key of its result. */
  key: string;
  exercise: string;
  question: string;
  /** 1-based among the question's counted attempts. */
  attempt: number;
  function: string;
  timeLimitMs: number;
  /** Empty when not runnable. */
  code: string;
  /** The learner's hidden cases: the arguments of each. */
  cases: unknown[][];
  runnable: boolean;
  reason?: 'too_long';
}
export interface CodeAttemptList {
  file: string;
  learner: string;
  /** false: the file cannot be graded at all (status says how); nothing to run. */
  ok: boolean;
  status: SubmissionRow['status'];
  attempts: CodeAttempt[];
}
/** Re-run results by attempt key. */
export type CodeResults = Record<string, { status: 'ok'; results: unknown[] } | { status: string; message?: string } | { status: 'not_rerun'; reason: string }>;

/** What the next attempt at a question costs, after `made` counted ones. */
export interface AttemptStatus {
  made: number;
  /** null: no limit. */
  maxAttempts: number | null;
  /** null: no limit. */
  left: number | null;
  /** The fraction of its score the next attempt can earn (0 when none is left). */
  nextCredit: number;
}

/** The add-vs-concatenate experiment (callCore only): random N(0, 1) vectors per width. */
export interface SuperpositionOptions {
  /** 1…8 widths, each 1…1024. Default [4, 16, 64, 256]. */
  dims?: number[];
  /** Rows of the token table, 2…1024 (default 256), and of the position table, 2…1024 (default 64). */
  vocab?: number;
  positions?: number;
  /** Sums read back, 1…2000 (default 400); cosine pairs, 1…20000 (default 2000); histogram bins over [−1, 1], 2…200 (default 40). */
  trials?: number;
  pairs?: number;
  bins?: number;
  seed?: number;
}
export interface SuperpositionRow {
  dModel: number;
  histogram: number[];
  /** Standard deviation of the pairs' cosines (≈ 1/√D). */
  cosineStd: number;
  /** How often the nearest row (by cosine) to token + position is the token, and the position: 0…1. */
  tokenRecovery: number;
  positionRecovery: number;
}

export interface Limits {
  maxTokens: number;
  maxPosition: number;
  maxDModel: number;
  maxTablePositions: number;
  /** How many leading bytes tableTensors wants as an .npy header (12 + 64 KiB). */
  npyPrefixBytes: number;
  /** The most values a position table may have (2^24). */
  maxTableValues: number;
  /** Code longer than this (Unicode code points) is never run and scores 0 (not_rerun(too_long)). */
  maxCodeChars: number;
  /** A submission file larger than this is refused (too_large). */
  maxSubmissionBytes: number;
}

// ---- Real position tables (cpp/bindings/wasm/table_bindings.cpp) ----
// Read only what is needed: the first bytes, the safetensors JSON header,
// then the chosen tensor's bytes [begin, end) (File.slice). Every call
// re-checks the header. Errors (PositionLabError codes): table_truncated,
// table_header_past_end, table_header_too_large (over 16 MiB; .npy over 64
// KiB), table_header_not_json, table_header_bad, table_offsets_out_of_range,
// table_not_2d, table_unsupported_dtype (F32, F16, BF16 only; .npy '<f4',
// '<f2': numpy has no bfloat16), table_empty, table_too_large (over 65536
// rows, 4096 columns or 2^24 values), table_no_tensor, table_npy_bad,
// table_npy_fortran, table_not_finite (params row, col: NaN or ±Inf).
export type TableFormat = 'safetensors' | 'npy';

export interface TensorEntry {
  /** '' for an .npy file. */
  name: string;
  /** safetensors spelling: F32, F16, BF16, I64, … */
  dtype: string;
  shape: number[];
  /** Byte range in the file (up to 2^53). */
  begin: number;
  end: number;
}

export interface TableFileArgs {
  format: TableFormat;
  /** The JSON header's bytes (safetensors), or the file's first limits.npyPrefixBytes bytes (npy). */
  header: Uint8Array;
  fileSize: number;
  /** A tensor name; default: the first of the usual names present (wpe.weight, …), else the only 2-D tensor. */
  tensor?: string;
}

export interface TableAnalysisOptions {
  /** Principal components reported, 1…8 (default 3). */
  components?: number;
  /** Neighbour similarity for distances 1…min(this, rows − 1) (default 256, at most 4096). */
  maxDistance?: number;
  /** The heatmap samples at most this many rows, round(i·(rows−1)/(K−1)) (default 256, at most 1024). */
  maxHeatmapRows?: number;
}

export interface TableSummary {
  shape: [number, number];
  /** The table as float32 (for the wall: its rows). */
  table: Matrix;
  /** ‖row p‖ for every p. */
  norms: number[];
  /** The rows the heatmap shows. */
  heatmapRows: number[];
  /** [K, K] cosine similarity of those rows. */
  similarity: Matrix;
  /** [d − 1]: mean over p of cos(row p, row p + d), d = 1 … */
  neighbour: number[];
  pca: {
    /** Eigenvalues of the covariance (1/n), largest first. */
    variance: number[];
    /** variance / totalVariance. */
    explained: number[];
    totalVariance: number;
    /** The rows the PCA was fitted on (all when rows ≤ 1024, else 1024 evenly spaced). */
    rows: number[];
    /** [rows, components]: (row − mean) · component; each component signed so its largest entry is positive.
     *  Float64Array (a float32 copy would overflow for values near ±3.4e38). */
    projection: { shape: [number, number]; data: Float64Array };
    iterations: number;
    converged: boolean;
  };
}

/** What tableAnalyze / tableSummary will do for a rows × cols table, known before it starts. */
export interface TablePlan {
  /** Rows the similarity heatmap samples (evenly spaced). */
  heatmapRows: number;
  /** The neighbour curve's last distance (its work is capped at 2^28 multiply-adds). */
  distances: number;
  /** Rows the PCA is fitted on (evenly spaced): all up to 1024, fewer for wide tables (m · min(m, cols) · cols ≤ 2^30). */
  pcaRows: number;
  /** The eigen solver's step cap. */
  eigenSteps: number;
}

export interface PositionLabTables {
  /** What the figures of a rows × cols table will take: said while they are computed. */
  tablePlan(options: { rows: number; cols: number; components?: number; maxDistance?: number; maxHeatmapRows?: number }): TablePlan;
  /** From the file's first bytes: an .npy starts with \x93NUMPY. */
  tableFormat(first: Uint8Array): TableFormat;
  /** The safetensors header length from the first 8 bytes, checked against the file size and the 16 MiB cap. */
  safetensorsHeaderLength(options: { bytes: Uint8Array; fileSize: number }): number;
  /** Every tensor of the file; picked is null when no tensor was named and none of the usual names is present. */
  tableTensors(options: TableFileArgs): { tensors: TensorEntry[]; suggested: string[]; picked: TensorEntry | null };
  /** The picked tensor's bytes decoded to float32 and its figures. */
  tableAnalyze(options: TableFileArgs & TableAnalysisOptions & { bytes: Uint8Array }): TableSummary & { tensor: TensorEntry };
  /** The same figures for a table given as data, or for sinusoidal at a shape. */
  tableSummary(options: TableAnalysisOptions & { rows: number; cols: number } & ({ data: Float32Array } | { scheme: 'sinusoidal'; base?: number })): TableSummary;
}

export interface PositionLab extends PositionLabTraining, PositionLabBench, PositionLabTables {
  readonly version: string;
  readonly limits: Limits;
  /**
   * Words of `text`: the JS engine's `Intl.Segmenter('ja', {granularity: 'word'})`
   * (ICU), then the core's post-pass: spaces dropped, each punctuation mark a
   * token, case folded, a katakana run one token, a lone kanji joined with its
   * okurigana (追いかけ|た). Throws with `code` 'no_segmenter' where there is no
   * `Intl.Segmenter`; 'empty_text', 'text_not_utf8', 'bad_character',
   * 'too_many_tokens' (over `limits.maxTokens`) for such text.
   */
  tokenize(text: string): string[];
  forward(options: ForwardOptions): ForwardResult;
  /**
   * forward's attention for heads `headFrom` … `headTo - 1` only: `context` is
   * [S, n·d_head] (n = headTo − headFrom), each head's softmax(q·kᵀ/√d_head)·v
   * side by side, before the output projection. One share of a forward spread
   * over Workers (web/js/core/attention-split.js). Throws 'bad_head_range'
   * unless 0 ≤ headFrom < headTo ≤ heads; otherwise as forward.
   */
  forwardHeads(options: ForwardOptions & { headFrom: number; headTo: number }): { context: Matrix };
  /**
   * Finishes a forward whose heads were computed apart: `context` is every
   * head's forwardHeads output side by side ([S, width]). The result equals
   * forward's with returnAttention false, bit for bit (attention is null).
   * Throws 'bad_context' for a context of another shape.
   */
  forwardCombine(options: ForwardOptions & { context: Matrix | number[][] }): ForwardResult;
  /** `wavelengths` ([D/2], 2π·base^{2i/D} positions per pair) for sinusoidal. */
  encoding(options: EncodingOptions): { encoding: Matrix; wavelengths?: Matrix };
  permutationCheck(options: PermutationCheckOptions): PermutationCheckResult;
  attentionSteps(options: AttentionStepsOptions): AttentionStepsResult;
  ropeCheck(options: RopeCheckOptions): RopeCheckResult;
  /** M_k with PE_{pos+k} = M_k · PE_pos (sinusoidal). */
  shiftMatrix(options: { shift: number; dModel?: number; base?: number }): { matrix: Matrix };
  /** [S, S] similarity of positions under a scheme (see experiments.hpp). */
  similarity(options: SimilarityOptions): { similarity: Matrix };
  alibiSlopes(heads: number): number[];
  /** Every head's bias −m_h·|i−j|: [H, S, S] (length 1…1024, heads 1…64). */
  alibiBias(options: { length: number; heads: number }): { bias: Matrix; slopes: number[] };
  /** RoPE's angles per pair over positions 0 … s·L under a context-extension method (rope_scaling.hpp). */
  ropeAngleMap(options: RopeAngleMapOptions): RopeAngleMap;
  /** Any function above by name, over plain JSON (matrices' data as number arrays). */
  callCore(options: { call: 'superposition'; args?: SuperpositionOptions }): { rows: SuperpositionRow[] };
  /** A code exercise's function as the core computes it, or a named mistake's version (mistake: e.g. 'sin_cos_swapped'). */
  callCore(options: { call: 'codeReference'; args: { function: string; args: unknown[]; mistake?: string } }): unknown;
  callCore(options: { call: string; args?: unknown }): unknown;
  contentHash(options: { exercise: Exercise }): string;
  /** seed = 32-bit hash of (learner, exercise id, content hash); variant drawn from it.
   *  A variant outside its limits (integers within ±(2^53 − 1), lengths 0…4096; docs/authors/variants.md)
   *  throws code bad_exercise, naming the field: "variants.n.max: …".
   *  optionOrders: per choice (and prediction) question, its option ids in the order this learner sees them
   *  (drawn from the seed and the question id; options with `fixed: true` keep their place). */
  variant(options: { exercise: Exercise; learner: string }): { contentHash: string; seed: number; variant: Record<string, unknown>; optionOrders: Record<string, string[]> };
  /** The file's max_attempts and credit rule, for the page to show before an attempt. */
  attemptStatus(options: { exercise: Exercise; question: string; made: number }): AttemptStatus;
  checkAttempt(options: CheckAttemptOptions): AttemptResult;
  /** "Run": a code question's visible cases (the file's `cases`), compared with the core's values, which are shown. */
  codeRun(options: { exercise: Exercise; question: string; results: unknown[] }): { passed: number; total: number; cases: CodeCaseVerdict[] };
  gradeExercise(options: { exercise: Exercise; seed: number; attempts: Attempt[] }): ExerciseGrade;
  /** One submission file re-graded exactly as `poslab grade` does (the same core function): its rows.
   * Never throws for what the file holds: a bad file gets a row with its status.
   * `exercises` may be left out after the first call: the list last given is used (a page grading
   * 200 files sends it once). */
  /** codeResults: the re-run results by attempt key (codeAttempts); absent: every code attempt not re-run.
   * Results a submission stores are never read. */
  gradeSubmission(options: { exercises?: Exercise[]; file: string; text: string; codeResults?: CodeResults | null }): SubmissionRow[];
  /** The same, over the file's bytes as read (a BOM, a NUL, bytes that are not UTF-8 read as poslab grade reads them). */
  gradeSubmissionBytes(options: { exercises?: Exercise[]; file: string; bytes: Uint8Array; codeResults?: CodeResults | null }): SubmissionRow[];
  /** The code attempts of a submission that can count, as the grader reads the file (poslab code-attempts). */
  codeAttempts(options: { exercises?: Exercise[]; file: string; bytes: Uint8Array }): CodeAttemptList;
  /** The one CSV writer of re-graded rows (poslab grade's CSV, header and rows, LF lines). */
  gradeCsv(options: { rows: SubmissionRow[]; header?: boolean; bom?: boolean }): string;
  /** Any table through the same cells (numbers at 6 decimals, ; , quotes quoted, formulas neutralised, invisible characters as \uXXXX), CRLF lines; bom defaults to true. */
  csvTable(options: { rows: (string | number | boolean | null)[][]; bom?: boolean }): string;
  /** Text with control, bidirectional-control and invisible format characters shown as \uXXXX. */
  displayText(options: { text: string }): string;
  unlockedHints(options: { exercise: Exercise; question: string; wrong: number }): Text[];
  /** Rotates the pairs of `vector` as RoPE does at `position`. */
  ropeRotate(options: { vector: number[]; position: number; base?: number }): Float32Array;
}

export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten's hook: instantiate the wasm yourself, e.g. from a WebAssembly.Module compiled once
   * and shared with Workers: `WebAssembly.instantiate(module, imports).then((i) => receive(i, module)); return {};` */
  instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
  /** Where poslab-web.js finds its wasm (it asks for 'poslab-web.wasm'; dist/ names it poslab.wasm). */
  locateFile?: (path: string) => string;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
}

/** The module factory (a global in a classic script; module.exports in Node). */
declare const createPositionLab: {
  (options?: ModuleOptions): Promise<PositionLab>;
  /** The source of a classic script that defines this same factory: for a Worker made from a blob: URL
   * (a page opened from file:// cannot start a Worker from a file). */
  scriptSource(): string;
  /** The wasm inlined in poslab.js, as bytes (to compile once and hand to Workers); null in poslab-web.js. */
  inlinedWasm(): Uint8Array<ArrayBuffer> | null;
};
export default createPositionLab;

// ---- Train short, test long (cpp/bindings/wasm/train_bindings.cpp) ----
// PositionLab extends PositionLabTraining.
//
//   const run = new lab.ExtrapolationRun({ scheme: 'rope', seed: 1, steps: 400 });
//   while (!run.done()) postMessage(run.step(10));   // cancel = stop calling step()
//   const ev = run.evaluate();
//   run.delete();                                     // frees the wasm memory; required
//
// Task "count and stop": a…a = b…b <eos> with n a's and n b's. Trained on
// n = 1…trainMax, tested on every n = 1…testMax. Bad options throw an Error
// (name 'PositionLabError', .code, .params) whose message names the option and
// what it allows; unknown option names are errors too.

export interface ExtrapolationOptions {
  /** Default 'learned'. */
  scheme?: PositionScheme;
  /** Seeds the weights and the training batches. Default 1; 0…2^32-1. */
  seed?: number;
  /** Adam steps. Default 400; 1…20000. */
  steps?: number;
  /** Train on n = 1…trainMax. Default 16; 1…32. */
  trainMax?: number;
  /** Test n = 1…testMax. Default 48; trainMax+1…96. The learned table has 2·testMax+2 rows. */
  testMax?: number;
  /** Sequences per step. Default 32; 1…128. */
  batch?: number;
  /** Peak learning rate. Default 0.003; (0, 1]. */
  lr?: number;
  /** Linear warm-up steps, then linear decay to 0. Default steps/10 (40 of 400); 0…steps. */
  warmup?: number;
  /** Global gradient-norm clip. Default 1; (0, 1000]. */
  clip?: number;
  /** Default 32; 2…64 (even for sinusoidal). */
  dModel?: number;
  /** Default 4; 1…16, divides dModel (dModel/heads even for rope). */
  heads?: number;
  /** Default 2; 1…4. */
  layers?: number;
  /** ReLU MLP width. Default 128; 1…256. */
  dMlp?: number;
  /** Base of sinusoidal and RoPE frequencies. Default 10000; (1, 1e9]. */
  base?: number;
  /** The task: 'count' (count and stop, the default) or 'lookback' (look back k: the output at i copies the symbol at i−k). */
  task?: 'count' | 'lookback';
  /** Look-back distance, only with task 'lookback' (an error otherwise). Default 4; 1…trainMax. */
  k?: number;
}

export interface ExtrapolationProgress {
  /** Steps done so far. */
  step: number;
  /** Steps in the run. */
  steps: number;
  done: boolean;
  /** Training loss of each step this call ran (steps step-k … step-1). */
  loss: Float32Array;
}

export interface ExtrapolationEvaluation {
  /** Index n-1: 1 if every prediction from '=' on (n b's and <eos>) is right, else 0. */
  exactMatch: Float32Array;
  /** Largest N with exact match at every n ≤ N (0 if n = 1 fails). */
  solvedUpTo: number;
  /** Mean exact match over n = trainMax+1…testMax. */
  meanExtrapolated: number;
  trainMax: number;
  testMax: number;
  /** Steps trained when evaluated. */
  step: number;
}

export interface ExtrapolationRun {
  done(): boolean;
  /** Runs up to `count` more steps (0…100000; fewer at the end). */
  step(count: number): ExtrapolationProgress;
  /** The loss of every step so far. */
  losses(): Float32Array;
  /** Exact match per n with the current weights (may be called at any time). */
  evaluate(): ExtrapolationEvaluation;
  /** The learned position table as trained so far, [learnedTableRows, dModel] (scheme 'learned' only; else error no_position_table). */
  positionTable(): Matrix;
  /** The options in force, defaults filled in, plus learnedTableRows. */
  options(): Required<Omit<ExtrapolationOptions, 'k'>> & { k?: number; learnedTableRows: number };
  /** Frees the run's wasm memory (Embind objects are not garbage-collected). */
  delete(): void;
}

// ---- RoPE context extension (rope_scaling.hpp, extend.hpp) ----
//
//   const run = new lab.ExtensionRun({ seed: 1, methods: ['none', 'pi', 'ntk', 'yarn'] });
//   while (!run.done()) postMessage(run.step(10));
//   const curves = run.curves();
//   run.delete();
//
// Trains the tiny Transformer with RoPE on n ≤ trainMax (positions 0 … L =
// 2·trainMax), then per method evaluates every n ≤ testMax (s = testMax /
// trainMax) with the trained weights as they are, and again after
// finetuneSteps Adam steps on n ≤ testMax.

export type RopeScalingMethod = 'none' | 'pi' | 'ntk' | 'yarn' | 'base';
export type YarnEdgeRule = 'paper' | 'lab';

/** The ExtrapolationRun options but scheme (always 'rope'); trainMax defaults to 8, testMax to 16. */
export interface ExtensionOptions extends Omit<ExtrapolationOptions, 'scheme'> {
  /** Default ['none', 'pi', 'ntk', 'yarn']; 1…5 distinct. */
  methods?: RopeScalingMethod[];
  /** Fine-tune steps per method. Default 100; 0…2000 (0: zero-shot only). */
  finetuneSteps?: number;
  /** Peak fine-tune learning rate (warm-up steps/10, then linear decay). Default 0.001; (0, 1]. */
  finetuneLr?: number;
  /** The new base of method 'base'. Default 500000; (1, 1e12]. */
  newBase?: number;
  /**
   * Method 'yarn': the ramp's edges, in turns a pair makes within L. 'paper'
   * (default): α = 1, β = 32 (Peng et al. 2023). 'lab': α = 1, β = L/2π, the
   * lab's rescaling to its short L (a step at α when L/2π ≤ 1).
   */
  yarnEdges?: YarnEdgeRule;
  /** Replaces the rule's α: finite, 0 ≤ α < β ≤ 10000 (β the rule's or yarnBeta). */
  yarnAlpha?: number;
  /** Replaces the rule's β: finite, 0 ≤ α < β ≤ 10000. */
  yarnBeta?: number;
}

export interface ExtensionProgress {
  /** Training plus fine-tune steps done so far. */
  step: number;
  /** steps + methods·finetuneSteps. */
  steps: number;
  done: boolean;
  /** Curves measured so far. */
  curves: number;
}

export interface ExtensionCurve {
  method: RopeScalingMethod;
  finetuned: boolean;
  /** Index n-1: 1 if every prediction from '=' on is right, else 0 (n = 1…testMax). */
  exactMatch: Float32Array;
  solvedUpTo: number;
  /** Mean exact match over n = trainMax+1…testMax. */
  meanExtrapolated: number;
  /** The fine-tune's loss per step (empty for zero-shot; filled as it runs). */
  loss: Float32Array;
}

export interface ScaledRopeInfo {
  method: RopeScalingMethod;
  /** θ'ᵢ per pair (d_head/2). */
  theta: Float32Array;
  /** Attention logits are multiplied by this (YaRN's 1/t; 1 otherwise). */
  logitScale: number;
  /** base' for ntk and base, the base otherwise. */
  base: number;
  /** YaRN's γᵢ per pair (empty for other methods). */
  ramp: Float32Array;
  /** YaRN's edges in force (method 'yarn' only). */
  alpha?: number;
  beta?: number;
}

export interface ExtensionRun {
  done(): boolean;
  /** Runs up to `count` more steps (0…100000; fewer at the end). */
  step(count: number): ExtensionProgress;
  /** The base training's loss per step so far. */
  losses(): Float32Array;
  /** Per method: zero-shot, then (when finetuneSteps > 0) fine-tuned; only those measured so far. */
  curves(): ExtensionCurve[];
  options(): {
    seed: number; steps: number; trainMax: number; testMax: number; finetuneSteps: number; finetuneLr: number;
    newBase: number; yarnEdges: YarnEdgeRule; base: number; task: 'count' | 'lookback'; k?: number; trainedLength: number; scale: number; methods: RopeScalingMethod[];
    rope: ScaledRopeInfo[];
  };
  delete(): void;
}

export interface RopeAngleMapOptions {
  /** Head width (RoPE dimension), even, 2…256 (ntk: at least 4). */
  d: number;
  /** Default 10000; (1, 1e12]. */
  base?: number;
  /** L: the trained positions 0 … L; 1…1024. */
  trainedLength: number;
  /** Target length / L; 1…64; round(s·L) ≤ 4095. */
  s: number;
  /** Default 'none'. */
  method?: RopeScalingMethod;
  /** Method 'base': the new base. Default 500000. */
  newBase?: number;
  /**
   * Method 'yarn': the ramp's edges, in turns a pair makes within L. 'paper'
   * (default): α = 1, β = 32 (Peng et al. 2023). 'lab': α = 1, β = L/2π, the
   * lab's rescaling to its short L (a step at α when L/2π ≤ 1).
   */
  yarnEdges?: YarnEdgeRule;
  /** Replaces the rule's α: finite, 0 ≤ α < β ≤ 10000 (β the rule's or yarnBeta). */
  yarnAlpha?: number;
  /** Replaces the rule's β: finite, 0 ≤ α < β ≤ 10000. */
  yarnBeta?: number;
}

export interface RopeAngleMap {
  pairs: number;
  /** round(s·L) + 1: positions 0 … round(s·L). */
  positions: number;
  trainedLength: number;
  /** [positions, pairs] row-major: m·θ'ᵢ mod 2π. */
  angles: Float32Array;
  /**
   * [positions, pairs]: 1 where the angle m·θ'ᵢ mod 2π was never produced in
   * training: L·θᵢ < 2π and the wrapped angle lies outside the arc [0, L·θᵢ]
   * that the trained positions 0 … L swept (beyond 1e-9·max(1, L·θᵢ)).
   */
  unseen: Float32Array;
  /** Per pair: some angle unseen. */
  leaves: boolean[];
  /** L·θᵢ per pair (unwrapped). */
  trainedSpan: Float32Array;
  /** round(s·L)·θ'ᵢ per pair (unwrapped). */
  maxAngle: Float32Array;
  theta: Float32Array;
  /** θᵢ = base^(−2i/d). */
  original: Float32Array;
  ramp: Float32Array;
  logitScale: number;
  baseUsed: number;
  /** YaRN's edges in force, in turns within L (paper: α = 1, β = 32; lab: α = 1, β = L/2π; 0 for other methods). */
  alpha: number;
  beta: number;
}

export interface PositionLabTraining {
  ExtrapolationRun: new (options: ExtrapolationOptions) => ExtrapolationRun;
  ExtensionRun: new (options?: ExtensionOptions) => ExtensionRun;
}

// ---- For benchmarks and kernel tests (cpp/bindings/wasm/bench_bindings.cpp) ----
export interface PositionLabBench {
  /** The [D, D] projections forward() uses for weights 'random' with this seed (X·W). */
  attentionWeights(options: { dModel: number; seed?: number }): { wq: Matrix; wk: Matrix; wv: Matrix; wo: Matrix };
  /** Current wasm memory in bytes (memory only grows, so this is the peak). */
  wasmMemoryBytes(): number;
  /**
   * The training's plain loops (true) or its kernels (false, the default): the same numbers,
   * bit for bit; the bench's "before". Without an argument, says which is on.
   * Applies to this instance of the core only (each Web Worker has its own).
   */
  trainKernelsReference(on?: boolean): boolean;
}
