// The page: header (path, language switch, copy link), the router (start page
// or one exercise, from the URL), and the core's start-up.
/* global __EXERCISES__ */
import { h, errorBox } from './dom.js';
import { t, pick, setLang, lang, LANGS } from './i18n.js';
import { readState, writeState, shareLink, hashOf } from './state.js';
import { createCore } from './core/core-client.js';
import { renderExercise, exerciseData } from './runner.js';
import { renderStart } from './start.js';
import { loadKatex } from './rich.js';
import { renderPresenter } from './presenter.js';
import { watchScrollers } from './scroll-hint.js';
import * as progress from './progress.js';
import { createLearner } from './grading/learner.js';
import { createAttemptStore } from './grading/attempt-store.js';
import { createEmbedBridge } from './grading/embed-bridge.js';
import { createGradingSession } from './grading/session.js';
import { createLmsReporter } from './lms/reporter.js';

const exercises = typeof __EXERCISES__ !== 'undefined' ? __EXERCISES__ : [];
const reportedDone = new Set();

const app = {
  core: null,
  state: {},
  exercises,
  setState(patch) {
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete app.state[k];
      else app.state[k] = v;
    }
    writeState(app.state);
  },
  linkTo(id) {
    return hashOf({ ex: id || undefined, lang: lang(), hide: app.state.hide }) || '#';
  },
  onProgress() {
    renderHeader();
    // An exercise just became done: a 'poslab:completed' event on window (see questions.js).
    for (const ex of exercises) {
      if (progress.status(ex) === 'done' && !reportedDone.has(ex.id)) {
        reportedDone.add(ex.id);
        window.dispatchEvent(new CustomEvent('poslab:completed', { detail: { exercise: ex.id } }));
      }
    }
  },
};

const header = document.getElementById('site-header');
const root = document.getElementById('main');
const footer = document.getElementById('site-footer');

function applyHide() {
  // embed=1 (a course page's iframe): no site chrome, and the page's own height.
  const hide = new Set([...(app.state.hide ?? []), ...(app.state.embed ? ['header', 'footer', 'nav'] : [])]);
  document.documentElement.classList.toggle('embed', !!app.state.embed);
  header.hidden = hide.has('header');
  footer.hidden = hide.has('footer');
  document.body.classList.toggle('hide-nav', hide.has('nav'));
}

function renderHeader() {
  applyHide();
  const current = app.state.ex;
  const copyStatus = h('span', { class: 'copy-status', role: 'status' });
  // The short label on a phone (style.css), so that the tools fit beside the name.
  const copy = h('button', { type: 'button', class: 'secondary', id: 'copy-link' }, h('span', { class: 'copy-long' }, t('nav.copy_link')), h('span', { class: 'copy-short' }, t('nav.copy_link_short')));
  copy.addEventListener('click', async () => {
    const link = shareLink({ ...app.state, lang: lang() });
    try {
      await navigator.clipboard.writeText(link);
      copyStatus.textContent = t('nav.copied');
    } catch {
      // No clipboard (some file:// pages): show the link to copy by hand.
      const field = h('input', { type: 'text', readonly: true, value: link, class: 'link-field', 'aria-label': t('nav.link_field') });
      copyStatus.replaceChildren(field);
      field.select();
    }
  });
  const langs = h(
    'div',
    { class: 'lang-switch', role: 'group', 'aria-label': t('nav.language') },
    ...LANGS.map((l) =>
      h('button', { type: 'button', lang: l, 'aria-pressed': String(l === lang()), 'data-lang': l, onclick: () => switchLang(l) }, t(`lang.${l}`)),
    ),
  );
  const skip = h('a', { class: 'skip', href: '#main' }, t('nav.skip'));
  skip.addEventListener('click', (e) => {
    e.preventDefault();
    (document.getElementById('page-title') ?? root).focus();
  });
  header.replaceChildren(
    skip,
    h(
      'div',
      { class: 'header-row' },
      h('a', { class: 'brand', href: app.linkTo('') }, h('span', { class: 'brand-name' }, t('site.name')), h('span', { class: 'brand-sub' }, t('site.subtitle'))),
      h('div', { class: 'tools' }, langs, copy, copyStatus),
    ),
    h(
      'nav',
      { class: 'steps-nav', 'aria-label': t('nav.path') },
      h(
        'ol',
        {},
        ...exercises.map((ex, i) => {
          const st = progress.status(ex);
          return h(
            'li',
            { class: st },
            // The document's own address before the hash: a step scrolled out of
            // the phone's one-row path is not mistaken for a skip link (a
            // same-page "#…" link off screen); following it is still a hash change.
            h('a', { href: `${location.href.split('#')[0]}${app.linkTo(ex.id)}`, 'aria-current': ex.id === current ? 'page' : undefined, title: pick(ex.title) }, h('span', { class: 'n' }, String(i + 1)), h('span', { class: 'sr-only' }, ` ${pick(ex.title)} (${t(`status.${st}`)})`)),
          );
        }),
      ),
    ),
  );
  // On a phone the path is one row that scrolls sideways inside itself (style.css): the current step in view.
  requestAnimationFrame(() => {
    const ol = header.querySelector('.steps-nav ol');
    const cur = ol?.querySelector('[aria-current]');
    if (!ol || !cur || ol.scrollWidth <= ol.clientWidth) return;
    const a = cur.getBoundingClientRect();
    const b = ol.getBoundingClientRect();
    ol.scrollLeft += a.left + a.width / 2 - (b.left + b.width / 2);
  });
}

