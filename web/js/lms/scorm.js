// The lab as a SCORM 1.2 / 2004 SCO: scores, statuses, interactions and
// suspend_data written to the LMS's API (found by scorm-api.js), from the
// grading session's results. Statuses are set only when the learner has
// answered something (never on unload); every score change is committed at
// once (closing a tab can lose a last synchronous call); Finish/Terminate
// come from the page's button or pagehide.
import { findScormApi } from './scorm-api.js';

export const SUSPEND_LIMITS = { scorm12: 4096, scorm2004: 64000 };

const MODEL = {
  scorm12: {
    initialize: 'LMSInitialize',
    get: 'LMSGetValue',
    set: 'LMSSetValue',
    commit: 'LMSCommit',
    finish: 'LMSFinish',
    lastError: 'LMSGetLastError',
    errorString: 'LMSGetErrorString',
    learnerId: 'cmi.core.student_id',
    mastery: 'cmi.student_data.mastery_score', // 0–100 (adlcp:masteryscore)
    raw: 'cmi.core.score.raw',
    min: 'cmi.core.score.min',
    max: 'cmi.core.score.max',
    exit: 'cmi.core.exit',
    sessionTime: 'cmi.core.session_time',
    response: 'learner_response',
  },
  scorm2004: {
    initialize: 'Initialize',
    get: 'GetValue',
    set: 'SetValue',
    commit: 'Commit',
    finish: 'Terminate',
    lastError: 'GetLastError',
    errorString: 'GetErrorString',
    learnerId: 'cmi.learner_id',
    mastery: 'cmi.scaled_passing_score', // -1–1 (imsss:minNormalizedMeasure)
    raw: 'cmi.score.raw',
    min: 'cmi.score.min',
    max: 'cmi.score.max',
    exit: 'cmi.exit',
    sessionTime: 'cmi.session_time',
  },
};

const pad = (n, w = 2) => String(n).padStart(w, '0');

// SCORM 1.2 CMITimespan HHHH:MM:SS.SS / SCORM 2004 ISO 8601 PTnHnMnS.
export function scormDuration(ms, version) {
  const centis = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(centis / 360000);
  const m = Math.floor((centis % 360000) / 6000);
  const s = (centis % 6000) / 100;
  if (version === 'scorm12') return `${pad(Math.min(h, 9999), 4)}:${pad(m)}:${s.toFixed(2).padStart(5, '0')}`;
  return `PT${h}H${m}M${s.toFixed(2).replace(/\.?0+$/, '') || '0'}S`;
}

