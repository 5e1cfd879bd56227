// The lab as a cmi5 AU: launch parameters from the URL, the auth token
// fetched once, LMS.LaunchData read, then initialized → passed/failed and
// completed (from the learner's real work) → terminated, each with the
// context template, the cmi5 category, and durations counted from
// initialized, as the cmi5 spec (Quartz) says.

export const VERBS = {
  initialized: 'http://adlnet.gov/expapi/verbs/initialized',
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  failed: 'http://adlnet.gov/expapi/verbs/failed',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  terminated: 'http://adlnet.gov/expapi/verbs/terminated',
  answered: 'http://adlnet.gov/expapi/verbs/answered', // "cmi5 allowed": one per checked question
};
export const CATEGORY = {
  cmi5: 'https://w3id.org/xapi/cmi5/context/categories/cmi5',
  moveOn: 'https://w3id.org/xapi/cmi5/context/categories/moveon',
};
export const MASTERY_EXTENSION = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';
export const XAPI_VERSION = '1.0.3';
// The AU's own State document: which of passed / completed it has sent in this registration.
export const SENT_STATE_ID = 'urn:position-lab:cmi5:sent';

// The five launch parameters; null when any is missing (not a cmi5 launch).
export function launchParameters(href) {
  let q;
  try {
    q = new URL(href).searchParams;
  } catch {
    return null;
  }
  const p = { endpoint: q.get('endpoint'), fetch: q.get('fetch'), actor: q.get('actor'), registration: q.get('registration'), activityId: q.get('activityId') };
  if (Object.values(p).some((v) => !v)) return null;
  try {
    p.actor = JSON.parse(p.actor);
  } catch {
    return null;
  }
  p.endpoint = p.endpoint.endsWith('/') ? p.endpoint : `${p.endpoint}/`;
  return p;
}

