// The class results page's arithmetic, over the rows the core's re-grade
// (gradeSubmission, the same function as `poslab grade`) returned for each
// file. No DOM here: tests/web and the e2e test check it against numbers
// worked out on their own.
//
// Conventions (README "The class results page"):
// - a learner's total is the sum of the points of their graded rows (as
//   `poslab grade`'s CSV); a learner whose exercise is graded in several
//   files counts its best grade once (flag several_files:N); the class
//   maximum is the sum of every exercise's max;
// - a question's statistics cover the learners with a graded row for its
//   exercise (a question not attempted there scores 0); an explanation
//   (max 0) has none;
// - facility: mean of points/max; full credit: points = max; attempts to
//   correct: mean over the learners who got it right of the counted attempts
//   up to the first right one;
// - discrimination: mean facility of the upper 27% by total minus that of the
//   lower 27% (at least one learner each; ties in file order); unreliable
//   below 50 learners; flags: too easy > 0.9, too hard < 0.3, not
//   discriminating < 0.2.

export const UNRELIABLE_BELOW = 50;
export const GROUP_SHARE = 0.27;
export const FLAG = { easy: 0.9, hard: 0.3, discrimination: 0.2 };

// mean, median and sample standard deviation (n − 1; 0 for one value).
export function describe(values) {
  const n = values.length;
  if (!n) return { n: 0, mean: null, median: null, sd: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sorted = [...values].sort((a, b) => a - b);
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const sd = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  return { n, mean, median, sd };
}

// Counts of values in `bins` equal bins from 0 to max (max itself in the last).
export function histogram(values, max, bins = 10) {
  const width = max > 0 ? max / bins : 1;
  const out = Array.from({ length: bins }, (_, i) => ({ from: i * width, to: (i + 1) * width, count: 0 }));
  for (const v of values) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(v / width)));
    out[i].count += 1;
  }
  return out;
}

// The span between a submission's first and last attempt, in minutes (null without times).
export function minutesSpent(submission) {
  let lo = Infinity;
  let hi = -Infinity;
  const entries = submission && Array.isArray(submission.exercises) ? submission.exercises : [];
  for (const e of entries) {
    for (const a of Array.isArray(e?.attempts) ? e.attempts : []) {
      const t = typeof a?.time === 'string' ? Date.parse(a.time) : NaN;
      if (Number.isFinite(t)) {
        lo = Math.min(lo, t);
        hi = Math.max(hi, t);
      }
    }
  }
  return Number.isFinite(lo) ? (hi - lo) / 60000 : null;
}

/**
 * @param {{file: string, rows: object[], minutes?: number|null}[]} files  each file's rows from gradeSubmission
 * @param {{id: string, title?: object}[]} exercises  the lab's exercises, in order
 */
