// What the LMS adapters report, in one model shared by SCORM 1.2, SCORM 2004
// and cmi5: the scores of the exercises in the package's scope (one exercise
// for a per-exercise SCO/AU, every exercise for the whole path), the
// questions answered, and the learner's attempts for resuming on another
// device (suspend_data). Every number comes from the core's grade (the
// grading session's onResult events); this file only adds them up.

// Points → the 0–100 scale LMSs grade from (Moodle reads score.raw and does
// not scale by max), two decimals, as SCORM's CMIDecimal allows.
export function percent(points, max) {
  if (!Number.isFinite(points) || !Number.isFinite(max) || max <= 0 || points < 0 || points > max) throw new RangeError(`LMS score: points must be from 0 to max (> 0), got ${points} of ${max}`);
  return Math.round((points / max) * 10000) / 100;
}

/**
 * @param {object} o
 * @param {{id: string, max: number, questions: string[]}[]} o.scope  the exercises this package reports:
 *   id, the core's max points (gradeExercise with no attempts) and question ids
 * @param {number} o.mastery  the passing share of the points, 0–1
 */
export function createProgress({ scope, mastery }) {
  if (!Array.isArray(scope) || scope.length === 0) throw new RangeError('LMS progress: the scope must name at least one exercise');
  if (!(mastery >= 0 && mastery <= 1)) throw new RangeError(`LMS progress: mastery must be from 0 to 1, got ${mastery}`);
  const byId = new Map(scope.map((s) => [s.id, { ...s, points: 0, answered: new Set(), solved: new Set() }]));
  const totalMax = scope.reduce((a, s) => a + s.max, 0);

  const progress = {
    mastery,
    has(id) {
      return byId.has(id);
    },
    // Any question answered (graded) at all: the learner has done real work.
    get started() {
      for (const s of byId.values()) if (s.answered.size) return true;
      return false;
    },
    // Every question of the scope has a graded answer.
    get complete() {
      for (const s of byId.values()) for (const q of s.questions) if (!s.answered.has(q)) return false;
      return true;
    },
    get points() {
      let p = 0;
      for (const s of byId.values()) p += s.points;
      return p;
    },
    get max() {
      return totalMax;
    },
    get raw() {
      return percent(progress.points, totalMax);
    },
    get scaled() {
      return Math.round((progress.points / totalMax) * 10000) / 10000;
    },
    // 'passed' once the points reach the mastery share, 'failed' when every
    // question is answered and they do not, otherwise 'unknown'.
    get success() {
      if (progress.points / totalMax >= mastery - 1e-12) return 'passed';
      return progress.complete ? 'failed' : 'unknown';
    },
    /** One graded attempt: grade is the core's gradeExercise after it. Returns false outside the scope. */
    apply(exerciseId, grade) {
      const s = byId.get(exerciseId);
      if (!s) return false;
      s.points = grade.points;
      for (const q of grade.questions) {
        if (q.attempts > 0) s.answered.add(q.id);
        if (q.solved) s.solved.add(q.id);
      }
      return true;
    },
    // The summary kept in suspend_data: {id: [points, answered ids, solved ids]}.
    summary() {
      const out = {};
      for (const s of byId.values()) if (s.answered.size) out[s.id] = [s.points, [...s.answered], [...s.solved]];
      return out;
    },
    restore(summary) {
      for (const [id, v] of Object.entries(summary ?? {})) {
        const s = byId.get(id);
        if (!s || !Array.isArray(v)) continue;
        const [points, answered, solved] = v;
        if (Number.isFinite(points) && points >= 0 && points <= s.max) s.points = points;
        for (const q of answered ?? []) if (s.questions.includes(q)) s.answered.add(q);
        for (const q of solved ?? []) if (s.questions.includes(q)) s.solved.add(q);
      }
    },
  };
  return progress;
}

// suspend_data: the summary, the interaction indexes, and the attempts (for
// a device whose localStorage has none), as compact JSON. When it does not
// fit the limit, it is compacted step by step; what cannot fit is left out,
// never cut mid-way, and the result is checked before it is written.
//   {v: 1, s: summary, i: [interaction keys], b: base time (s), x: {id: {h, a: [[q, answer, t, lab?, lang?]]}}}
export const SUSPEND_VERSION = 1;

function packAttempts(attempts, base, { keepLab }) {
  return attempts.map((a) => {
    const t = Math.max(0, Math.round((Date.parse(a.time ?? 0) || base * 1000) / 1000 - base));
    const row = [a.question, a.answer, t];
    const lab = a.lab && Object.keys(a.lab).length && keepLab(a) ? a.lab : 0;
    if (a.lang === 'en') row.push(lab, 'en');
    else if (lab) row.push(lab);
    return row;
  });
}

export function unpackAttempts(rows, base) {
  const out = [];
  for (const r of Array.isArray(rows) ? rows : []) {
    if (!Array.isArray(r) || typeof r[0] !== 'string') continue;
    const lab = r[3] && typeof r[3] === 'object' ? r[3] : {};
    const lang = r[4] === 'en' ? 'en' : 'ja';
    out.push({ question: r[0], answer: r[1], lab, lang, time: new Date((base + (Number(r[2]) || 0)) * 1000).toISOString() });
  }
  return out;
}

/**
 * The suspend_data text within `limit` characters, or null if not even the
 * summary fits. records: [{id, contentHash, attempts, updatedAt}] (the store's,
 * for the exercises in scope); taskQuestions: question ids whose answer is
 * the lab settings (their `lab` is kept longest).
 */
export function buildSuspendData({ summary, interactions, records, limit, taskQuestions = new Set() }) {
  const times = records.flatMap((r) => r.attempts.map((a) => Date.parse(a.time ?? '') || 0)).filter((t) => t > 0);
  const base = times.length ? Math.floor(Math.min(...times) / 1000) : 0;
  const attempt = (keepLab, omit) => {
    const x = {};
    for (const r of records) if (!omit.has(r.id) && r.attempts.length) x[r.id] = { h: r.contentHash, a: packAttempts(r.attempts, base, { keepLab }) };
    return JSON.stringify({ v: SUSPEND_VERSION, s: summary, i: interactions, b: base, x });
  };
  const omit = new Set();
  let text = attempt(() => true, omit);
  if (text.length <= limit) return { text, omitted: [] };
  const taskOnly = (a) => taskQuestions.has(a.question);
  text = attempt(taskOnly, omit);
  // Oldest exercises first: the newest work is the likeliest to be resumed.
  const order = [...records].sort((a, b) => String(a.updatedAt).localeCompare(String(b.updatedAt)));
  for (const r of order) {
    if (text.length <= limit) break;
    omit.add(r.id);
    text = attempt(taskOnly, omit);
  }
  if (text.length > limit) return null;
  return { text, omitted: [...omit] };
}

export function parseSuspendData(text) {
  if (typeof text !== 'string' || text === '') return null;
  try {
    const d = JSON.parse(text);
    if (!d || d.v !== SUSPEND_VERSION) return null;
    return { summary: d.s ?? {}, interactions: Array.isArray(d.i) ? d.i.map(String) : [], base: Number(d.b) || 0, records: d.x && typeof d.x === 'object' ? d.x : {} };
  } catch {
    return null;
  }
}
