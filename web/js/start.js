// The start page: what the lab is, the path with each step's state, the
// shapes [B, S, D] and the guide's variants table.
import { h } from './dom.js';
import { t, pick, lang } from './i18n.js';
import { richInline } from './rich.js';
import * as progress from './progress.js';
import { mountGradingPanel } from './grading/panel.js';
import { exerciseData } from './runner.js';
import { presenterSteps } from './presenter.js';

// Presenter mode's steps and planned minutes, from the exercise files (the
// same list presenter.js shows), never a number written in the text.
export function presenterSummary(exercises) {
  const steps = presenterSteps(exercises);
  return { count: steps.length, minutes: steps.reduce((sum, ex) => sum + ex.presenter.minutes, 0) };
}

export function renderStart(root, app) {
  // A lone symbol ($B$) is written as <var>: a header cell needs text that
  // assistive technology reads (KaTeX's visible part is aria-hidden).
  const cell = (c) => (/^\$[A-Za-z]\$$/.test(c) ? { html: `<var>${c[1]}</var>` } : { html: richInline(c) });
  const row = (cells, head = false) => h('tr', {}, ...cells.map((c, i) => h(head ? 'th' : i === 0 ? 'th' : 'td', { scope: head ? 'col' : i === 0 ? 'row' : undefined, ...cell(c) })));
  const path = h(
    'ol',
    { class: 'path' },
    ...app.exercises.map((ex, i) => {
      const st = progress.status(ex);
      return h(
        'li',
        { class: `step ${st}`, 'data-status': st, 'data-exercise': ex.id },
        h('a', { href: app.linkTo(ex.id) }, h('span', { class: 'step-num', 'aria-hidden': 'true' }, String(i + 1)), h('span', { class: 'step-title' }, pick(ex.title))),
        h('span', { class: `badge ${st}` }, t(`status.${st}`)),
        h('p', { class: 'step-summary' }, pick(ex.summary)),
      );
    }),
  );
  const main = h(
    'article',
    { class: 'start' },
    h('h1', { tabindex: '-1', id: 'page-title' }, t('start.title')),
    h('p', { class: 'lead' }, t('start.lead')),
    h('p', {}, t('start.how', { count: app.exercises.length })),
    h('p', {}, t('start.sources')),
    h('p', {}, h('a', { class: 'button', href: app.linkTo(app.exercises[0].id) }, t('start.begin'))),
    // For the instructor: the lesson's steps for a projector (presenter.js).
    h('p', { class: 'present-entry' }, h('a', { class: 'button secondary', id: 'present-link', href: `?present=1${lang() === 'ja' ? '' : `&lang=${lang()}`}` }, t('start.present')), ' ', h('span', { class: 'muted' }, t('start.present_note', presenterSummary(app.exercises)))),
    // …and the class results page beside the lab (instructor.html): re-grades submissions in this browser.
    h('p', { class: 'present-entry' }, h('a', { class: 'button secondary', id: 'results-link', href: `instructor.html${lang() === 'ja' ? '' : `#lang=${lang()}`}` }, t('start.results')), ' ', h('span', { class: 'muted' }, t('start.results_note'))),
    h('h2', {}, t('start.path')),
    // Damaged saved progress was dropped: said where the path's state is shown.
    progress.warnings().length ? h('aside', { class: 'note storage-note', role: 'status' }, ...progress.warnings().map((w) => h('p', {}, t(`storage.${w.code}`, w.params)))) : null,
    path,
    h('h2', {}, t('start.shapes')),
    h('p', { html: richInline(t('start.shapes_text')) }),
    h(
      'div',
      { class: 'table-scroll', tabindex: '0' },
      h(
        'table',
        { class: 'content-table' },
        h('caption', {}, t('start.shapes_caption')),
        h('thead', {}, row([t('start.sym'), t('start.meaning'), t('start.example')], true)),
        h('tbody', {}, row(['$B$', t('start.B'), '1']), row(['$S$', t('start.S'), '8']), row(['$D$', t('start.D'), '512']), row(['$H$', t('start.H'), '1'])),
      ),
    ),
    h('h2', {}, t('start.variants')),
    h(
      'div',
      { class: 'table-scroll', tabindex: '0' },
      h(
        'table',
        { class: 'content-table' },
        h('caption', {}, t('start.variants_caption')),
        h('thead', {}, row([t('start.v_scheme'), t('start.v_what'), t('start.v_used')], true)),
        h('tbody', {}, ...['sinusoidal', 'learned', 'rope', 'alibi'].map((s) => row([t(`variants.${s}.name`), t(`variants.${s}.what`), t(`variants.${s}.used`)]))),
      ),
    ),
    h('p', { class: 'muted' }, t('start.variants_note')),
    // Without the grading panel (it says the same and has its own reset), the honest-grading note here.
    app.grading ? null : h('h2', {}, t('start.honest_title')),
    app.grading ? null : h('p', {}, t('start.honest')),
  );
  // Learner id, submission download / import, reset of the kept attempts.
  if (app.grading) {
    const panel = h('section', { class: 'grading-panel', id: 'grading-panel' });
    main.append(panel);
    mountGradingPanel(panel, {
      session: app.grading,
      store: app.store,
      learner: app.learner,
      labVersion: app.core.version,
      exercises: app.exercises.map(exerciseData),
      lang,
      warnings: [...(app.bridge?.warnings ?? []), ...(app.learner?.warnings ?? [])],
      // What the panel last said (an id saved, practice carried) survives the re-render.
      status: app.panelStatus ?? null,
      onStatus: (s) => (app.panelStatus = s),
      // The one reset: the learner's (or, before an id, the practice) answers and the path's state.
      onChange: (what) => {
        if (what === 'reset') progress.reset();
        renderStart(root, app);
      },
    });
  }
  root.replaceChildren(main);
  main.dataset.ready = 'true';
}
