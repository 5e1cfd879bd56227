// The lab's side of embedding (index.html?…&embed=1&parentOrigin=https://lms.example.edu).
//
// Origins: messages go only to `parentOrigin`, and messages are accepted only
// from it (and only from window.parent). '*' is used only when the URL says
// parentOrigin=* explicitly. A course page opened from file:// has the origin
// "null", which postMessage cannot address: that case needs parentOrigin=*.
//
// Messages to the parent:
//   height, in H5P's protocol (what h5p-resizer.js and web/embed.js answer):
//     {context:'h5p', action:'hello'} until the host answers hello, then
//     {context:'h5p', action:'prepareResize', scrollHeight, clientHeight};
//     on the host's resizePrepared, {context:'h5p', action:'resize', scrollHeight};
//   height, in Canvas's form: {subject:'lti.frameResize', height};
//   xAPI statements, in the envelope H5P integrations use to forward them
//     (H5P.communicator.send('xAPI', {statement})): {context:'h5p', action:'xAPI', statement}.
// Messages from the parent:
//   {context:'h5p', action:'ready'|'hello'|'resizePrepared'|'resize'} (H5P's host side),
//   {context:'position-lab', action:'learner', learner} (the learner id).
//
// Statements are shaped like H5P's: actor (the learner id as an account),
// verb (ADL's answered / completed), object (an activity id from the exercise
// id, its name in ja and en), result {score {raw, max, min, scaled}, success,
// completion, response, duration}. Scores are the core's; this file only
// formats them.
import { messages } from './strings.js';

export const VERBS = {
  answered: 'http://adlnet.gov/expapi/verbs/answered',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
};
export const ACTIVITY_TYPES = {
  question: 'http://adlnet.gov/expapi/activities/cmi.interaction',
  exercise: 'http://adlnet.gov/expapi/activities/assessment',
};
export const EXTENSIONS = {
  contentHash: 'urn:position-lab:extension:content-hash',
  seed: 'urn:position-lab:extension:seed',
};
// Where activity ids and account home pages point when the lab has no http(s) URL (file://).
export const URN_BASE = 'urn:position-lab';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// An http(s) origin ('https://lms.example.edu'), '*', or null if `value` is neither.
export function normalizeOrigin(value) {
  if (value === '*') return '*';
  if (typeof value !== 'string' || value === '' || value === 'null') return null;
  let url;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Only an origin: a path, query or credentials mean the value is not one.
  if (url.origin !== value.replace(/\/$/, '').toLowerCase()) return null;
  return url.origin;
}

