// Progress in localStorage: per exercise, whether it was opened and each
// question's attempts. Every attempt is kept (the design's honest grading:
// the page gives formative feedback; the instructor re-grades).
const KEY = 'poslab.progress.v1';

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || '{}') || {};
  } catch {
    return {};
  }
}

let data = load();

function save() {
  try {
    localStorage.setItem(KEY, JSON.stringify(data));
  } catch {
    // Storage may be off (private mode, some file:// setups): progress then lasts for the visit.
  }
}

function entry(ex) {
  data[ex] ??= { visited: false, questions: {} };
  return data[ex];
}

export function visit(ex) {
  entry(ex).visited = true;
  save();
}

export function record(ex, question, attempt) {
  const q = (entry(ex).questions[question] ??= { correct: false, attempts: [] });
  q.attempts.push({ ...attempt, at: new Date().toISOString() });
  if (attempt.correct) q.correct = true;
  save();
}

// The answers checked for a question (without a learner id), oldest first.
export function answers(ex, question) {
  const list = data[ex]?.questions?.[question]?.attempts;
  return Array.isArray(list) ? list.map((a) => a?.answer) : [];
}

export function isCorrect(ex, question) {
  return !!data[ex]?.questions[question]?.correct;
}

// 'not_started' | 'in_progress' | 'done'
export function status(exercise) {
  const e = data[exercise.id];
  if (!e) return 'not_started';
  // A prediction counts once recorded; an explanation is optional.
  const ids = exercise.blocks.filter((b) => ['numeric', 'choice', 'task', 'prediction'].includes(b.type)).map((b) => b.id);
  if (ids.length && ids.every((id) => e.questions[id]?.correct)) return 'done';
  return e.visited || Object.keys(e.questions).length ? 'in_progress' : 'not_started';
}

export function reset() {
  data = {};
  save();
}
