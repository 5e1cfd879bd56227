// The grading flow in one place, for the runner and the question widgets:
// open an exercise (seeded variant from the core), check an answer (the core
// checks it, the store keeps it, the core re-grades the exercise, the bridge
// reports it), and the submission. Every score, seed, hash and hint here is
// the core's; this file only passes them along.
import { variantFor } from './learner.js';
import { buildSubmission, downloadSubmission, importSubmission } from './submission.js';
import { richToText } from '../rich.js';

// Answers given before a learner id is known are kept as practice, in the
// attempt store under this learner (a control character: no typed, URL or
// host id can be it), and carried into the learner's record when an id is
// set (carryPractice).
export const PRACTICE_LEARNER = '\u0000practice';

// Whether a question's values depend on the learner's variant: its block
// names a variant value ("$q" as an args value, {{q}} / {{q.0}} in text). Practice is
// done on the empty id's variant, so such an answer says nothing about the
// learner's own values: it is not carried, and the page asks for it again.
export function variantDependent(exercise, questionId) {
  const names = Object.keys(exercise?.variants ?? {});
  if (!names.length) return false;
  const block = exercise.blocks?.find((b) => b.id === questionId);
  if (!block) return false;
  const text = JSON.stringify(block);
  // A value in args is the whole string "$q" (TeX's $m$ in a prompt is not one).
  return names.some((n) => text.includes(JSON.stringify(`$${n}`)) || new RegExp(`\\{\\{${n}[.}]`).test(text));
}

// The wasm PositionLab object (core.checkAttempt(…)) or the page's core client
// (core.call('checkAttempt', …)), both awaited.
export async function callCore(core, method, args) {
  if (typeof core[method] === 'function') return core[method](args);
  return core.call(method, args);
}

/**
 * @param {object} o
 * @param {object} o.core      see callCore
 * @param {object} o.store     createAttemptStore()
 * @param {{id: string|null}} o.learner  createLearner()
 * @param {object} [o.bridge]  createEmbedBridge() (statements are sent when it is enabled)
 */
