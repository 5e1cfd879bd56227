// The page's one hook into an LMS: createLmsReporter() is called once the
// grading session exists. It does anything only when the launch URL says
// lms=scorm12|scorm2004|cmi5 (what the packages of scripts/package.mjs set),
// and then only if the LMS is there; otherwise it returns null and the lab
// works as without an LMS. exercise= in the launch URL makes the package's
// scope that one exercise (a per-exercise SCO/AU), else the whole path.
import { callCore } from '../grading/session.js';
import { variantFor } from '../grading/learner.js';
import { connectScorm, SUSPEND_LIMITS } from './scorm.js';
import { connectCmi5 } from './cmi5.js';
import { createProgress, buildSuspendData, parseSuspendData, unpackAttempts } from './progress.js';
import { lmsText } from './strings.js';
import { responseText } from '../grading/embed-bridge.js';

export const LMS_KINDS = ['scorm12', 'scorm2004', 'cmi5'];
// The passing share when the LMS gives none (the packages' manifests say 0.8 too).
export const DEFAULT_MASTERY = 0.8;
const KIND_NAMES = { scorm12: 'SCORM 1.2', scorm2004: 'SCORM 2004', cmi5: 'cmi5' };

export function lmsParams(href) {
  try {
    const u = new URL(href);
    const kind = u.searchParams.get('lms');
    return { kind: LMS_KINDS.includes(kind) ? kind : null, exercise: u.searchParams.get('exercise') };
  } catch {
    return { kind: null, exercise: null };
  }
}

const QUESTION_TYPES = new Set(['numeric', 'choice', 'task']);

/**
 * @param {object} o
 * @param {object} o.session    createGradingSession() (its onResult)
 * @param {object} o.core       the core client (gradeExercise, variant)
 * @param {object} o.learner    createLearner()
 * @param {object} o.store      createAttemptStore()
 * @param {object[]} o.exercises  the exercise files (as the core grades them)
 * @param {() => string} [o.lang]
 * @param {Window} [o.window]
 * Resolves to null outside an LMS package.
 */
