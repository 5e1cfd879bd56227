// The 1024 wall: GPT-2's shape (D = 768, a 1024-row learned table). A
// position slider to 2047; past 1023 the learned table throws and the core's
// error is shown in place as the lesson, while sinusoidal and RoPE keep
// producing values (a few dimensions plotted across positions).
import { h, errorBox, fmt } from '../dom.js';
import { t } from '../i18n.js';
import { richInline } from '../rich.js';
import { lineplot } from './lineplot.js';
import { vectorTable } from './common.js';

const ROPE_STEP = 2;
const SLIDER_QUIET_MS = 250;

export function mount(el, block, ctx) {
  const D = block.d ?? 768;
  const rows = block.max_positions ?? 1024;
  const max = block.max ?? 2047;
  const dims = block.dims ?? [0, 1];
  const w = { state: { pos: block.start ?? 0 }, result: { learnedError: null }, error: null };
  const fromUrl = ctx.getUrl('pos');
  if (Number.isInteger(fromUrl) && fromUrl >= 0 && fromUrl <= max) w.state.pos = fromUrl;

  const slider = h('input', { type: 'range', min: 0, max, step: 1, value: w.state.pos, id: `${block.id}-slider`, 'aria-describedby': `${block.id}-shape` });
  const number = h('input', { type: 'number', min: 0, max, step: 1, value: w.state.pos, class: 'num', 'aria-label': t('wall.position_number') });
  const readout = h('div', { class: 'wall-readout', 'aria-live': 'polite' });
  const plots = h('div', { class: 'wall-plots' });
  // Attention at GPT-2 small's shape over the whole sequence 0…pos: the
  // learned table fails past 1024 tokens, the others carry on. Heavy (up to
  // 2048 × 768, 12 heads): it runs in the core's Worker, one scheme at a time,
  // with its progress shown, and only when the slider is released.
  const runButton = h('button', { type: 'button', class: 'secondary gpt2-run' }, t('wall.gpt2_run'));
  const gpt2Status = h('p', { class: 'gpt2-status', role: 'status', 'aria-live': 'polite' });
  const gpt2Progress = h('progress', { class: 'gpt2-progress', max: 3, value: 0, hidden: true, 'aria-label': t('wall.gpt2_title') });
  const gpt2Out = h('div', { class: 'gpt2-out table-scroll', tabindex: '0' });
  const gpt2 = h('section', { class: 'panel gpt2-attention', 'aria-busy': 'false' }, h('h3', { class: 'sub-title' }, t('wall.gpt2_title')), h('p', { class: 'muted' }, t('wall.gpt2_intro')), runButton, gpt2Progress, gpt2Status, gpt2Out);
  el.append(
    h('p', { class: 'shape', id: `${block.id}-shape`, html: richInline(t('wall.shape', { rows, D })) }),
    h('div', { class: 'slider-row' }, h('label', { for: `${block.id}-slider` }, t('wall.position')), slider, number),
    readout,
    gpt2,
    plots,
  );

  const pastTable = (r) => r.pe === 'learned' && r.error && r.error.code === 'position_past_table';
  // One run at a time (a run is three forward passes of up to 2048 × 768,
  // and a pass cannot be stopped once the core has it). A new request
  // supersedes the run in flight at once: it stops before its next scheme and
  // draws nothing. The slider's requests wait until it has been still for
  // SLIDER_QUIET_MS (each arrow key is a change), so held keys start one run,
  // for the last position; the button starts one right away. At most one run
  // is in flight and one wanted. data-shown-s says which S the table shows.
  let gpt2Ticket = 0;
  let gpt2Running = false;
  let gpt2Wanted = false;
  let quietTimer = null;
  function startLatest() {
    quietTimer = null;
    if (gpt2Running) {
      gpt2Wanted = true;
      return;
    }
    gpt2Running = true;
    (async () => {
      try {
        do {
          gpt2Wanted = false;
          await runAttention(gpt2Ticket);
        } while (gpt2Wanted);
      } finally {
        gpt2Running = false;
      }
    })();
  }
  function requestAttention(wait) {
    gpt2Ticket++;
    clearTimeout(quietTimer);
    if (wait) quietTimer = setTimeout(startLatest, wait);
    else startLatest();
  }
  async function runAttention(mine) {
    const S = w.state.pos + 1;
    const lab = ctx.lab();
    let sentence;
    try {
      sentence = await ctx.core.call('tokenize', lab.sentence);
    } catch (e) {
      gpt2Out.replaceChildren(errorBox(e));
      return;
    }
    // S tokens: the sentence's tokens over and over (only which token stands where; no numbers).
    const tokens = Array.from({ length: S }, (_, i) => sentence[i % sentence.length]);
    const schemes = ['learned', 'sinusoidal', 'rope'];
    const rowsOut = [];
    gpt2.setAttribute('aria-busy', 'true');
    gpt2Progress.hidden = false;
    for (const [i, pe] of schemes.entries()) {
      if (mine !== gpt2Ticket) return; // the slider moved on: that run is dropped
      gpt2Progress.value = i;
      gpt2Status.textContent = t('wall.gpt2_computing', { scheme: t(`wall.${pe}`), i: i + 1, n: schemes.length, S });
      const started = performance.now();
      try {
        const r = await ctx.core.call('forward', { tokens, pe, dModel: D, heads: 12, weights: 'random', seed: lab.seed, maxPositions: rows, returnAttention: false }, { path: 'output', columns: [0, 1, 2, 3] });
        const last = Array.from(r.output.data.slice((S - 1) * 4, S * 4));
        rowsOut.push({ pe, ok: true, ms: performance.now() - started, last });
      } catch (e) {
        rowsOut.push({ pe, ok: false, error: e });
      }
    }
    if (mine !== gpt2Ticket) return;
    gpt2Progress.value = schemes.length;
    gpt2Progress.hidden = true;
    gpt2.setAttribute('aria-busy', 'false');
    gpt2Status.textContent = t('wall.gpt2_done', { S });
    gpt2.dataset.shownS = String(S);
    gpt2Out.replaceChildren(
      h(
        'table',
        { class: 'data-table gpt2-table' },
        h('caption', {}, t('wall.gpt2_caption', { S })),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('wall.gpt2_scheme')), h('th', { scope: 'col' }, t('wall.gpt2_time')), h('th', { scope: 'col' }, t('wall.gpt2_out')))),
        h(
          'tbody',
          {},
          ...rowsOut.map((r) =>
            h(
              'tr',
              { 'data-scheme': r.pe, 'data-ok': String(r.ok) },
              h('th', { scope: 'row' }, t(`wall.${r.pe}`)),
              h('td', {}, r.ok ? String(Math.round(r.ms)) : '—'),
              h('td', {}, r.ok ? r.last.map((v) => fmt(v, 3)).join(', ') : pastTable(r) ? t('wall.gpt2_failed_table', { rows }) : t('wall.gpt2_failed')),
            ),
          ),
        ),
      ),
      // What the core said, in place, below the table; the learned table's
      // wall is already explained once in its panel above (the table's cell
      // says so), so only other failures are shown here.
      ...rowsOut.filter((r) => !r.ok && !pastTable(r)).map((r) => errorBox(r.error)),
    );
  }
  runButton.addEventListener('click', () => requestAttention(0));
  slider.addEventListener('change', () => requestAttention(SLIDER_QUIET_MS));
  // The curves do not depend on the slider: computed once per update.
  let curves = null;
  const q0 = Array.from({ length: D }, (_, i) => (i % 2 === 0 ? 1 : 0));

  async function computeCurves() {
    const seed = ctx.lab().seed;
    const sin = await ctx.core.call('encoding', { scheme: 'sinusoidal', length: max + 1, dModel: D }, { path: 'encoding', columns: dims });
    const learned = await ctx.core.call('encoding', { scheme: 'learned', length: rows, dModel: D, maxPositions: rows, seed }, { path: 'encoding', columns: dims });
    const positions = [];
    for (let p = 0; p <= max; p += ROPE_STEP) positions.push(p);
    const rope = await ctx.core.batch(positions.map((p) => ({ method: 'ropeRotate', args: { vector: q0, position: p }, select: { columns: dims } })));
    const bad = rope.find((r) => !r.ok);
    if (bad) throw bad.error;
    const col = (m, j) => Array.from({ length: m.shape[0] }, (_, r) => m.data[r * dims.length + j]);
    const seq = (n, step = 1) => Array.from({ length: n }, (_, i) => i * step);
    return {
      sinusoidal: dims.map((d, j) => ({ label: t('pe.dim_label', { d }), xs: seq(max + 1), ys: col(sin.encoding, j) })),
      learned: dims.map((d, j) => ({ label: t('pe.dim_label', { d }), xs: seq(rows), ys: col(learned.encoding, j) })),
      rope: dims.map((d, j) => ({ label: t('pe.dim_label', { d }), xs: positions, ys: rope.map((r) => r.result[j]) })),
    };
  }

  let ticket = 0;
  async function showPosition(user = false) {
    const pos = w.state.pos;
    const mine = ++ticket;
    const seed = ctx.lab().seed;
    const calls = [
      { method: 'encoding', args: { scheme: 'learned', length: 1, positionOffset: pos, dModel: D, maxPositions: rows, seed }, select: { path: 'encoding', columns: dims } },
      { method: 'encoding', args: { scheme: 'sinusoidal', length: 1, positionOffset: pos, dModel: D }, select: { path: 'encoding', columns: dims } },
      { method: 'ropeRotate', args: { vector: q0, position: pos }, select: { columns: dims } },
    ];
    const [learned, sin, rope] = await ctx.core.batch(calls);
    if (mine !== ticket) return; // a newer position is on its way
    w.result = { learnedError: learned.ok ? null : learned.error, pos };
    const dimsLabels = dims.map((d) => `i=${d}`);
    const line = (scheme, r, values) =>
      h(
        'section',
        { class: `panel wall-${scheme}`, 'data-scheme': scheme },
        h('h3', { class: 'sub-title' }, t(`wall.${scheme}`)),
        r.ok ? vectorTable([{ label: t('wall.at', { pos }), values }], { labelTitle: '', dims: dimsLabels }) : errorBox(r.error, { lesson: scheme === 'learned' }),
        scheme === 'learned' && !r.ok ? h('p', { class: 'lesson-text' }, t('wall.lesson', { pos, last: rows - 1 })) : null,
      );
    readout.replaceChildren(
      h('p', { class: 'pos-line' }, t('wall.pos_line', { pos, n: pos + 1 })),
      h(
        'div',
        { class: 'side-by-side three' },
        line('learned', learned, learned.ok ? Array.from(learned.result.encoding.data) : null),
        line('sinusoidal', sin, sin.ok ? Array.from(sin.result.encoding.data) : null),
        line('rope', rope, rope.ok ? Array.from(rope.result) : null),
      ),
    );
    if (curves) {
      plots.replaceChildren(
        lineplot(curves.learned, { caption: t('wall.plot_learned', { rows, last: rows - 1 }), xLabel: t('pe.pos'), xMin: 0, xMax: max, cursor: pos, wall: rows, wallLabel: t('wall.no_rows', { rows }) }),
        lineplot(curves.sinusoidal, { caption: t('wall.plot_sinusoidal'), xLabel: t('pe.pos'), xMin: 0, xMax: max, cursor: pos }),
        lineplot(curves.rope, { caption: t('wall.plot_rope'), xLabel: t('pe.pos'), xMin: 0, xMax: max, cursor: pos }),
      );
    }
    ctx.changed(block.id, user);
  }

  function setPos(v) {
    const pos = Math.max(0, Math.min(max, Math.round(Number(v))));
    if (!Number.isFinite(pos)) return;
    w.state.pos = pos;
    slider.value = String(pos);
    number.value = String(pos);
    ctx.setUrl('pos', pos);
    showPosition(true);
  }
  slider.addEventListener('input', () => setPos(slider.value));
  number.addEventListener('change', () => setPos(number.value));

  w.update = async () => {
    try {
      curves = await computeCurves();
    } catch (e) {
      curves = null;
      plots.replaceChildren(errorBox(e));
    }
    await showPosition();
  };
  w.fmt = fmt;
  return w;
}