export function createGradingSession({ core, store, learner, bridge }) {
  const opened = new Map(); // exercise id → {exercise, ref, seed, variant}
  // onResult listeners (e.g. the LMS reporter, web/js/lms/): told of every graded attempt.
  const resultListeners = new Set();

  const needLearner = () => {
    if (!learner.id) throw new Error('grading session: no learner id yet (URL learner=, the host, or typed on the start page)');
    return learner.id;
  };

  // The core's grade of the kept attempts. An attempt the core cannot grade
  // here (an imported one without the lab settings its task needs, say) must
  // not take the page down: each is then tried alone, the ones the core
  // refuses are left out of the page's grade (they stay in the store and the
  // submission, for the instructor's grader), and `unusable` counts them.
  const gradeAttempts = async (exercise, seed, attempts) => {
    try {
      return { g: await callCore(core, 'gradeExercise', { exercise, seed, attempts }), unusable: 0 };
    } catch (e) {
      if (!attempts.length) throw e;
      const usable = [];
      for (const a of attempts) {
        try {
          await callCore(core, 'gradeExercise', { exercise, seed, attempts: [a] });
          usable.push(a);
        } catch {
          // Left out of the page's grade.
        }
      }
      try {
        return { g: await callCore(core, 'gradeExercise', { exercise, seed, attempts: usable }), unusable: attempts.length - usable.length };
      } catch {
        return { g: await callCore(core, 'gradeExercise', { exercise, seed, attempts: [] }), unusable: attempts.length };
      }
    }
  };
  const grade = async (o) => (await gradeAttempts(o.exercise, o.seed, store.attempts(o.ref))).g;

  // The hints the core unlocked for a question, as texts. gradeExercise gives
  // their number; unlockedHints gives texts for a number of wrong attempts;
  // the unlocked sets grow with that number, so the first count that yields
  // as many hints yields the same hints.
  const hintsFor = async (o, q) => {
    if (!q || q.hintsUnlocked === 0) return [];
    for (let wrong = 0; wrong <= q.attempts; wrong++) {
      const hints = await callCore(core, 'unlockedHints', { exercise: o.exercise, question: q.id, wrong });
      if (hints.length === q.hintsUnlocked) return hints;
    }
    return [];
  };

  const view = async (o) => {
    const { g, unusable } = await gradeAttempts(o.exercise, o.seed, store.attempts(o.ref));
    const hints = {};
    for (const q of g.questions) hints[q.id] = await hintsFor(o, q);
    const record = store.record(o.ref);
    return { contentHash: o.ref.contentHash, seed: o.seed, variant: o.variant, optionOrders: o.optionOrders, grade: g, hints, attempts: record.attempts, drafts: record.drafts, unusable };
  };

  const session = {
    /**
     * Call when an exercise is shown (and again when the learner changes).
     * Returns {contentHash, seed, variant, optionOrders, grade, hints, attempts, drafts, unusable}:
     * what the page needs to restore the exercise as it was left (unusable:
     * how many kept attempts the core could not grade here, left out of grade).
     */
    async open(exercise) {
      // Without a learner id: practice, on the empty id's variant (the same for everyone).
      const id = learner.id ?? PRACTICE_LEARNER;
      const v = learner.id ? await variantFor(core, exercise, id) : await callCore(core, 'variant', { exercise, learner: '' });
      const ref = { learner: id, id: exercise.id, contentHash: v.contentHash };
      store.open({ ...ref, seed: v.seed });
      const o = { exercise, ref, seed: v.seed, variant: v.variant, optionOrders: v.optionOrders ?? {} };
      opened.set(exercise.id, o);
      if (learner.id) bridge?.opened(exercise.id);
      return { ...(await view(o)), practice: !learner.id };
    },

    /**
     * One answer to one question. answer: numeric → the strings as typed;
     * choice → the chosen option ids; task → the lab settings it was reached
     * with. lab: the lab's current values (for `expect`s that name them).
     * Returns {result, question, grade, hints, complete, notSaved}: notSaved is
     * null when the attempt reached the Storage, else 'full' or 'unavailable'
     * (it is kept for this visit only); result is the core's
     * checkAttempt ({status, score, parts, feedback, message, expected});
     * question its grade after this attempt ({points, max, attempts, ignored,
     * solved, hintsUnlocked}); a malformed answer is kept but grades nothing
     * (question and grade are null).
     */
    async check(exercise, questionId, answer, { lab = {}, lang = 'ja' } = {}) {
      const o = opened.get(exercise.id);
      if (!o || o.ref.learner !== (learner.id ?? PRACTICE_LEARNER)) throw new Error(`grading session: open(${exercise.id}) first (or again, after the learner changed)`);
      const result = await callCore(core, 'checkAttempt', { exercise, question: questionId, answer, variant: o.variant, lab, lang });
      store.addAttempt(o.ref, { question: questionId, answer, lab, lang });
      // Whether the attempt reached the Storage: null, or why not ('full', 'unavailable').
      const notSaved = store.failure ?? null;
      if (result.status === 'malformed') return { result, question: null, grade: null, hints: [], complete: false, notSaved };
      const g = await grade(o);
      store.setClaimed(o.ref, { points: g.points, max: g.max });
      const q = g.questions.find((x) => x.id === questionId);
      const hints = await hintsFor(o, q);
      // Practice is kept, not reported: no course page hears of it.
      if (!learner.id) return { result, question: q, grade: g, hints, complete: false, notSaved };
      const block = exercise.blocks?.find((b) => b.id === questionId);
      // `answered` is about this answer (as H5P reports it): its own score and success;
      // the name is the prompt as plain text (no TeX).
      const plain = (text) => text && { ja: richToText(text.ja), en: richToText(text.en) };
      bridge?.answered({
        exercise: { id: exercise.id, title: exercise.title, contentHash: o.ref.contentHash, seed: o.seed },
        question: { id: questionId, type: block?.type, prompt: plain(block?.prompt) },
        score: { raw: result.score * q.max, max: q.max },
        success: result.status === 'correct',
        answer,
      });
      const complete = g.questions.every((x) => x.solved);
      if (complete) await session.finish(exercise, g);
      const event = { exercise, contentHash: o.ref.contentHash, seed: o.seed, questionId, type: block?.type, answer, result, question: q, grade: g, complete };
      for (const f of resultListeners) {
        try {
          await f(event);
        } catch (e) {
          // A listener's failure (an LMS that went away) must not undo the check.
          console.warn('grading session: onResult listener failed', e);
        }
      }
      return { result, question: q, grade: g, hints, complete, notSaved };
    },

    // Sends `completed` (once per exercise version): when every question is
    // solved (check() does it), or when the page decides the exercise is over.
    async finish(exercise, g) {
      const o = opened.get(exercise.id);
      if (!o) return null;
      g ??= await grade(o);
      return bridge?.completed({
        exercise: { id: exercise.id, title: exercise.title, contentHash: o.ref.contentHash, seed: o.seed },
        score: { raw: g.points, max: g.max },
        success: g.questions.every((x) => x.solved),
      }) ?? null;
    },

    /**
     * f({exercise, contentHash, seed, questionId, type, answer, result, question, grade, complete})
     * after every graded (not malformed) attempt: the core's checkAttempt
     * result, the question's and the exercise's grade after it. Returns an
     * unsubscribe function.
     */
    onResult(f) {
      resultListeners.add(f);
      return () => resultListeners.delete(f);
    },

    /**
     * Carries the practice answers (given before there was a learner id) into
     * the learner's records, then clears the practice (a reset: a backup is
     * kept). An answer is carried when its question does not depend on the
     * variant (variantDependent) and the exercise file is the one the page
     * has now (same content hash); the claimed score is re-computed by the
     * core with the learner's seed. Returns {carried, redo: [{exercise,
     * question}]}: the number of attempts carried, and the questions whose
     * practice answers were not carried (they must be answered again).
     * exercises: the page's exercise files.
     */
    async carryPractice({ exercises }) {
      const id = learner.id;
      const out = { carried: 0, redo: [] };
      if (!id) return out;
      const records = store.records({ learner: PRACTICE_LEARNER });
      // Practice records are opened on every visit; with no answer in them there is nothing to carry (or back up).
      if (!records.some((r) => r.attempts.length)) return out;
      for (const r of records) {
        const ex = exercises.find((e) => e.id === r.id);
        if (!ex || !r.attempts.length) continue;
        const v = await variantFor(core, ex, id);
        if (v.contentHash !== r.contentHash) continue; // an older file: kept in the backup only
        const keep = r.attempts.filter((a) => !variantDependent(ex, a.question));
        const redo = new Set(r.attempts.filter((a) => variantDependent(ex, a.question)).map((a) => a.question));
        for (const question of redo) out.redo.push({ exercise: ex.id, question });
        if (!keep.length) continue;
        const ref = { learner: id, id: ex.id, contentHash: v.contentHash };
        store.open({ ...ref, seed: v.seed });
        out.carried += store.merge({ ...ref, seed: v.seed, attempts: keep }).added;
        const g = await callCore(core, 'gradeExercise', { exercise: ex, seed: v.seed, attempts: store.attempts(ref) });
        store.setClaimed(ref, { points: g.points, max: g.max });
        opened.delete(ex.id);
      }
      store.reset({ learner: PRACTICE_LEARNER });
      return out;
    },

    // What is typed but not checked yet (kept on pagehide).
    draft(exercise, questionId, answer) {
      const o = opened.get(exercise.id);
      if (o) store.setDraft(o.ref, questionId, answer);
    },

    /**
     * The learner's submission: every record (every exercise version); the
     * claimed score of a current version is re-computed by the core now, an
     * old version's is the one stored when it was made.
     * exercises: the page's exercise files.
     */
    async submission({ labVersion, exercises, now = new Date() }) {
      const id = needLearner();
      const current = new Map();
      for (const ex of exercises) current.set(ex.id, ex);
      const claimed = new Map();
      const records = store.records({ learner: id });
      for (const r of records) {
        const ex = current.get(r.id);
        if (!ex || r.seed === null) continue;
        const hash = await callCore(core, 'contentHash', { exercise: ex });
        if (hash !== r.contentHash) continue;
        const { g } = await gradeAttempts(ex, r.seed, r.attempts);
        claimed.set(`${r.id}\n${r.contentHash}`, { points: g.points, max: g.max });
      }
      return buildSubmission({ labVersion, learner: id, records, grade: (r) => claimed.get(`${r.id}\n${r.contentHash}`) ?? r.claimed, now });
    },

    async download(options, env) {
      return downloadSubmission(await session.submission(options), env);
    },

    // A submission file's text: validated, then merged (throws a SubmissionError, changing nothing).
    import(text) {
      return importSubmission(store, text, { learner: needLearner() });
    },

    // Clears this learner's answers (of one exercise, or all) after a backup.
    reset({ exerciseId } = {}) {
      const r = store.reset({ learner: learner.id ?? PRACTICE_LEARNER, id: exerciseId });
      if (exerciseId) opened.delete(exerciseId);
      else opened.clear();
      return r;
    },
  };
  return session;
}
