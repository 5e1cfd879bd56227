// Build-time (Node) loader of the exercise files: parses exercises/*.yaml,
// validates each against exercises/exercise.schema.json, then checks what a
// schema cannot (unique ids, references between blocks). Throws one Error
// whose message lists every problem as "file: field: what is wrong".
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { validate, duplicateKeys } from './schema-check.mjs';

const WIDGETS = new Set(['tokens', 'outputs', 'attention', 'attention-lines', 'vectors', 'handcalc', 'pe-table', 'clocks', 'pe-rows', 'combine', 'superposition', 'swaps', 'wall', 'rope', 'alibi', 'alibi-locality', 'compare', 'extrapolate', 'rope-extend', 'rope-extend-run']);
const QUESTIONS = new Set(['numeric', 'choice', 'task', 'prediction', 'explain', 'code']);

export function isWidget(block) {
  return WIDGETS.has(block.type);
}
export function isQuestion(block) {
  return QUESTIONS.has(block.type);
}

// Semantic checks of one parsed, schema-valid exercise. Returns messages.
export function crossCheck(ex) {
  const problems = [];
  const ids = new Map();
  ex.blocks.forEach((b, i) => {
    if (!b.id) return;
    if (ids.has(b.id)) problems.push(`blocks[${i}].id: "${b.id}" is used twice (also blocks[${ids.get(b.id)}])`);
    else ids.set(b.id, i);
  });
  const typeOfId = (id) => (ids.has(id) ? ex.blocks[ids.get(id)].type : undefined);
  const checkRanges = (ranges, at) => {
    for (const [key, r] of Object.entries(ranges ?? {})) {
      if (r.min !== undefined && r.max !== undefined && r.min > r.max) problems.push(`${at}.${key}: min ${r.min} is more than max ${r.max}; no value would be allowed`);
    }
  };
  checkRanges(ex.lab?.ranges, 'lab.ranges');
  ex.blocks.forEach((b, i) => {
    const at = `blocks[${i}]`;
    if (b.type === 'compare') checkRanges(b.ranges, `${at}.ranges`);
    if ((b.type === 'outputs' || (b.type === 'attention' && b.tokens)) && typeOfId(b.tokens) !== 'tokens') {
      problems.push(`${at}.tokens: "${b.tokens}" is not the id of a tokens widget in this file`);
    }
    if (b.type === 'handcalc') {
      if (b.labels.length !== b.vectors.length) problems.push(`${at}.labels: ${b.labels.length} labels for ${b.vectors.length} vectors`);
      b.orders.forEach((o, k) => {
        const sorted = [...o.order].sort((x, y) => x - y);
        if (sorted.length !== b.vectors.length || sorted.some((v, i) => v !== i)) problems.push(`${at}.orders[${k}].order: not an order of the ${b.vectors.length} vectors (each index 0…${b.vectors.length - 1} once)`);
        for (const [step, id] of Object.entries(o.steps)) if (typeOfId(id) !== 'numeric') problems.push(`${at}.orders[${k}].steps.${step}: "${id}" is not the id of a numeric question in this file`);
      });
    }
    if (b.type === 'task') {
      const t = typeOfId(b.condition.widget);
      if (!t || !WIDGETS.has(t)) problems.push(`${at}.condition.widget: "${b.condition.widget}" is not the id of a widget in this file`);
      const tests = ['equals', 'gt', 'lt', 'is_error'].filter((k) => k in b.condition);
      if (tests.length !== 1) problems.push(`${at}.condition: needs exactly one of equals, gt, lt, is_error (has ${tests.length})`);
      const checks = ['equals', 'gt', 'lt', 'error'].filter((k) => k in b.condition.check);
      if (checks.length !== 1) problems.push(`${at}.condition.check: needs exactly one of equals, gt, lt, error (has ${checks.length})`);
      if (!('error' in b.condition.check) && !b.condition.check.path) problems.push(`${at}.condition.check.path: is required unless the check is error`);
      for (const [key, spec] of Object.entries(b.condition.check.free ?? {})) {
        const head = (typeof spec === 'string' ? spec : spec.path).split('.')[0];
        if (head !== 'lab' && !typeOfId(head)) problems.push(`${at}.condition.check.free.${key}: "${head}" is neither lab nor the id of a widget in this file`);
      }
    }
    if (b.credit) {
      b.credit.forEach((c, j) => {
        if (j > 0 && c > b.credit[j - 1]) problems.push(`${at}.credit[${j}]: ${c} is more than the attempt before (${b.credit[j - 1]}); credit never increases`);
      });
      if (b.max_attempts && b.credit.length > b.max_attempts) problems.push(`${at}.credit: ${b.credit.length} entries for max_attempts ${b.max_attempts}; the entries past it would never apply`);
    }
    if (b.type === 'prediction') {
      const optionIds = b.options.map((o) => o.id);
      if (new Set(optionIds).size !== optionIds.length) problems.push(`${at}.options: option ids must be unique`);
    }
    if (b.type === 'choice') {
      const optionIds = b.options.map((o) => o.id);
      // A single choice that allows as many attempts as it has options is sure to be solved by clicking through.
      if (!b.multiple && b.options.length - (b.max_attempts ?? Infinity) < 1) {
        problems.push(`${at}.max_attempts: a single choice with ${b.options.length} options needs max_attempts below ${b.options.length} (has ${b.max_attempts ?? 'no limit'}), or clicking through every option is sure to be right`);
      }
      if (b.options.every((o) => o.fixed)) problems.push(`${at}.options: every option is fixed; leave at least two free to shuffle`);
      if (new Set(optionIds).size !== optionIds.length) problems.push(`${at}.options: option ids must be unique`);
      if (!!b.answer === !!b.answer_from) problems.push(`${at}: needs exactly one of answer, answer_from`);
      for (const a of b.answer ?? []) {
        if (!optionIds.includes(a)) problems.push(`${at}.answer: "${a}" is not one of the options (${optionIds.join(', ')})`);
      }
      if (b.answer && !b.multiple && b.answer.length !== 1) problems.push(`${at}.answer: a single-choice question needs exactly one answer`);
      if (b.answer_from && b.answer_from.pairs_leaving) {
        b.options.forEach((o, j) => {
          if (!/^(p\d+|none)$/.test(o.id)) problems.push(`${at}.options[${j}].id: with pairs_leaving, ids name a RoPE pair as pI (e.g. p0) or are none, got "${o.id}"`);
        });
        if (!b.multiple) problems.push(`${at}.multiple: answer_from needs multiple: true`);
      } else if (b.answer_from && b.answer_from.extend_run) {
        // The key is the core's run for the learner's seeds (lab.runSeeds): the run widget and its seed sets must be there.
        const methods = b.answer_from.extend_run.args?.methods ?? ['none', 'pi', 'ntk', 'yarn'];
        b.options.forEach((o, j) => {
          const m = /^method-(.+)$/.exec(o.id);
          if (o.id !== 'none' && !(m && methods.includes(m[1]))) problems.push(`${at}.options[${j}].id: with extend_run, ids name a method of the run as method-M (M one of ${methods.join(', ')}) or are none, got "${o.id}"`);
        });
        if (!b.multiple) problems.push(`${at}.multiple: answer_from needs multiple: true`);
        if (b.answer_from.extend_run.seeds !== '$runSeeds') problems.push(`${at}.answer_from.extend_run.seeds: must be $runSeeds (the seeds of the learner's run)`);
        if (!ex.blocks.some((x) => x.type === 'rope-extend-run')) problems.push(`${at}.answer_from.extend_run: the exercise has no rope-extend-run widget to make the run`);
        if (!Array.isArray(ex.lab?.run_seeds) || !ex.lab.run_seeds.length) problems.push(`${at}.answer_from.extend_run: the exercise needs lab.run_seeds, the seed sets a run may use`);
      } else if (b.answer_from) {
        const w = b.answer_from.swaps_changing.widget;
        if (typeOfId(w) !== 'swaps') problems.push(`${at}.answer_from.swaps_changing.widget: "${w}" is not the id of a swaps widget`);
        b.options.forEach((o, j) => {
          if (!/^s\d+-\d+$/.test(o.id)) problems.push(`${at}.options[${j}].id: with answer_from, ids name a swap as sA-B (e.g. s1-3), got "${o.id}"`);
        });
        if (!b.multiple) problems.push(`${at}.multiple: answer_from needs multiple: true`);
      }
    }
    if (b.type === 'numeric') {
      (b.mistakes ?? []).forEach((m, j) => {
        if (m.expect.length !== b.fields.length) problems.push(`${at}.mistakes[${j}].expect: has ${m.expect.length} entries, the question has ${b.fields.length} fields`);
      });
    }
    if (b.type === 'swaps') {
      b.swaps.forEach(([a, c], j) => {
        if (a === c) problems.push(`${at}.swaps[${j}]: a swap needs two different positions, got [${a}, ${c}]`);
      });
    }
    if (b.type === 'extrapolate' && b.prediction) {
      const p = ids.has(b.prediction) ? ex.blocks[ids.get(b.prediction)] : null;
      if (p?.type !== 'prediction') problems.push(`${at}.prediction: "${b.prediction}" is not the id of a prediction question in this file`);
      else {
        const missing = (b.schemes ?? ['learned', 'sinusoidal', 'rope', 'alibi', 'none']).filter((sc) => !p.options.some((o) => o.id === sc));
        if (missing.length) problems.push(`${at}.prediction: its options must be the schemes trained (option ids ${missing.join(', ')} are missing), so that every scheme can be predicted`);
      }
    }
    // A widget that answers questions opens once they are settled: they must be questions of this file that can be settled.
    (b.reveal_after ?? []).forEach((id, j) => {
      if (!['numeric', 'choice'].includes(typeOfId(id))) problems.push(`${at}.reveal_after[${j}]: "${id}" is not the id of a numeric or choice question in this file`);
    });
    if (b.type === 'vectors' && b.labels.length !== b.vectors.length) {
      problems.push(`${at}.labels: ${b.labels.length} labels for ${b.vectors.length} vectors`);
    }
  });
  // Presenter mode: a step shows one widget of this file, or the discussion questions.
  const p = ex.presenter;
  if (p) {
    if (!!p.visual === !!p.questions) problems.push(`presenter: needs exactly one of visual, questions`);
    if (p.visual && !WIDGETS.has(typeOfId(p.visual))) problems.push(`presenter.visual: "${p.visual}" is not the id of a widget in this file`);
    (p.questions ?? []).forEach((id, j) => {
      if (typeOfId(id) !== 'choice') problems.push(`presenter.questions[${j}]: "${id}" is not the id of a choice question in this file`);
    });
    if (p.questions && (p.formula || p.controls)) problems.push(`presenter: formula and controls go with a visual, not with questions`);
  }
  return problems;
}

