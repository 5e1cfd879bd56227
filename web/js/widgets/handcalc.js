// The hand calculation drawn as the calculation itself (as Transformer
// Explainer draws attention): for each order of the tokens, the query vector
// and the key vectors, then the four steps of the query's row, one under the
// other: ① the dot products q·k_j, ② the scores scaled by √d_k, ③ the softmax
// (drawn as bars), ④ the weighted sum of the value vectors. Both orders side
// by side. Each step is tied to the question that asks for it (the file's
// `orders[].steps`): it lights up while the student types into that question
// (showing the student's own numbers), and the core's numbers appear in it
// only once the question is answered right (or given up on, recorded). Before
// that, the page holds no answer: the step shows "?", in its text and in its
// aria label alike. Focus or hover a step and its question lights up, and the
// other way round.
import { h, fmt, errorBox } from '../dom.js';
import { t } from '../i18n.js';
import { texToUnicode } from '../rich.js';

// A phone's width, as style.css says it (the sticky box of the drawing).
const PHONE = '(max-width: 40rem)';
const STEPS = ['dots', 'scores', 'weights', 'output'];
const SUB = '₀₁₂₃₄₅₆₇₈₉';

export function mount(el, block, ctx) {
  const w = { state: { done: {} }, result: null, error: null };
  const labels = block.labels.map((l) => texToUnicode(l));
  const query = block.query ?? 0;
  const orders = block.orders;
  const questionIds = new Set(orders.flatMap((o) => STEPS.map((s) => o.steps[s]).filter(Boolean)));
  // Settled at mount: answered right before, or given up on (the reveal's give-up).
  const gaveUp = (id) => (ctx.attempts?.(id) ?? []).some((a) => a.answer?.gave_up === true);
  const done = new Map([...questionIds].map((id) => [id, ctx.isSolved?.(id) ? 'solved' : gaveUp(id) ? 'given' : null]));
  const typed = new Map(); // question id → the fields as typed
  let active = null; // the question id the student is in (focus) or pointing at
  let values = null; // per order: { dots, scores, weights, output } from the core

  const lead = h('p', { class: 'widget-lead' }, t('handcalc.lead'));
  const key = h('p', { class: 'muted hc-key' }, t('handcalc.key'));
  const body = h('div', { class: 'hc-orders' });
  const errorSlot = h('div');
  el.append(lead, errorSlot, body, key);
  // On a phone the drawing sticks at the top of the screen in a box of its own (style.css); its
  // lead and its key go right after that box, as ordinary text (issue 24: in the box, the lead's
  // line was cut in half by the box's bottom edge). Back in the widget when the screen is wide.
  const outside = h('div', { class: 'hc-after-box' });
  const phone = typeof matchMedia === 'function' ? matchMedia(PHONE) : null;
  let seen = false;
  const placeText = () => {
    if (el.isConnected) seen = true;
    else if (seen) return phone.removeEventListener('change', placeText);
    const box = el.closest('.lab-stage-visual');
    if (!box) return;
    if (phone.matches) {
      outside.append(lead, key);
      if (outside.previousElementSibling !== box) box.after(outside);
    } else {
      errorSlot.before(lead);
      el.append(key);
      outside.remove();
    }
  };
  if (phone) {
    placeText();
    phone.addEventListener('change', placeText);
  }

  const vec = (v) => `(${v.join(', ')})`;
  const root = () => el.closest('.exercise') ?? document;
  const questionEl = (id) => root().querySelector(`[data-question="${id}"]`);

  // One order's drawing, built once; the steps' contents are filled by paint().
  const panels = orders.map((o, k) => {
    const ord = o.order;
    const names = ord.map((i) => labels[i]);
    const qName = labels[query];
    const stepEls = {};
    const step = (name, titleKey, cells) => {
      const id = o.steps[name];
      const box = h(
        'div',
        { class: 'hc-step', 'data-step': name, 'data-for': id, 'data-state': 'todo', tabindex: id ? '0' : undefined, role: id ? 'group' : undefined },
        h('p', { class: 'hc-step-name' }, h('span', { class: 'hc-num', 'aria-hidden': 'true' }, String(STEPS.indexOf(name) + 1)), t(titleKey)),
        h('div', { class: 'hc-cells' }, ...cells),
      );
      stepEls[name] = box;
      if (id) {
        box.addEventListener('mouseenter', () => setActive(id, 'point'));
        box.addEventListener('mouseleave', () => setActive(null, 'point'));
        box.addEventListener('focus', () => setActive(id, 'point'));
        box.addEventListener('blur', () => setActive(null, 'point'));
      }
      return box;
    };
    const cell = (expr, extra = {}) => h('div', { class: 'hc-cell', ...extra }, h('span', { class: 'hc-expr' }, expr), h('span', { class: 'hc-val' }, '?'));
    const perKey = (f) => ord.map((tok, j) => f(tok, j));
    const panel = h(
      'section',
      { class: 'hc-order', 'data-order': String(k) },
      h('h3', { class: 'sub-title' }, t(k === 0 ? 'vectors.order_a' : 'vectors.order_b', { order: names.join(', ') })),
      h(
        'div',
        { class: 'hc-inputs' },
        h('div', { class: 'hc-vec hc-query' }, h('span', { class: 'hc-role' }, t('handcalc.query')), h('span', {}, `${qName} = ${vec(block.vectors[query])}`)),
        h('div', { class: 'hc-keys' }, h('span', { class: 'hc-role' }, t('handcalc.keys')), ...perKey((tok, j) => h('span', { class: 'hc-vec hc-key-vec', 'data-key': String(j) }, h('span', { class: 'hc-pos' }, String(j + 1)), `${labels[tok]} = ${vec(block.vectors[tok])}`))),
      ),
      step('dots', 'handcalc.step_dots', perKey((tok, j) => cell(`${qName}·${labels[tok]}`, { 'data-key': String(j) }))),
      h('p', { class: 'hc-arrow', 'aria-hidden': 'true' }, t('handcalc.arrow_scale', { dk: block.vectors[0].length })),
      step('scores', 'handcalc.step_scores', perKey((tok, j) => cell(`${qName}·${labels[tok]} / √${block.vectors[0].length}`, { 'data-key': String(j) }))),
      h('p', { class: 'hc-arrow', 'aria-hidden': 'true' }, t('handcalc.arrow_softmax')),
      step('weights', 'handcalc.step_weights', perKey((tok, j) => h('div', { class: 'hc-cell hc-bar-cell', 'data-key': String(j) }, h('span', { class: 'hc-expr' }, `${qName} → ${labels[tok]}`), h('span', { class: 'hc-bar-track', 'aria-hidden': 'true' }, h('span', { class: 'hc-bar' })), h('span', { class: 'hc-val' }, '?')))),
      h('p', { class: 'hc-arrow', 'aria-hidden': 'true' }, t('handcalc.arrow_sum', { sum: ord.map((tok, j) => `w${SUB[j + 1]}·${labels[tok]}`).join(' + ') })),
      step('output', 'handcalc.step_output', block.vectors[0].map((_, c) => cell(`y[${c}]`, { 'data-dim': String(c) }))),
    );
    return { panel, stepEls, order: o };
  });
  body.append(...panels.map((p) => p.panel));

  // What each step shows: the core's numbers once its question is settled,
  // else the student's typed numbers (lit while typing), else "?".
  const paint = () => {
    for (const [k, p] of panels.entries()) {
      for (const name of STEPS) {
        const box = p.stepEls[name];
        const id = p.order.steps[name];
        const settled = id ? done.get(id) : null;
        const mine = id ? typed.get(id) : null;
        const state = settled ? 'done' : mine?.some((v) => v !== '') ? 'typing' : 'todo';
        box.dataset.state = state;
        box.classList.toggle('linked', !!id && id === active);
        const cells = [...box.querySelectorAll('.hc-cell')];
        const shown = [];
        cells.forEach((c, i) => {
          const val = c.querySelector('.hc-val');
          const bar = c.querySelector('.hc-bar');
          let text = '?';
          let width = 0;
          if (settled && values) {
            const v = values[k][name][i];
            text = fmt(v);
            width = name === 'weights' ? v : 0;
            c.dataset.value = String(v);
          } else {
            delete c.dataset.value;
            if (mine && mine[i] !== undefined && mine[i] !== '') text = mine[i];
            // The student's own number sizes the bar while they type (theirs, not the core's).
            const typedNumber = Number(String(mine?.[i] ?? '').normalize('NFKC'));
            if (name === 'weights' && mine && Number.isFinite(typedNumber)) width = Math.max(0, Math.min(1, typedNumber));
          }
          if (val.textContent !== text) val.textContent = text;
          val.classList.toggle('typed', !settled && text !== '?');
          if (bar) bar.style.width = `${(width * 100).toFixed(1)}%`;
          shown.push(text);
        });
        const title = box.querySelector('.hc-step-name').textContent.replace(/^\d/, '').trim();
        box.setAttribute('aria-label', t(`handcalc.state_${state}`, { step: title, values: shown.join(', ') }));
      }
    }
    w.state.done = Object.fromEntries(done);
  };

  const setActive = (id, how) => {
    if (how === 'point' && id === null && root().contains(document.activeElement) && questionOf(document.activeElement)) id = questionOf(document.activeElement);
    active = id;
    for (const q of questionIds) questionEl(q)?.classList.toggle('hc-linked', q === id);
    paint();
    if (how === 'focus' && id) showStep(id);
  };
  // On a phone the drawing stays at the top of the screen in a box of its own (sticky, at most
  // half the screen, style.css) while the questions below it are answered: the step a question
  // asks about is scrolled into that box when the question's field takes the focus, if it is not
  // whole in it already.
  const showStep = (id) => {
    const box = el.closest('.lab-stage-visual');
    const step = el.querySelector('.hc-step.linked');
    if (!box || !step || getComputedStyle(box).position !== 'sticky' || box.scrollHeight <= box.clientHeight + 1) return;
    // The order's title sticks at the box's top (which order the numbers are of): the step goes right under it.
    const head = step.closest('.hc-order')?.querySelector('h3');
    const above = head ? head.getBoundingClientRect().height : 0;
    // A step already whole in the box stays where it is (on a phone both orders fit in it: the box keeps them).
    const r = step.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (r.top >= b.top + above && r.bottom <= b.bottom) return;
    box.scrollTop += r.top - b.top - above - 4;
  };
  // (The stage of this exercise is the one that sticks: its drawing is what the questions ask about.)
  queueMicrotask(() => el.closest('.lab-stage')?.classList.add('sticky-visual'));
  const questionOf = (target) => {
    const q = target?.closest?.('[data-question]');
    return q && questionIds.has(q.dataset.question) ? q.dataset.question : null;
  };
  const readTyped = (id) => {
    const q = questionEl(id);
    if (q) typed.set(id, [...q.querySelectorAll('input[data-field]')].map((i) => i.value.trim()));
  };
  // Listeners on the exercise page (the questions are its elements); they go with it.
  queueMicrotask(() => {
    const r = root();
    r.addEventListener('input', (e) => {
      const id = questionOf(e.target);
      if (!id) return;
      readTyped(id);
      paint();
    });
    r.addEventListener('focusin', (e) => {
      const id = questionOf(e.target);
      if (id) setActive(id, 'focus');
    });
    r.addEventListener('focusout', (e) => {
      if (questionOf(e.target) && !questionOf(e.relatedTarget)) setActive(null, 'focus');
    });
    for (const id of questionIds) readTyped(id);
    paint();
  });
  const settle = (id, how) => {
    if (!questionIds.has(id) || done.get(id)) return;
    done.set(id, how);
    paint();
  };
  const onAnswered = (e) => {
    if (!el.isConnected) return window.removeEventListener('poslab:answered', onAnswered);
    if (e.detail?.exercise === ctx.exercise.id && e.detail.correct) settle(e.detail.question, 'solved');
  };
  const onGaveUp = (e) => {
    if (!el.isConnected) return window.removeEventListener('poslab:gave-up', onGaveUp);
    if (e.detail?.exercise === ctx.exercise.id) for (const id of e.detail.questions ?? []) settle(id, 'given');
  };
  window.addEventListener('poslab:answered', onAnswered);
  window.addEventListener('poslab:gave-up', onGaveUp);

  // The core's numbers for every step, kept here and drawn only into settled steps.
  w.update = async () => {
    try {
      const results = await Promise.all(orders.map((o) => ctx.core.call('attentionSteps', { vectors: o.order.map((i) => block.vectors[i]), weights: block.weights ?? ctx.lab().weights })));
      values = results.map((r, k) => {
        const S = orders[k].order.length;
        const qRow = orders[k].order.indexOf(query);
        const D = r.stepOutput.shape[1];
        const rowOf = (m) => Array.from(m.data.subarray(qRow * S, (qRow + 1) * S));
        return { dots: rowOf(r.dots), scores: rowOf(r.scores), weights: rowOf(r.weights), output: Array.from(r.stepOutput.data.subarray(qRow * D, (qRow + 1) * D)) };
      });
      errorSlot.replaceChildren();
      w.error = null;
      w.result = { steps: STEPS.length * orders.length };
    } catch (e) {
      values = null;
      w.error = e;
      errorSlot.replaceChildren(errorBox(e));
    }
    paint();
  };
  return w;
}
