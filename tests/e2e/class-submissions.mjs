// A class of generated submissions, made as the lab page makes them
// (web/js/grading/submission.js's buildSubmission, the claimed score from the
// core's gradeExercise), for the results page's e2e test and its bench.
// Each learner's answers follow a plan, so the test can work out the
// expected facility and mistake counts on its own:
//   formula / property-name (credit 1, 0.5, 0.25): i%3 = 0 right at once (1);
//     1 "invariance" then right (0.5); 2 "causality" only (0)
//   hand-calc / dots-a: right (1, 0) at once
//   hand-calc / softmax-a: i%4 = 0 right (0.670, 0.330); 1 (0.731, 0.269)
//     (no √d_k: mistake-1) then right; 2 (0.622, 0.378) (divided by d_k:
//     mistake-2) only; 3 (0.5, 0.5) (no named mistake) only
//   check / q1-why: an explanation from every fifth learner (i%5 = 0)
// Learner OLD (the last) answered hand-calc in an older version of the
// exercise (hash_mismatch); learner TAMPERED raised the claimed points and
// edited the seed.
import { buildSubmission, submissionText } from '../../web/js/grading/submission.js';

export const plan = {
  property: (i) => (i % 3 === 0 ? [['equivariance']] : i % 3 === 1 ? [['invariance'], ['equivariance']] : [['causality']]),
  dots: () => [['1', '0']],
  // check / q1-why (explain, never scored): learners with i%5 = 0 write one.
  explanation: (i) => `並べ替えても出力は同じように並べ替わるだけなので、順序を区別できません（${i}）。`,
  softmax: (i) => [[['0.670', '0.330']], [['0.731', '0.269'], ['0.670', '0.330']], [['0.622', '0.378']], [['0.5', '0.5']]][i % 4],
};

// The exercise as its file says it: the loader adds `file`, which the core
// must not hash (web/js/runner.js's exerciseData).
export const exerciseData = ({ file, ...data }) => data;

export const learnerName = (i) => (i % 2 ? `受講者-${String(i).padStart(3, '0')}` : `student-${String(i).padStart(3, '0')}`);

// count learners; returns [{name, text, learner, i}] plus the two special indices.
export function makeClass(lab, exercises, count = 40) {
  const byId = Object.fromEntries(exercises.map((e) => [e.id, exerciseData(e)]));
  const formula = byId.formula;
  const hand = byId['hand-calc'];
  const hash = (ex) => lab.contentHash({ exercise: ex });
  const older = { ...hand, title: { ja: `${hand.title.ja}（旧版）`, en: `${hand.title.en} (old)` } };
  const old = count - 1;
  const tampered = count - 3;
  const files = [];
  for (let i = 0; i < count; i++) {
    const learner = learnerName(i);
    const t0 = Date.UTC(2026, 11, 1, 9, 0, 0) + i * 60000;
    let k = 0;
    const at = (question, answer) => ({ question, answer, lab: {}, lang: i % 5 ? 'ja' : 'en', time: new Date(t0 + 90000 * k++).toISOString() });
    const fAttempts = plan.property(i).map((a) => at('property-name', a));
    const hAttempts = [...plan.dots(i).map((a) => at('dots-a', a)), ...plan.softmax(i).map((a) => at('softmax-a', a))];
    const seedOf = (ex) => lab.variant({ exercise: ex, learner }).seed;
    const records = [
      { id: formula.id, contentHash: hash(formula), seed: seedOf(formula), attempts: fAttempts, ex: formula },
      { id: hand.id, contentHash: i === old ? hash(older) : hash(hand), seed: seedOf(hand), attempts: hAttempts, ex: i === old ? older : hand },
    ];
    if (i % 5 === 0) {
      const check = byId.check;
      records.push({ id: check.id, contentHash: hash(check), seed: seedOf(check), attempts: [at('q1-why', plan.explanation(i))], ex: check });
    }
    const sub = buildSubmission({
      labVersion: '0.1.0',
      learner,
      records,
      grade: (r) => lab.gradeExercise({ exercise: r.ex, seed: r.seed, attempts: r.attempts }),
      now: new Date(t0 + 3600000),
    });
    if (i === tampered) {
      sub.exercises[0].claimed.points = 99;
      sub.exercises[0].seed = 12345;
    }
    files.push({ i, learner, name: `position-lab-${String(i).padStart(3, '0')}.json`, text: submissionText(sub) });
  }
  return { files, old, tampered };
}