export function loadExercises(dir) {
  const schemaText = readFileSync(join(dir, 'exercise.schema.json'), 'utf8');
  const twice = duplicateKeys(schemaText);
  if (twice.length) {
    throw new Error(`exercises/exercise.schema.json: ${twice.map((d) => `line ${d.line}: "${d.key}" is defined twice in one object (only the last would count)`).join('; ')}`);
  }
  const schema = JSON.parse(schemaText);
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
  const problems = [];
  const exercises = [];
  for (const file of files) {
    let data;
    try {
      data = load(readFileSync(join(dir, file), 'utf8'));
    } catch (e) {
      problems.push(`exercises/${file}: not valid YAML: ${e.message.split('\n')[0]}`);
      continue;
    }
    const errors = validate(data, schema);
    if (errors.length) {
      for (const { path, message } of errors) problems.push(`exercises/${file}: ${path}: ${message}`);
      continue;
    }
    for (const p of crossCheck(data)) problems.push(`exercises/${file}: ${p}`);
    exercises.push({ ...data, file });
  }
  const seen = new Map();
  for (const ex of exercises) {
    if (ex.presenter) {
      const k = `presenter.step:${ex.presenter.step}`;
      if (seen.has(k)) problems.push(`exercises/${ex.file}: presenter.step: ${ex.presenter.step} is also used by exercises/${seen.get(k)}`);
      else seen.set(k, ex.file);
    }
    for (const key of ['id', 'order']) {
      const k = `${key}:${ex[key]}`;
      if (seen.has(k)) problems.push(`exercises/${ex.file}: ${key}: ${JSON.stringify(ex[key])} is also used by exercises/${seen.get(k)}`);
      else seen.set(k, ex.file);
    }
  }
  if (!files.length) problems.push(`exercises/: no .yaml files`);
  if (problems.length) throw new Error(`invalid exercise file(s):\n  ${problems.join('\n  ')}`);
  return exercises.sort((a, b) => a.order - b.order);
}