function renderFooter() {
  footer.replaceChildren(
    h('p', {}, t('footer.honest')),
    h('p', { class: 'muted' }, app.core ? t('footer.core', { version: app.core.version, mode: t(`footer.mode_${app.core.mode}`) }) : ''),
  );
}

function switchLang(l) {
  setLang(l);
  app.setState({ lang: l, s: undefined, order: undefined });
  renderHeader();
  renderFooter();
  route();
}

// Answers given before there was a learner id (practice) go into the
// learner's record once there is one; the panel says what was carried and
// the questions that must be answered again say so in place (app.redo).
app.redo = new Set();
async function carryPractice() {
  if (!app.learner?.id || !app.grading) return;
  try {
    const r = await app.grading.carryPractice({ exercises: exercises.map(exerciseData) });
    if (!r.carried && !r.redo.length) return;
    for (const x of r.redo) app.redo.add(`${x.exercise}\n${x.question}`);
    const titles = [...new Set(r.redo.map((x) => x.exercise))].map((id) => pick(exercises.find((e) => e.id === id).title));
    const list = new Intl.ListFormat(lang(), { type: 'conjunction' }).format(titles);
    const lines = [];
    if (r.carried) lines.push({ key: 'practice.carried', params: { count: r.carried } });
    if (r.redo.length) lines.push({ key: 'practice.redo', params: { count: r.redo.length, list } });
    // After "Learner id set to …" when the id was just typed; on its own otherwise.
    const saved = app.panelStatus?.key === 'grading.learner_saved' ? app.panelStatus : null;
    app.panelStatus = saved ? { ...saved, also: lines } : { ...lines[0], kind: 'info', also: lines.slice(1) };
  } catch (e) {
    console.warn('carrying practice answers failed', e);
  }
}

let routing = 0;
async function route() {
  const mine = ++routing;
  // A new render: the page on screen is no longer the one the URL names, so
  // it stops saying it is ready (tests and hosts wait for the new one).
  for (const el of root.querySelectorAll('[data-ready]')) delete el.dataset.ready;
  const ex = exercises.find((e) => e.id === app.state.ex);
  document.title = ex ? `${pick(ex.title)} — ${t('site.name')}` : `${t('site.name')} — ${t('site.subtitle')}`;
  if (!app.core) return;
  try {
    // An exercise is typeset from the start (KaTeX is fetched once, after the
    // first screen: see rich.js); the start page does not wait for it.
    if (ex) await loadKatex().catch((e) => console.warn(e.message));
    if (mine !== routing) return;
    if (ex) await renderExercise(root, ex, app, { current: () => mine === routing });
    else renderStart(root, app);
  } catch (e) {
    if (mine === routing) root.replaceChildren(h('div', { class: 'page-error' }, errorBox(e)));
  }
  // Report the rendered height now: Chromium pauses ResizeObserver in a
  // cross-origin iframe that is off screen (a course page's second lab).
  app.bridge?.notifySize();
}

window.addEventListener('hashchange', () => {
  if (app.state.present) return; // presenter.js keeps its own steps
  app.state = readState();
  setLang(app.state.lang);
  renderHeader();
  renderFooter();
  route().then(() => (document.getElementById('page-title') ?? root).focus({ preventScroll: false }));
  window.scrollTo(0, 0);
});

async function boot() {
  watchScrollers(root);
  app.state = readState();
  setLang(app.state.lang);
  renderHeader();
  root.replaceChildren(h('p', { class: 'loading', role: 'status' }, t('boot.loading')));
  try {
    app.core = await createCore();
    // Presenter mode: the lesson's steps for a projector. No learner, no
    // grading session, no progress: nothing of the learner's is read or written.
    if (app.state.present) {
      header.hidden = true;
      footer.hidden = true;
      document.title = `${t('present.doc_title')} — ${t('site.name')}`;
      await loadKatex().catch((e) => console.warn(e.message));
      await renderPresenter(root, app);
      return;
    }
    // Grading: the learner id (URL learner=, the host page, or typed on the
    // start page), every attempt kept per exercise version, statements to an
    // embedding host. The core checks and scores; these keep and report.
    app.learner = createLearner();
    app.store = createAttemptStore();
    app.store.attach(window);
    app.bridge = createEmbedBridge({ learner: () => app.learner.id, onLearner: (id) => app.learner.setFromHost(id) });
    app.grading = createGradingSession({ core: app.core, store: app.store, learner: app.learner, bridge: app.bridge });
    // Inside an LMS package (lms= in its launch URL): scores to SCORM 1.2 / 2004 / cmi5; null otherwise.
    app.lms = await createLmsReporter({ session: app.grading, core: app.core, learner: app.learner, store: app.store, exercises: exercises.map(exerciseData), lang });
    app.learner.onChange(async () => {
      await carryPractice();
      route();
    });
    await carryPractice();
  } catch (e) {
    root.replaceChildren(h('div', { class: 'page-error' }, h('p', {}, t('boot.failed')), errorBox(e)));
    return;
  }
  renderFooter();
  for (const ex of exercises) if (progress.status(ex) === 'done') reportedDone.add(ex.id);
  document.body.dataset.core = app.core.mode;
  await route();
  loadKatex().catch((e) => console.warn(e.message));
}

boot();