export function analyse(files, exercises) {
  const exerciseIds = exercises.map((e) => e.id);
  const exMax = new Map();
  const questionInfo = new Map(); // key exercise/question → {exercise, question, type, max}
  const learners = new Map();
  const fileStatus = [];
  for (const f of files) {
    const statuses = new Set(f.rows.map((r) => r.status));
    const flags = f.rows.flatMap((r) => r.flags ?? []);
    fileStatus.push({ file: f.file, learner: f.rows.find((r) => r.learner)?.learner ?? '', statuses: [...statuses], flags, rows: f.rows });
    for (const r of f.rows) {
      if (!r.learner) continue;
      if (!learners.has(r.learner)) {
        learners.set(r.learner, { learner: r.learner, files: [], total: 0, perExercise: {}, questions: {}, statuses: new Set(), flags: [], minutes: null, codeRuns: {}, order: learners.size });
      }
      const L = learners.get(r.learner);
      if (!L.files.includes(f.file)) {
        L.files.push(f.file);
        if (f.minutes != null) L.minutes = (L.minutes ?? 0) + f.minutes;
      }
      // How the row's counted code attempts ended (the core's codeRuns: re-run statuses, not_rerun(reason)).
      for (const [q, tally] of Object.entries(r.codeRuns ?? {})) {
        const into = (L.codeRuns[`${r.exercise}/${q}`] ??= {});
        for (const [s, n] of Object.entries(tally)) into[s] = (into[s] ?? 0) + n;
      }
      L.statuses.add(r.status);
      L.flags.push(...(r.flags ?? []));
      if (r.claimedDiffers === true) L.flags.push(`claimed_differs:${r.exercise}`);
      if (r.status !== 'graded') continue;
      exMax.set(r.exercise, r.max);
      // One learner's exercise in several files (handed in twice): the better
      // grade counts, once, and the learner is flagged several_files.
      if (L.perExercise[r.exercise] !== undefined && L.perExercise[r.exercise] >= r.points) continue;
      L.perExercise[r.exercise] = r.points;
      for (const q of r.questions ?? []) {
        const key = `${r.exercise}/${q.id}`;
        if (!questionInfo.has(key)) questionInfo.set(key, { key, exercise: r.exercise, question: q.id, type: q.type, max: q.max });
        L.questions[key] = q;
      }
    }
  }
  for (const L of learners.values()) {
    L.total = Object.values(L.perExercise).reduce((a, b) => a + b, 0);
    if (L.files.length > 1) L.flags.push(`several_files:${L.files.length}`);
  }
  // Learners with no graded row keep their files' statuses; the class maximum counts every exercise seen.
  const maxTotal = exerciseIds.reduce((a, id) => a + (exMax.get(id) ?? 0), 0);
  const roster = [...learners.values()].map((L) => {
    const scorable = Object.values(L.questions).filter((q) => q.max > 0);
    const allScorable = [...questionInfo.values()].filter((q) => q.max > 0).length;
    return {
      learner: L.learner,
      files: L.files,
      total: L.total,
      max: maxTotal,
      perExercise: L.perExercise,
      completion: allScorable ? scorable.filter((q) => q.solved).length / allScorable : 0,
      minutes: L.minutes,
      statuses: [...L.statuses],
      flags: L.flags,
      codeRuns: L.codeRuns,
      questions: L.questions,
      order: L.order,
    };
  });

  const items = [];
  const byTotal = [...roster].sort((a, b) => b.total - a.total || a.order - b.order);
  for (const exId of exerciseIds) {
    for (const info of [...questionInfo.values()].filter((q) => q.exercise === exId)) {
      if (!(info.max > 0)) continue;
      const takers = byTotal.filter((L) => L.perExercise[exId] !== undefined);
      const frac = (L) => {
        const q = L.questions[info.key];
        return q ? q.points / q.max : 0;
      };
      const n = takers.length;
      const scores = takers.map(frac);
      const facility = n ? scores.reduce((a, b) => a + b, 0) / n : null;
      const full = n ? takers.filter((L) => (L.questions[info.key]?.points ?? 0) >= info.max - 1e-9).length / n : null;
      const toCorrect = takers.map((L) => L.questions[info.key]?.attemptsToCorrect).filter((v) => Number.isFinite(v));
      const g = Math.max(1, Math.round(GROUP_SHARE * n));
      let discrimination = null;
      if (n >= 2) {
        const upper = takers.slice(0, g).map(frac);
        const lower = takers.slice(n - g).map(frac);
        discrimination = upper.reduce((a, b) => a + b, 0) / upper.length - lower.reduce((a, b) => a + b, 0) / lower.length;
      }
      const flags = [];
      if (facility != null && facility > FLAG.easy) flags.push('too_easy');
      if (facility != null && facility < FLAG.hard) flags.push('too_hard');
      if (discrimination != null && discrimination < FLAG.discrimination) flags.push('not_discriminating');
      // A prediction the learner could no longer make: training came first (the core's ranBeforePrediction).
      const ranFirst = takers.filter((L) => L.questions[info.key]?.ranBeforePrediction === true).length;
      if (ranFirst) flags.push('ran_first');
      items.push({
        key: info.key,
        exercise: exId,
        question: info.question,
        type: info.type,
        max: info.max,
        n,
        facility,
        fullCredit: full,
        attemptsToCorrect: toCorrect.length ? toCorrect.reduce((a, b) => a + b, 0) / toCorrect.length : null,
        discrimination,
        unreliable: n < UNRELIABLE_BELOW,
        ranFirst,
        flags,
      });
    }
  }

  // Wrong answers, grouped per question by the named mistake the core matched.
  const mistakes = [];
  const explanations = [];
  for (const info of questionInfo.values()) {
    const groups = new Map();
    const texts = [];
    for (const L of roster) {
      const q = L.questions[info.key];
      if (!q) continue;
      for (const w of q.wrong ?? []) {
        const id = w.mistake ? w.mistake.id : '';
        if (!groups.has(id)) groups.set(id, { id, feedback: w.mistake?.feedback ?? null, count: 0, learners: [] });
        const grp = groups.get(id);
        grp.count += 1;
        if (!grp.learners.includes(L.learner)) grp.learners.push(L.learner);
      }
      if (info.type === 'explain' && typeof q.response === 'string' && q.response.trim()) texts.push({ learner: L.learner, text: q.response });
    }
    if (groups.size) {
      const list = [...groups.values()].sort((a, b) => (a.id === '') - (b.id === '') || b.count - a.count || a.id.localeCompare(b.id));
      mistakes.push({ key: info.key, exercise: info.exercise, question: info.question, groups: list });
    }
    if (texts.length) explanations.push({ key: info.key, exercise: info.exercise, question: info.question, texts });
  }

  const perExercise = exerciseIds
    .filter((id) => exMax.has(id))
    .map((id) => {
      const values = roster.filter((L) => L.perExercise[id] !== undefined).map((L) => L.perExercise[id]);
      return { exercise: id, max: exMax.get(id), values, stats: describe(values) };
    });
  const totals = roster.map((L) => L.total);
  return {
    files: fileStatus,
    roster,
    maxTotal,
    overall: { values: totals, stats: describe(totals), max: maxTotal },
    perExercise,
    items,
    mistakes,
    explanations,
    unreliable: roster.length < UNRELIABLE_BELOW,
  };
}

