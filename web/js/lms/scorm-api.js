// Finding the LMS's SCORM API object, as the SCORM run-time's API discovery
// algorithm has it: look in this window, then up the `parent` chain, then in
// `opener` and its parents. Every step is in try/catch, because a
// cross-origin frame throws on property access; not finding an API is
// normal (the lab outside an LMS) and returns null without an error.

export const API_NAMES = { scorm12: 'API', scorm2004: 'API_1484_11' };
// The algorithm's bound on the walk (ADL's sample code uses 500).
export const MAX_HOPS = 500;

function apiIn(win, name) {
  try {
    const api = win?.[name];
    return api && typeof api === 'object' ? api : null;
  } catch {
    return null;
  }
}

function parentOf(win) {
  try {
    const p = win.parent;
    return p && p !== win ? p : null;
  } catch {
    return null;
  }
}

function openerOf(win) {
  try {
    return win.opener ?? null;
  } catch {
    return null;
  }
}

// win itself, then its parents, up to MAX_HOPS.
function walkUp(win, name) {
  let w = win;
  for (let hops = 0; w && hops <= MAX_HOPS; hops++) {
    const api = apiIn(w, name);
    if (api) return api;
    w = parentOf(w);
  }
  return null;
}

/**
 * The API object named `name` ('API' or 'API_1484_11') seen from `win`, or null.
 */
export function findApi(win, name) {
  const here = walkUp(win, name);
  if (here) return here;
  // The top of this window's chain may have been opened by the LMS (a pop-up launch).
  let top = win;
  for (let p = parentOf(top), hops = 0; p && hops < MAX_HOPS; p = parentOf(p), hops++) top = p;
  const opener = openerOf(top);
  return opener ? walkUp(opener, name) : null;
}

/**
 * The API for a SCORM version: {version: 'scorm12'|'scorm2004', api} or null.
 */
export function findScormApi(win, version) {
  const name = API_NAMES[version];
  if (!name) throw new RangeError(`SCORM API: version must be scorm12 or scorm2004, got ${JSON.stringify(version)}`);
  const api = findApi(win, name);
  return api ? { version, api } : null;
}