export function uuid() {
  if (globalThis.crypto?.randomUUID) return globalThis.crypto.randomUUID();
  const b = new Uint8Array(16);
  globalThis.crypto.getRandomValues(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// xAPI duration with centiseconds: PT12.34S (H and M as needed).
export function xapiDuration(ms) {
  const centis = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(centis / 360000);
  const m = Math.floor((centis % 360000) / 6000);
  const s = ((centis % 6000) / 100).toFixed(2).replace(/\.?0+$/, '') || '0';
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s}S`;
}

// A learner id for the grading session: the account name, else the mbox (without mailto:).
export function actorLearnerId(actor) {
  if (actor?.account?.name) return String(actor.account.name);
  if (actor?.mbox) return String(actor.mbox).replace(/^mailto:/, '');
  return null;
}

/**
 * Connects to the LMS/LRS. Returns null when the URL is not a cmi5 launch.
 * Rejects (with a message) when the fetch URL or the LRS refuses.
 * @param {object} o
 * @param {string} o.href
 * @param {typeof fetch} [o.fetch]
 * @param {() => number} [o.now]
 */
export async function connectCmi5({ href, fetch: fetchFn = globalThis.fetch.bind(globalThis), now = () => Date.now() }) {
  const launch = launchParameters(href);
  if (!launch) return null;
  // The fetch URL works once: POST, answer {"auth-token": "..."} (or error-code/error-text).
  const tokenResponse = await fetchFn(launch.fetch, { method: 'POST' });
  const tokenBody = await tokenResponse.json().catch(() => ({}));
  if (!tokenResponse.ok || !tokenBody['auth-token']) throw new Error(`cmi5: the fetch URL gave no auth-token (${tokenResponse.status} ${tokenBody['error-text'] ?? ''})`);
  const headers = { Authorization: `Basic ${tokenBody['auth-token']}`, 'X-Experience-API-Version': XAPI_VERSION, 'Content-Type': 'application/json' };

  const stateUrl = new URL('activities/state', launch.endpoint);
  stateUrl.search = new URLSearchParams({ stateId: 'LMS.LaunchData', activityId: launch.activityId, agent: JSON.stringify(launch.actor), registration: launch.registration }).toString();
  const stateResponse = await fetchFn(stateUrl.href, { headers });
  if (!stateResponse.ok) throw new Error(`cmi5: LMS.LaunchData could not be read (${stateResponse.status})`);
  const launchData = await stateResponse.json();
  const template = launchData.contextTemplate ?? {};
  const launchMode = launchData.launchMode ?? 'Normal';
  const masteryScore = Number.isFinite(launchData.masteryScore) ? launchData.masteryScore : null;

  // What this AU already sent in this registration (passed and completed go
  // once per registration, across sessions): an xAPI State document of its own.
  const sentUrl = new URL('activities/state', launch.endpoint);
  sentUrl.search = new URLSearchParams({ stateId: SENT_STATE_ID, activityId: launch.activityId, agent: JSON.stringify(launch.actor), registration: launch.registration }).toString();
  const done = { passed: false, failed: false, completed: false };
  try {
    const r = await fetchFn(sentUrl.href, { headers });
    if (r.ok) {
      const kept = await r.json();
      done.passed = kept?.passed === true;
      done.completed = kept?.completed === true;
    }
  } catch {
    // No document yet (404) or none readable: nothing was sent before.
  }

  let queue = Promise.resolve();
  const sent = [];
  const errors = [];
  let initializedAt = null;
  let state = 'new';

  // allowed: a "cmi5 allowed" statement (not cmi5 defined), which carries no cmi5 category.
  const statement = (verb, { result, moveOn = false, extensions = {}, allowed = false } = {}) => {
    const context = JSON.parse(JSON.stringify(template));
    context.registration = launch.registration;
    context.contextActivities ??= {};
    const category = context.contextActivities.category ?? [];
    if (!allowed) category.push({ objectType: 'Activity', id: CATEGORY.cmi5 });
    if (moveOn) category.push({ objectType: 'Activity', id: CATEGORY.moveOn });
    if (category.length) context.contextActivities.category = category;
    if (Object.keys(extensions).length) context.extensions = { ...(context.extensions ?? {}), ...extensions };
    const s = {
      id: uuid(),
      actor: launch.actor,
      verb: { id: VERBS[verb], display: { 'en-US': verb } },
      object: { objectType: 'Activity', id: launch.activityId },
      context,
      timestamp: new Date(now()).toISOString(),
    };
    if (result) s.result = result;
    return s;
  };

  const post = async (s, keepalive) => {
    try {
      const r = await fetchFn(new URL('statements', launch.endpoint).href, { method: 'POST', headers, body: JSON.stringify(s), keepalive });
      if (!r.ok) errors.push({ verb: s.verb.id, status: r.status });
    } catch (e) {
      errors.push({ verb: s.verb.id, message: String(e?.message ?? e) });
    }
  };
  // Requests go one at a time, in order. On pagehide (keepalive) every one not
  // yet started starts at once, with keepalive: a request started after the
  // page is gone never leaves (and the State document of what was sent must
  // reach the LRS, or the next session sends passed again).
  const waiting = [];
  const enqueue = (job) => {
    const entry = { started: null };
    entry.run = (keepalive) => (entry.started ??= (waiting.splice(waiting.indexOf(entry), 1), job(keepalive)));
    waiting.push(entry);
    queue = queue.then(() => entry.run(false));
    return queue;
  };
  const startAll = () => Promise.all([...waiting].map((e) => e.run(true)));
  const send = (s, { keepalive = false } = {}) => {
    sent.push(s);
    if (keepalive) {
      const now = Promise.all([startAll(), post(s, true)]);
      queue = queue.then(() => now);
      return queue;
    }
    return enqueue((k) => post(s, k));
  };

  const keepSent = () => {
    const body = JSON.stringify({ passed: done.passed, completed: done.completed });
    enqueue(async (keepalive) => {
      try {
        await fetchFn(sentUrl.href, { method: 'PUT', headers, body, keepalive });
      } catch (e) {
        errors.push({ state: SENT_STATE_ID, message: String(e?.message ?? e) });
      }
    });
  };
  const since = () => xapiDuration(now() - initializedAt);
  const judged = launchMode === 'Normal'; // Browse and Review send no passed/failed/completed.

  const cmi5 = {
    launch,
    launchData,
    launchMode,
    masteryScore,
    sent,
    errors,
    get running() {
      return state === 'running';
    },
    learnerId: () => actorLearnerId(launch.actor),
    initialize() {
      if (state !== 'new') return queue;
      state = 'running';
      initializedAt = now();
      return send(statement('initialized'));
    },
    /**
     * After a graded attempt: p is progress.js's model; answer (optional):
     * {exerciseId, questionId, type, response, points, max, solved} sent first
     * as a "cmi5 allowed" answered statement (no cmi5 category; the context
     * template, and the AU as its parent), so the LRS shows what was answered.
     */
    report(p, answer) {
      if (state !== 'running' || !judged) return queue;
      if (answer) {
        const a = statement('answered', {
          result: { score: { raw: answer.points, min: 0, max: answer.max, scaled: answer.max > 0 ? Math.round((answer.points / answer.max) * 10000) / 10000 : 0 }, success: answer.solved, response: answer.response },
          allowed: true,
        });
        a.object = {
          objectType: 'Activity',
          id: `${launch.activityId}/${encodeURIComponent(answer.exerciseId)}/${encodeURIComponent(answer.questionId)}`,
          definition: { type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: { numeric: 'fill-in', choice: 'choice' }[answer.type] ?? 'other' },
        };
        a.context.contextActivities.parent = [{ objectType: 'Activity', id: launch.activityId }];
        send(a);
      }
      const score = { scaled: p.scaled, raw: p.points, min: 0, max: p.max };
      const extensions = masteryScore !== null ? { [MASTERY_EXTENSION]: masteryScore } : {};
      const mastered = masteryScore !== null ? p.scaled >= masteryScore : p.success === 'passed';
      // passed once per session, and no failed after it; failed once, when every question is answered below mastery.
      const before = done.passed + done.completed;
      if (!done.passed && mastered) {
        done.passed = true;
        send(statement('passed', { result: { score, success: true, duration: since() }, moveOn: true, extensions }));
      } else if (!done.passed && !done.failed && p.complete && !mastered) {
        done.failed = true;
        send(statement('failed', { result: { score, success: false, duration: since() }, moveOn: true, extensions }));
      }
      if (!done.completed && p.complete) {
        done.completed = true;
        send(statement('completed', { result: { completion: true, duration: since() }, moveOn: true }));
      }
      if (done.passed + done.completed !== before) keepSent();
      return queue;
    },
    finish({ keepalive = false } = {}) {
      if (state !== 'running') return queue;
      state = 'finished';
      return send(statement('terminated', { result: { duration: since() } }), { keepalive });
    },
    flush: () => queue,
  };
  return cmi5;
}