// A mistake's feedback as plain text: the exercise files write math as TeX
// ($\sqrt{d_k}$), which this page (no KaTeX) shows in its plain form (√d_k).
export function plainTex(text) {
  return String(text)
    .replace(/\\sqrt\{([^{}]*)\}/g, '√$1')
    .replace(/\\approx/g, '≈')
    .replace(/\\cdot/g, '·')
    .replace(/\\times/g, '×')
    .replace(/\\to/g, '→')
    .replace(/\\(?:mathrm|text|mathbf)\{([^{}]*)\}/g, '$1')
    .replace(/\^\{([^{}]*)\}/g, '^$1')
    .replace(/_\{([^{}]*)\}/g, '_$1')
    .replace(/\$/g, '');
}

// A learner's code runs as grade-code.mjs's code_runs column says them, with the exercise:
// "exercise/question:status=n+status=n;…" (empty without code attempts).
export function codeRunsText(codeRuns) {
  return Object.entries(codeRuns ?? {})
    .filter(([, tally]) => Object.keys(tally).length)
    .map(([key, tally]) => `${key}:${Object.entries(tally).map(([s, n]) => `${s}=${n}`).join('+')}`)
    .join(';');
}

// The roster and the item table as rows of cells, for the core's CSV writer
// (wasm csvTable, the cells poslab grade writes).
export function rosterTable(result, exerciseIds) {
  const head = ['learner', 'total', 'max', ...exerciseIds, 'completion', 'minutes', 'status', 'flags', 'code_runs', 'files'];
  const rows = result.roster.map((L) => [
    L.learner,
    L.total,
    L.max,
    ...exerciseIds.map((id) => (L.perExercise[id] === undefined ? '' : L.perExercise[id])),
    L.completion,
    L.minutes == null ? '' : L.minutes,
    L.statuses.join(';'),
    L.flags.join(';'),
    codeRunsText(L.codeRuns),
    L.files.join(';'),
  ]);
  return [head, ...rows];
}

export function itemsTable(result) {
  const head = ['exercise', 'question', 'type', 'max', 'learners', 'facility', 'full_credit', 'mean_attempts_to_correct', 'discrimination', 'unreliable', 'flags'];
  const rows = result.items.map((i) => [i.exercise, i.question, i.type, i.max, i.n, i.facility ?? '', i.fullCredit ?? '', i.attemptsToCorrect ?? '', i.discrimination ?? '', i.unreliable ? 'yes' : 'no', i.flags.map((f) => (f === 'ran_first' ? `ran_first:${i.ranFirst}` : f)).join(';')]);
  return [head, ...rows];
}