// What the URL asks of embedding: {embed, parentOrigin, problem}. problem:
// null, or {code, value} saying why nothing will be sent.
export function parseEmbedParams(href) {
  let url;
  try {
    url = new URL(href);
  } catch {
    return { embed: false, parentOrigin: null, problem: null };
  }
  const q = url.searchParams;
  const hash = new URLSearchParams(url.hash.replace(/^#/, ''));
  const get = (k) => q.get(k) ?? hash.get(k);
  const embed = get('embed') === '1' || get('embed') === 'true';
  const raw = get('parentOrigin');
  if (!embed) return { embed, parentOrigin: null, problem: null };
  if (raw === null || raw === '') return { embed, parentOrigin: null, problem: { code: 'embed_no_origin', value: '' } };
  if (raw === 'null') return { embed, parentOrigin: null, problem: { code: 'embed_null_origin', value: raw } };
  const parentOrigin = normalizeOrigin(raw);
  if (!parentOrigin) return { embed, parentOrigin: null, problem: { code: 'embed_bad_origin', value: raw } };
  return { embed, parentOrigin, problem: null };
}

// `homePage=` (an http(s) URL) from the query or hash, else null.
export function homePageFromUrl(href) {
  try {
    const u = new URL(href);
    const v = u.searchParams.get('homePage') ?? new URLSearchParams(u.hash.replace(/^#/, '')).get('homePage');
    if (v === null) return null;
    const h = new URL(v);
    return h.protocol === 'http:' || h.protocol === 'https:' ? h.href : null;
  } catch {
    return null;
  }
}

// ISO 8601 duration in seconds with up to two decimals, as H5P writes it: PT12.5S.
export function isoDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`duration must be a finite number of milliseconds ≥ 0, got ${ms}`);
  const centis = Math.round(ms / 10);
  const whole = Math.floor(centis / 100);
  const frac = String(centis % 100).padStart(2, '0').replace(/0+$/, '');
  return `PT${whole}${frac ? `.${frac}` : ''}S`;
}

// The exercise's (or one question's) activity id: an IRI from the lab's
// address and the ids, so every course sees the same id for the same exercise.
export function activityId(base, exerciseId, questionId) {
  const e = encodeURIComponent(exerciseId);
  if (base.startsWith('urn:')) return `${base}:exercise:${e}${questionId ? `:question:${encodeURIComponent(questionId)}` : ''}`;
  return `${base}?exercise=${e}${questionId ? `&question=${encodeURIComponent(questionId)}` : ''}`;
}

// The lab's address without query and hash (http(s) only), else the URN base.
export function defaultActivityBase(href) {
  try {
    const u = new URL(href);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin + u.pathname;
  } catch {
    // fall through
  }
  return URN_BASE;
}

// xAPI `result.response`: choice and fill-in answers joined by "[,]" as the
// xAPI spec has it; a task's lab settings as JSON; a code question's code.
export function responseText(answer) {
  if (Array.isArray(answer)) return answer.map(String).join('[,]');
  if (isObject(answer) && typeof answer.code === 'string') return answer.code;
  if (isObject(answer)) return JSON.stringify(answer);
  return String(answer);
}

const INTERACTION = { numeric: 'fill-in', choice: 'choice', task: 'other', code: 'long-fill-in' };
const text2 = (t, fallback) => (isObject(t) ? { ja: t.ja ?? t.en ?? fallback, en: t.en ?? t.ja ?? fallback } : { ja: String(t ?? fallback), en: String(t ?? fallback) });

/**
 * One statement, H5P-shaped.
 * @param {object} o
 * @param {'answered'|'completed'} o.verb
 * @param {string} o.learner       the learner id (actor.account.name)
 * @param {string} o.homePage      the account's home page (the course site)
 * @param {string} o.activityBase  see activityId()
 * @param {{id: string, title?: {ja, en}, contentHash?: string, seed?: number}} o.exercise
 * @param {{id: string, type?: 'numeric'|'choice'|'task', prompt?: {ja, en}}} [o.question]  answered only
 * @param {{raw: number, max: number}} o.score  points from the core (gradeExercise / checkAttempt × points)
 * @param {boolean} o.success
 * @param {*} [o.answer]           answered: the raw answer (becomes result.response)
 * @param {number} o.durationMs
 * @param {Date} [o.timestamp]
 */
export function buildStatement({ verb, learner, homePage, activityBase, exercise, question, score, success, answer, durationMs, timestamp = new Date() }) {
  if (!VERBS[verb]) throw new RangeError(`statement: verb must be answered or completed, got ${JSON.stringify(verb)}`);
  if (typeof learner !== 'string' || learner === '') throw new TypeError('statement: learner must be a non-empty string');
  if (!exercise || typeof exercise.id !== 'string' || exercise.id === '') throw new TypeError('statement: exercise.id must be a non-empty string');
  if (verb === 'answered' && (!question || typeof question.id !== 'string' || question.id === '')) throw new TypeError('statement: an answered statement needs question.id');
  const { raw, max } = score ?? {};
  if (!Number.isFinite(max) || max < 0) throw new RangeError(`statement: score.max must be a number ≥ 0, got ${max}`);
  if (!Number.isFinite(raw) || raw < 0 || raw > max) throw new RangeError(`statement: score.raw must be a number from 0 to score.max (${max}), got ${raw}`);
  const exerciseIri = activityId(activityBase, exercise.id);
  const verbText = messages(`grading.verb_${verb}`);
  const statement = {
    actor: { objectType: 'Agent', account: { homePage, name: learner } },
    verb: { id: VERBS[verb], display: { 'en-US': verbText.en, ja: verbText.ja } },
    object: {
      objectType: 'Activity',
      id: verb === 'answered' ? activityId(activityBase, exercise.id, question.id) : exerciseIri,
      definition:
        verb === 'answered'
          ? {
              name: text2(question.prompt ?? exercise.title, question.id),
              type: ACTIVITY_TYPES.question,
              interactionType: INTERACTION[question.type] ?? 'other',
            }
          : { name: text2(exercise.title, exercise.id), type: ACTIVITY_TYPES.exercise },
    },
    context: { extensions: {} },
    result: {
      score: { raw, max, min: 0, scaled: max > 0 ? raw / max : 0 },
      success: Boolean(success),
      completion: true,
      duration: isoDuration(durationMs),
    },
    timestamp: timestamp.toISOString(),
  };
  if (verb === 'answered') {
    statement.context.contextActivities = { parent: [{ objectType: 'Activity', id: exerciseIri }] };
    if (answer !== undefined) statement.result.response = responseText(answer);
  }
  if (exercise.contentHash) statement.context.extensions[EXTENSIONS.contentHash] = exercise.contentHash;
  if (Number.isInteger(exercise.seed)) statement.context.extensions[EXTENSIONS.seed] = exercise.seed;
  return statement;
}

/**
 * Starts the bridge when the URL asks for embed=1 (and the page is framed).
 * @param {object} [o]
 * @param {Window} [o.window]
 * @param {string} [o.href]            default window.location.href
 * @param {() => string|null} [o.learner]  the current learner id (learner.js)
 * @param {(id: string) => void} [o.onLearner]  the host sent a learner id
 * @param {string} [o.homePage]        actor.account.homePage; default the URL's homePage= (an http(s)
 *   URL: where the learner's account lives), else parentOrigin, else the lab's origin, else the URN base
 * @param {string} [o.activityBase]    default the lab's URL without query (see activityId)
 * @param {Element} [o.target]         what is observed for height (default document.documentElement)
 * @param {() => number} [o.measure]   the height to report (default: the root element's height,
 *   which, unlike body.scrollHeight, includes margins that collapse through the body, and
 *   shrinks with the content as long as html's height is auto — no height: 100% / 100vh in embed mode)
 * @param {() => number} [o.now]       ms clock for durations
 */
export function createEmbedBridge({ window: win = globalThis, href, learner = () => null, onLearner, homePage, activityBase, target, measure, now = () => Date.now() } = {}) {
  href ??= win.location?.href ?? '';
  const params = parseEmbedParams(href);
  const framed = win.parent && win.parent !== win;
  const warnings = [];
  if (params.embed && params.problem) warnings.push({ code: params.problem.code, message: messages(`grading.${params.problem.code}`, { value: params.problem.value }) });
  const enabled = params.embed && framed && !!params.parentOrigin;
  const parentOrigin = enabled ? params.parentOrigin : null;
  const doc = win.document;
  const observed = () => target ?? doc?.documentElement;
  measure ??= () => Math.ceil(doc?.documentElement?.getBoundingClientRect().height ?? 0);
  const origin = (() => {
    try {
      const u = new URL(href);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
    } catch {
      return null;
    }
  })();
  homePage ??= homePageFromUrl(href) ?? (parentOrigin && parentOrigin !== '*' ? parentOrigin : origin ?? URN_BASE);
  activityBase ??= defaultActivityBase(href);

  const started = new Map(); // exercise id → ms
  const completedOnce = new Set();
  const bridgeStart = now();
  let friendly = false; // the host answered H5P's hello
  let lastHeight = null;
  let observer = null;
  const sent = [];

  const post = (data) => {
    if (!enabled) return false;
    win.parent.postMessage(data, parentOrigin);
    sent.push(data);
    if (sent.length > 500) sent.splice(0, sent.length - 500);
    return true;
  };

  const sendSize = (force = false) => {
    const height = measure();
    if (!force && height === lastHeight) return;
    lastHeight = height;
    post({ subject: 'lti.frameResize', height });
    if (friendly) post({ context: 'h5p', action: 'prepareResize', scrollHeight: height, clientHeight: height });
    else post({ context: 'h5p', action: 'hello' });
  };

  const onMessage = (event) => {
    if (event.source !== win.parent) return;
    if (parentOrigin !== '*' && event.origin !== parentOrigin) return;
    const d = event.data;
    if (!isObject(d)) return;
    if (d.context === 'h5p') {
      if (d.action === 'ready') post({ context: 'h5p', action: 'hello' });
      else if (d.action === 'hello') {
        friendly = true;
        sendSize(true);
      } else if (d.action === 'resizePrepared') post({ context: 'h5p', action: 'resize', scrollHeight: measure() });
      else if (d.action === 'resize') sendSize(true);
    } else if (d.context === 'position-lab' && d.action === 'learner' && typeof d.learner === 'string') {
      try {
        onLearner?.(d.learner);
      } catch (e) {
        // e.g. a LearnerError (learner.js): the page shows it; the handler must not throw.
        warnings.push({ code: 'host_learner', message: e.text ?? { ja: e.message, en: e.message }, error: e });
      }
    }
  };

  if (enabled) {
    win.addEventListener('message', onMessage);
    const RO = win.ResizeObserver;
    if (RO && observed()) {
      observer = new RO(() => sendSize());
      observer.observe(observed());
    }
    sendSize(true);
  }

  const exerciseInfo = (exercise) => ({ id: exercise.id, title: exercise.title, contentHash: exercise.contentHash, seed: exercise.seed });
  const durationOf = (id) => now() - (started.get(id) ?? bridgeStart);

  return {
    enabled,
    parentOrigin,
    warnings,
    // The last 500 messages posted (for the page's debugging and the tests).
    sent,
    get friendly() {
      return friendly;
    },
    // The exercise was shown: durations count from here.
    opened(exerciseId) {
      started.set(exerciseId, now());
    },
    // Re-measure and report the height now (e.g. after a panel opened).
    notifySize() {
      sendSize(true);
    },
    sendStatement(statement) {
      return post({ context: 'h5p', action: 'xAPI', statement });
    },
    /**
     * One checked attempt. exercise: {id, title, contentHash, seed};
     * question: {id, type, prompt}; score: {raw, max} (the core's: the
     * attempt's score × the question's max from gradeExercise); success: the
     * core said "correct"; answer: the raw answer.
     */
    answered({ exercise, question, score, success, answer }) {
      const id = learner();
      if (!enabled || !id) return null;
      const statement = buildStatement({ verb: 'answered', learner: id, homePage, activityBase, exercise: exerciseInfo(exercise), question, score, success, answer, durationMs: durationOf(exercise.id) });
      post({ context: 'h5p', action: 'xAPI', statement });
      return statement;
    },
    /**
     * The exercise is finished; score: {raw: points, max} from gradeExercise.
     * Sent once per exercise version (id + content hash) unless force.
     */
    completed({ exercise, score, success, force = false }) {
      const id = learner();
      if (!enabled || !id) return null;
      const once = `${exercise.id}\n${exercise.contentHash ?? ''}`;
      if (completedOnce.has(once) && !force) return null;
      completedOnce.add(once);
      const statement = buildStatement({ verb: 'completed', learner: id, homePage, activityBase, exercise: exerciseInfo(exercise), score, success, durationMs: durationOf(exercise.id) });
      post({ context: 'h5p', action: 'xAPI', statement });
      return statement;
    },
    close() {
      observer?.disconnect();
      if (enabled) win.removeEventListener('message', onMessage);
    },
  };
}