export async function createLmsReporter({ session, core, learner, store, exercises, lang = () => 'ja', window: win = globalThis }) {
  const { kind, exercise: only } = lmsParams(win.location?.href ?? '');
  if (!kind) return null;
  const inScope = exercises.filter((e) => (only ? e.id === only : true));
  if (inScope.length === 0) return null;

  let lms;
  try {
    lms = kind === 'cmi5' ? await connectCmi5({ href: win.location.href }) : connectScorm({ version: kind, window: win });
  } catch (e) {
    console.warn('LMS: not connected:', e.message);
    showBar(win, lang, { kind, error: e.message });
    return null;
  }
  if (!lms) return null;
  if (kind !== 'cmi5' && !lms.initialize()) return null;

  // The LMS's learner id seeds the variants (a URL learner= still wins).
  const lmsLearner = lms.learnerId();
  if (lmsLearner) {
    try {
      learner.setFromHost(lmsLearner);
    } catch (e) {
      console.warn('LMS: learner id not usable:', e.message);
    }
  }

  const scope = [];
  for (const ex of inScope) {
    const g = await callCore(core, 'gradeExercise', { exercise: ex, seed: 0, attempts: [] });
    scope.push({ id: ex.id, max: g.max, questions: g.questions.map((q) => q.id) });
  }
  const mastery = (kind === 'cmi5' ? lms.masteryScore : lms.mastery()) ?? DEFAULT_MASTERY;
  const progress = createProgress({ scope, mastery });
  const taskQuestions = new Set(inScope.flatMap((e) => e.blocks.filter((b) => b.type === 'task').map((b) => b.id)));

  // SCORM: resume from suspend_data (attempts for a device that has none, the interaction indexes).
  let interactions = [];
  if (kind !== 'cmi5') {
    const saved = parseSuspendData(lms.suspendData());
    if (saved) {
      interactions = saved.interactions;
      progress.restore(saved.summary);
      if (learner.id) {
        for (const [id, r] of Object.entries(saved.records)) {
          if (!progress.has(id) || typeof r?.h !== 'string') continue;
          const ref = { learner: learner.id, id, contentHash: r.h };
          if ((store.record(ref)?.attempts.length ?? 0) > 0) continue;
          store.merge({ ...ref, attempts: unpackAttempts(r.a, saved.base) });
        }
      }
    }
  }
  // What the kept attempts are worth now (the core re-grades them).
  if (learner.id) {
    for (const ex of inScope) {
      const v = await variantFor(core, ex, learner.id);
      const attempts = store.attempts({ learner: learner.id, id: ex.id, contentHash: v.contentHash });
      if (!attempts.length) continue;
      try {
        progress.apply(ex.id, await callCore(core, 'gradeExercise', { exercise: ex, seed: v.seed, attempts }));
      } catch (e) {
        // Kept attempts the core cannot grade here (an imported task attempt
        // without its lab settings): the page must still start; the exercise
        // page says so, and the instructor's grader decides.
        console.warn(`LMS: the kept attempts of ${ex.id} could not be re-graded: ${e.message}`);
      }
    }
  }

  const suspendText = () => {
    const records = [];
    for (const s of scope) {
      const latest = store
        .records({ learner: learner.id ?? undefined })
        .filter((r) => r.id === s.id)
        .sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)))[0];
      if (latest) records.push(latest);
    }
    const built = buildSuspendData({ summary: progress.summary(), interactions, records, limit: SUSPEND_LIMITS[kind], taskQuestions });
    if (!built) console.warn('LMS: suspend_data does not fit even without attempts; not written');
    else if (built.omitted.length) console.warn(`LMS: suspend_data holds no attempts of ${built.omitted.join(', ')} (limit ${SUSPEND_LIMITS[kind]})`);
    return built?.text ?? null;
  };

  const reporter = {
    kind,
    lms,
    progress,
    scope: scope.map((s) => s.id),
    finished: false,
    async finish({ keepalive = false } = {}) {
      if (reporter.finished) return;
      reporter.finished = true;
      if (kind === 'cmi5') await lms.finish({ keepalive });
      else lms.finish({ complete: progress.complete });
      bar.done();
      // cmi5: back to the LMS when it gave a returnURL (not on pagehide: the page is already going).
      const back = kind === 'cmi5' && !keepalive ? lms.launchData.returnURL : null;
      if (back) win.location.assign(back);
    },
  };

  // Browse and review launches show the lab but record nothing.
  const recording = kind === 'cmi5' ? lms.launchMode === 'Normal' : lms.mode() === 'normal';
  session.onResult(async (e) => {
    if (reporter.finished || !recording || !progress.apply(e.exercise.id, e.grade)) return;
    if (kind === 'cmi5') {
      // Queued in order; the student's feedback does not wait for the LRS.
      lms.report(progress, { exerciseId: e.exercise.id, questionId: e.questionId, type: e.type, response: responseText(e.answer), points: e.question?.points ?? 0, max: e.question?.max ?? 0, solved: !!e.question?.solved });
      return;
    }
    const key = `${e.exercise.id}/${e.questionId}`;
    // An LMS that kept fewer interactions than suspend_data names: only its own are there to update.
    const count = lms.interactionCount();
    if (count < interactions.length && interactions.indexOf(key) >= count) interactions = interactions.slice(0, count);
    let index = interactions.indexOf(key);
    if (index < 0) index = interactions.push(key) - 1;
    const weight = e.question?.max;
    lms.report(progress, { index, exerciseId: e.exercise.id, questionId: e.questionId, type: QUESTION_TYPES.has(e.type) ? e.type : 'task', answer: e.answer, solved: !!e.question?.solved, weight }, suspendText());
  });

  if (kind === 'cmi5') await lms.initialize();
  const bar = showBar(win, lang, { kind, onFinish: () => reporter.finish() });
  // Leaving the page ends the session (Finish / terminated); it never sets a status.
  win.addEventListener('pagehide', () => reporter.finish({ keepalive: true }));
  return reporter;
}

// A small bar at the foot of the page: what is connected, and the Finish button.
function showBar(win, lang, { kind, onFinish, error }) {
  const doc = win.document;
  const bar = doc.createElement('div');
  bar.className = 'lms-bar';
  bar.setAttribute('role', 'region');
  bar.setAttribute('aria-label', KIND_NAMES[kind]);
  Object.assign(bar.style, { display: 'flex', gap: '1em', alignItems: 'center', justifyContent: 'space-between', padding: '0.5em 1em', borderTop: '1px solid #8888', margin: '1em 0 0' });
  const status = doc.createElement('span');
  status.className = 'lms-status';
  status.setAttribute('role', 'status');
  status.textContent = error ? lmsText('lms.failed', lang(), { message: error }) : lmsText('lms.connected', lang(), { kind: KIND_NAMES[kind] });
  bar.append(status);
  let button = null;
  if (onFinish) {
    button = doc.createElement('button');
    button.type = 'button';
    button.className = 'lms-finish';
    button.textContent = lmsText('lms.finish', lang());
    button.addEventListener('click', () => onFinish());
    bar.append(button);
  }
  doc.body.append(bar);
  return {
    done() {
      status.textContent = lmsText('lms.finished', lang());
      if (button) button.disabled = true;
    },
  };
}