// SCORM 1.2 CMITime HH:MM:SS / SCORM 2004 time(second,10,0) YYYY-MM-DDThh:mm:ss.
function timeOf(date, version) {
  const t = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return version === 'scorm12' ? t : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${t}`;
}

// An interaction's id: SCORM 1.2 CMIIdentifier (no spaces, ≤ 255), SCORM 2004 long_identifier_type (a URN).
export function interactionId(exerciseId, questionId, version) {
  const e = encodeURIComponent(exerciseId);
  const q = encodeURIComponent(questionId);
  return version === 'scorm12' ? `${e}.${q}`.slice(0, 255) : `urn:position-lab:exercise:${e}:question:${q}`;
}

// type and response in each version's vocabulary; null when the response
// cannot be written within the data model's limits (it is then left out,
// not cut).
export function interactionResponse(type, answer, version) {
  const list = Array.isArray(answer) ? answer.map(String) : null;
  if (version === 'scorm12') {
    // CMIFeedback: ≤ 255 characters; choice: identifiers separated by commas.
    const map = { numeric: ['fill-in', list?.join(',')], choice: ['choice', list?.join(',')], task: ['performance', JSON.stringify(answer)], code: ['performance', typeof answer?.code === 'string' ? answer.code : undefined] };
    const [t, r] = map[type] ?? ['performance', JSON.stringify(answer)];
    return { type: t, response: r !== undefined && r.length <= 255 ? r : null };
  }
  // 2004: fill-in and choice are lists joined by "[,]"; a task's settings are 'other' (≤ 4000).
  // A code question's code is long-fill-in text (≤ 4000 characters).
  const map = { numeric: ['fill-in', list?.join('[,]')], choice: ['choice', list?.join('[,]')], task: ['other', JSON.stringify(answer)], code: ['long-fill-in', typeof answer?.code === 'string' ? answer.code : undefined] };
  const [t, r] = map[type] ?? ['other', JSON.stringify(answer)];
  return { type: t, response: r !== undefined && r.length <= 4000 ? r : null };
}

/**
 * @param {object} o
 * @param {'scorm12'|'scorm2004'} o.version
 * @param {Window} [o.window]
 * @param {() => Date} [o.now]
 * Returns null when no API is found (the lab then works as without an LMS).
 */
export function connectScorm({ version, window: win = globalThis, now = () => new Date() }) {
  const found = findScormApi(win, version);
  if (!found) return null;
  const api = found.api;
  const m = MODEL[version];
  const limit = SUSPEND_LIMITS[version];
  const errors = [];
  const started = now().getTime();
  let state = 'new'; // new → running → finished

  const call = (fn, ...args) => {
    let r;
    try {
      r = api[fn](...args);
    } catch (e) {
      errors.push({ fn, args, message: String(e?.message ?? e) });
      return null;
    }
    if (fn !== m.get && fn !== m.lastError && fn !== m.errorString && String(r) !== 'true') {
      let code = '';
      try {
        code = String(api[m.lastError]());
      } catch {
        // keep going
      }
      errors.push({ fn, args, code });
    }
    return r;
  };
  const set = (k, v) => String(call(m.set, k, String(v))) === 'true';
  const get = (k) => {
    const v = call(m.get, k);
    return v === null || v === undefined ? '' : String(v);
  };

  const scorm = {
    version,
    limit,
    errors,
    get running() {
      return state === 'running';
    },
    initialize() {
      if (state !== 'new') return state === 'running';
      if (String(call(m.initialize, '')) !== 'true') return false;
      state = 'running';
      return true;
    },
    learnerId() {
      return get(m.learnerId) || null;
    },
    // The passing share 0–1 the LMS was given (manifest), or null.
    mastery() {
      const v = get(m.mastery);
      if (v === '') return null;
      const n = Number(v);
      if (!Number.isFinite(n)) return null;
      return version === 'scorm12' ? n / 100 : n;
    },
    // 'normal', or 'browse'/'review' (the LMS shows the SCO without recording).
    mode() {
      return get(version === 'scorm12' ? 'cmi.core.lesson_mode' : 'cmi.mode') || 'normal';
    },
    suspendData() {
      return get('cmi.suspend_data');
    },
    /** Interaction count already kept by the LMS (2004 reads it; 1.2's is write-only in some LMSs). */
    interactionCount() {
      const n = Number(get('cmi.interactions._count'));
      return Number.isInteger(n) && n >= 0 ? n : 0;
    },
    /**
     * Everything one graded attempt changes, then a commit.
     * p: progress.js's model; interaction: {index, exerciseId, questionId, type, answer, solved, weight};
     * suspend: the text from buildSuspendData (already within the limit).
     */
    report(p, interaction, suspend) {
      if (state !== 'running') return false;
      if (interaction) {
        const n = `cmi.interactions.${interaction.index}.`;
        const { type, response } = interactionResponse(interaction.type, interaction.answer, version);
        set(`${n}id`, interactionId(interaction.exerciseId, interaction.questionId, version));
        set(`${n}type`, type);
        if (response !== null) set(`${n}${version === 'scorm12' ? 'student_response' : 'learner_response'}`, response);
        set(`${n}result`, interaction.solved ? 'correct' : version === 'scorm12' ? 'wrong' : 'incorrect');
        if (Number.isFinite(interaction.weight)) set(`${n}weighting`, interaction.weight);
        set(`${n}${version === 'scorm12' ? 'time' : 'timestamp'}`, timeOf(now(), version));
      }
      set(m.min, 0);
      set(m.max, 100);
      set(m.raw, p.raw);
      if (version === 'scorm12') {
        // One status: passed/failed from the score, incomplete before every question is answered.
        const s = p.success;
        set('cmi.core.lesson_status', s === 'unknown' ? 'incomplete' : s);
      } else {
        set('cmi.score.scaled', p.scaled);
        set('cmi.completion_status', p.complete ? 'completed' : 'incomplete');
        if (p.success !== 'unknown') set('cmi.success_status', p.success);
      }
      if (suspend !== null && suspend !== undefined) {
        if (suspend.length > limit) throw new RangeError(`suspend_data: ${suspend.length} characters, the limit in ${version} is ${limit}`);
        set('cmi.suspend_data', suspend);
      }
      return String(call(m.commit, '')) === 'true';
    },
    // Session time and exit, then Finish/Terminate. Statuses are not touched.
    finish({ complete }) {
      if (state !== 'running') return false;
      state = 'finished';
      set(m.sessionTime, scormDuration(now().getTime() - started, version));
      // suspend: the LMS keeps suspend_data for the next launch.
      set(m.exit, complete ? (version === 'scorm12' ? '' : 'normal') : 'suspend');
      call(m.commit, '');
      return String(call(m.finish, '')) === 'true';
    },
  };
  return scorm;
}
