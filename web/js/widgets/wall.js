// The 1024 wall: GPT-2's shape (D = 768, a 1024-row learned table). A
// position slider to 2047; past 1023 the learned table throws and the core's
// error is shown in place as the lesson, while sinusoidal and RoPE keep
// producing values (a few dimensions plotted across positions).
// Above it, the position table itself (table-views.js): by default the table
// of a tiny model trained here (core/table-client.js, in a Worker), or the one in
// a model file the student opens (.safetensors / .npy; only its header and
// that tensor are read), or the random N(0, 0.02²) baseline — each beside
// sinusoidal at the same shape. A table from a file is then the learned table
// of the wall experiment: its rows, and its own last row.
import { h, errorBox, fmt, withCode } from '../dom.js';
import { t } from '../i18n.js';
import { richInline } from '../rich.js';
import { lineplot } from './lineplot.js';
import { wallPicture, outputBars } from './wall-picture.js';
import { vectorTable } from './common.js';
import { filePicker } from '../file-picker.js';
import { tableViews } from './table-views.js';
import { openTableFile, tableSummary, trainedTable } from '../core/table-client.js';
import { TRAIN_TABLE } from '../core/table-read.js';
import { attentionWorkerCount, parseWorkerCount, splitForward } from '../core/attention-split.js';
import { attentionCores } from '../core/attention-pool.js';
import { drawNear, forget } from '../lazy-draw.js';

// The table chosen last, kept across re-renders (a language switch) of the page.
const chosen = { source: 'trained', file: null, tensor: '', result: null };

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
  // The picture (issue 24): one position axis through the three schemes, the learned table's rows ending at its last row.
  const picture = h('div', { class: 'wall-picture-box' });
  const plotsDetails = h('details', { class: 'wall-plots-details' }, h('summary', {}, t('wall.plots_one_by_one')), plots);
  // Attention at GPT-2 small's shape over the whole sequence 0…pos: the
  // learned table fails past 1024 tokens, the others carry on. Heavy (up to
  // 2048 × 768, 12 heads): it runs in Workers, one scheme at a time, with its
  // progress shown, and only when the slider is released. Each scheme's
  // heads are spread over navigator.hardwareConcurrency Workers
  // (core/attention-split.js; workers=N in the link fixes the count), with
  // the numbers of one Worker, bit for bit.
  const runButton = h('button', { type: 'button', class: 'secondary gpt2-run' }, t('wall.gpt2_run'));
  const gpt2Status = h('p', { class: 'gpt2-status', role: 'status', 'aria-live': 'polite' });
  const gpt2Progress = h('progress', { class: 'gpt2-progress', max: 3, value: 0, hidden: true, 'aria-label': t('wall.gpt2_title') });
  const gpt2Out = h('div', { class: 'gpt2-out table-scroll', tabindex: '0' });
  const workersAsked = parseWorkerCount(ctx.getUrl('workers'));
  const workersNote = workersAsked.error ? h('p', { class: 'core-error gpt2-workers-error', role: 'alert' }, t('wall.bad_workers', workersAsked.error.params)) : null;
  const gpt2 = h('section', { class: 'panel gpt2-attention', 'aria-busy': 'false' }, h('h3', { class: 'sub-title' }, t('wall.gpt2_title')), h('p', { class: 'muted' }, t('wall.gpt2_intro')), workersNote, runButton, gpt2Progress, gpt2Status, gpt2Out);
  // The position table section.
  // A button in the page's language opens the hidden file input (file-picker.js).
  const { button: fileButton, input: fileInput } = filePicker({ id: `${block.id}-file`, label: t('table.open'), accept: '.safetensors,.npy' });
  fileInput.classList.add('table-file');
  const drop = h('div', { class: 'table-drop', 'data-drop': 'true' }, fileButton, fileInput, h('p', { class: 'muted' }, t('table.drop')));
  const tensorSelect = h('select', { id: `${block.id}-tensor`, class: 'table-tensor' });
  const tensorRow = h('div', { class: 'table-tensor-row', hidden: true }, h('label', { for: `${block.id}-tensor` }, t('table.tensor')), ' ', tensorSelect);
  const trainedButton = h('button', { type: 'button', class: 'secondary table-trained' }, t('table.use_trained'));
  const randomButton = h('button', { type: 'button', class: 'secondary table-random' }, t('table.use_random'));
  const tableStatus = h('div', { class: 'table-status', role: 'status', 'aria-live': 'polite' });
  const tableOut = h('div', { class: 'table-out side-by-side' });
  const wallNote = h('p', { class: 'table-wall-note' });
  const tableSection = h(
    'section',
    { class: 'panel wall-table', 'aria-busy': 'false' },
    h('h3', { class: 'sub-title' }, t('table.title')),
    h('p', {}, t('table.intro')),
    h('div', { class: 'button-row' }, trainedButton, randomButton),
    tableStatus,
    // The views first (issue 24: within the first two screens at 1280×800);
    // a model file of one's own, the rarer path, is opened under them.
    tableOut,
    wallNote,
    h(
      'div',
      { class: 'table-file-box' },
      drop,
      h('p', { class: 'muted table-hint' }, ...withCode('table.hint_names', { names: ['wpe.weight', 'transformer.wpe.weight', 'embeddings.position_embeddings.weight'] }, 'names')),
      tensorRow,
    ),
  );
  el.append(
    h('p', { class: 'shape', id: `${block.id}-shape`, html: richInline(t('wall.shape', { rows, D })) }),
    // The wall first (the slider and what each scheme returns there), the table's own views after it.
    h('div', { class: 'slider-row' }, h('label', { for: `${block.id}-slider` }, t('wall.position')), slider, number),
    picture,
    readout,
    gpt2,
    tableSection,
    plotsDetails,
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
    const hardware = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 1;
    const cores = await attentionCores(ctx.core, attentionWorkerCount({ requested: workersAsked.count ?? null, hardware, heads: 12 }));
    if (mine !== gpt2Ticket) return;
    gpt2.setAttribute('aria-busy', 'true');
    gpt2Progress.hidden = false;
    for (const [i, pe] of schemes.entries()) {
      if (mine !== gpt2Ticket) return; // the slider moved on: that run is dropped
      gpt2Progress.value = i;
      gpt2Status.textContent = t(cores.length > 1 ? 'wall.gpt2_computing_workers' : 'wall.gpt2_computing', { scheme: t(`wall.${pe}`), i: i + 1, n: schemes.length, S, workers: cores.length });
      const started = performance.now();
      try {
        const r = await splitForward(cores, { tokens, pe, dModel: D, heads: 12, weights: 'random', seed: lab.seed, maxPositions: fileTable()?.rows ?? rows, returnAttention: false }, { path: 'output', columns: [0, 1, 2, 3] });
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
    gpt2.dataset.workers = String(cores.length);
    const failedText = (r) => (pastTable(r) ? t('wall.gpt2_failed_bar', { rows }) : t('wall.gpt2_failed'));
    gpt2Out.replaceChildren(
      h('figure', { class: 'gpt2-figure' }, h('figcaption', {}, t('wall.gpt2_bars_caption', { S, last: S - 1 })), outputBars(rowsOut, { S, label: (pe) => t(`wall.short_${pe}`), failedText, id: block.id })),
      // The numbers (and each scheme's time), one click away.
      h('details', { class: 'gpt2-numbers' }, h('summary', {}, t('wall.gpt2_numbers')), h(
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
              // data-last: the four values exactly (shortest round-trip text), for the tests.
              { 'data-scheme': r.pe, 'data-ok': String(r.ok), 'data-last': r.ok ? r.last.join(' ') : '' },
              h('th', { scope: 'row' }, t(`wall.${r.pe}`)),
              h('td', {}, r.ok ? String(Math.round(r.ms)) : '—'),
              h('td', {}, r.ok ? r.last.map((v) => fmt(v, 3)).join(', ') : pastTable(r) ? t('wall.gpt2_failed_table', { rows }) : t('wall.gpt2_failed')),
            ),
          ),
        ),
      )),
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
    const ft = fileTable();
    const learned = ft ? null : await ctx.core.call('encoding', { scheme: 'learned', length: rows, dModel: D, maxPositions: rows, seed }, { path: 'encoding', columns: dims });
    const positions = [];
    for (let p = 0; p <= max; p += ROPE_STEP) positions.push(p);
    const rope = await ctx.core.batch(positions.map((p) => ({ method: 'ropeRotate', args: { vector: q0, position: p }, select: { columns: dims } })));
    const bad = rope.find((r) => !r.ok);
    if (bad) throw bad.error;
    const col = (m, j) => Array.from({ length: m.shape[0] }, (_, r) => m.data[r * dims.length + j]);
    const seq = (n, step = 1) => Array.from({ length: n }, (_, i) => i * step);
    return {
      rows: ft ? ft.rows : rows,
      fromFile: !!ft,
      sinusoidal: dims.map((d, j) => ({ label: t('pe.dim_label', { d }), xs: seq(max + 1), ys: col(sin.encoding, j) })),
      learned: ft
        ? ftDims(ft).map((d) => ({ label: t('pe.dim_label', { d }), xs: seq(ft.rows), ys: Array.from({ length: ft.rows }, (_, p) => ft.data[p * ft.cols + d]) }))
        : dims.map((d, j) => ({ label: t('pe.dim_label', { d }), xs: seq(rows), ys: col(learned.encoding, j) })),
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
    // A table from a file: its own rows, and past its last row the core's own
    // error for a table of that many rows.
    const ft = fileTable();
    if (ft && pos >= ft.rows) calls.push({ method: 'encoding', args: { scheme: 'learned', length: 1, positionOffset: pos, dModel: 2, maxPositions: ft.rows, seed }, select: { path: 'encoding' } });
    const [graded, sin, rope, past] = await ctx.core.batch(calls);
    if (mine !== ticket) return; // a newer position is on its way
    // The task is the exercise's: GPT-2's 1024 rows (re-graded by the core the same way).
    w.result = { learnedError: graded.ok ? null : graded.error, pos };
    let learned = graded;
    let learnedValues = graded.ok ? Array.from(graded.result.encoding.data) : null;
    let learnedDims = dims;
    if (ft) {
      learnedDims = ftDims(ft);
      learned = pos < ft.rows ? { ok: true } : past;
      learnedValues = pos < ft.rows ? learnedDims.map((d) => ft.data[pos * ft.cols + d]) : null;
    }
    const dimsLabels = dims.map((d) => `i=${d}`);
    const line = (scheme, r, values) =>
      h(
        'section',
        { class: `panel wall-${scheme}`, 'data-scheme': scheme },
        h('h3', { class: 'sub-title' }, scheme === 'learned' && ft ? `${t('wall.learned_file')}: ${ft.name}` : t(scheme === 'learned' ? 'wall.learned_panel' : `wall.${scheme}`)),
        r.ok ? vectorTable([{ label: String(pos), values }], { labelTitle: 'pos', dims: scheme === 'learned' ? learnedDims.map((d) => `i=${d}`) : dimsLabels }) : errorBox(r.error, { lesson: scheme === 'learned' }),
        scheme === 'learned' && !r.ok ? h('p', { class: 'lesson-text' }, t('wall.lesson', { pos, last: (ft ? ft.rows : rows) - 1 })) : null,
      );
    readout.replaceChildren(
      h('p', { class: 'pos-line' }, t('wall.pos_line', { pos, n: pos + 1 })),
      h(
        'div',
        { class: 'side-by-side three' },
        line('learned', learned, learnedValues),
        line('sinusoidal', sin, sin.ok ? Array.from(sin.result.encoding.data) : null),
        line('rope', rope, rope.ok ? Array.from(rope.result) : null),
      ),
    );
    if (curves) {
      picture.replaceChildren(wallPicture(curves, { pos, max, id: block.id }));
      plots.replaceChildren(
        lineplot(curves.learned, { caption: t(curves.fromFile ? 'wall.plot_file' : 'wall.plot_learned', { rows: curves.rows, last: curves.rows - 1 }), xLabel: t('pe.pos'), xMin: 0, xMax: max, cursor: pos, wall: curves.rows, wallLabel: t('wall.no_rows', { rows: curves.rows }) }),
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

  // --- The position table ---------------------------------------------------
  function fileTable() {
    const r = chosen.source === 'file' ? chosen.result : null;
    if (!r || !r.summary) return null;
    const [tr, tc] = r.summary.shape;
    return { rows: tr, cols: tc, data: r.summary.table.data, name: r.picked.name || chosen.file.name };
  }
  // The slider's dimensions where the table has them, otherwise its first three.
  function ftDims(ft) {
    const inside = dims.filter((d) => d < ft.cols);
    return inside.length ? inside : [0, 1, 2].filter((d) => d < ft.cols);
  }
  async function refreshWall() {
    try {
      curves = await computeCurves();
    } catch (e) {
      curves = null;
      plots.replaceChildren(errorBox(e));
    }
    await showPosition();
  }
  function fillTensors(r) {
    const two = (r.tensors || []).filter((x) => x.shape.length === 2);
    tensorRow.hidden = r.format !== 'safetensors' || two.length === 0;
    // Appended one by one: a header may list 200,000 tensors, and spreading
    // that many nodes into one call overflows the call stack.
    const options = document.createDocumentFragment();
    if (!r.picked) options.append(h('option', { value: '' }, t('table.pick')));
    for (const x of two) options.append(h('option', { value: x.name, selected: r.picked && r.picked.name === x.name ? true : undefined }, `${x.name} [${x.shape.join(' × ')}] ${x.dtype}`));
    tensorSelect.replaceChildren(options);
    if (r.picked) tensorSelect.value = r.picked.name;
  }
  let tableTicket = 0;
  let tablesShown = 0;
  async function showTable(source) {
    const mine = ++tableTicket;
    const hadFile = !!fileTable();
    chosen.source = source;
    tableSection.setAttribute('aria-busy', 'true');
    tableSection.dataset.source = source;
    forget(tableOut);
    tableOut.replaceChildren();
    let summary = null;
    let note = '';
    try {
      if (source === 'file') {
        tableStatus.replaceChildren(h('p', {}, t('table.reading', { file: chosen.file.name })));
        // Once the bytes are read: what is being computed, on how many rows (a
        // 4096 × 4096 table takes seconds; the PCA samples rows by a stated rule).
        const progress = (p) => {
          if (mine !== tableTicket || p.stage !== 'analyze') return;
          tableStatus.replaceChildren(h('p', { class: 'table-progress', role: 'status' }, t('table.analyzing', { file: chosen.file.name, rows: p.rows, cols: p.cols, heatmap: p.heatmapRows, distances: p.distances, pca: p.pcaRows })));
        };
        const r = chosen.result ?? (await openTableFile(chosen.file, chosen.tensor, {}, progress));
        if (mine !== tableTicket) return;
        chosen.result = r;
        fillTensors(r);
        if (r.error) throw r.error;
        if (!r.summary) {
          tableStatus.replaceChildren(h('p', {}, t('table.pick')));
          return;
        }
        summary = r.summary;
        if (r.timing) {
          tableSection.dataset.readMs = r.timing.readMs.toFixed(1);
          tableSection.dataset.analyzeMs = r.timing.analyzeMs.toFixed(1);
        }
        note = t('table.source_file', { file: chosen.file.name, tensor: r.picked.name || r.picked.shape.join(' × '), dtype: r.picked.dtype });
      } else if (source === 'trained') {
        tensorRow.hidden = true;
        tableStatus.replaceChildren(h('p', {}, t('table.training', { steps: TRAIN_TABLE.steps })));
        const r = await trainedTable({ seed: 1 });
        summary = r.summary;
        note = t('table.source_trained', { steps: r.steps, last_trained: r.lastTrained });
      } else {
        tensorRow.hidden = true;
        const enc = await ctx.core.call('encoding', { scheme: 'learned', length: rows, dModel: D, maxPositions: rows, seed: ctx.lab().seed });
        summary = await tableSummary({ rows: enc.encoding.shape[0], cols: enc.encoding.shape[1], data: Float32Array.from(enc.encoding.data) });
        note = t('table.source_random');
      }
      const [r, c] = summary.shape;
      let sin;
      try {
        sin = await tableSummary({ rows: r, cols: c, scheme: 'sinusoidal' });
      } catch (e) {
        sin = { error: e };
      }
      if (mine !== tableTicket) return;
      tableStatus.replaceChildren();
      tableOut.replaceChildren(
        tableViews(summary, { title: t('table.col_table'), kind: 'table', note }),
        sin.error ? errorBox(sin.error) : tableViews(sin, { title: `${t('table.col_sin')} (${r} × ${c})`, kind: 'sinusoidal' }),
      );
      // After a table switch, heatmaps on screen (or nearly) are drawn now,
      // the others as they near it; at load the page does this once it has
      // its final layout, just before it says ready (runner.js).
      if (tablesShown++ && tableOut.isConnected) drawNear(tableOut);
    } catch (e) {
      if (mine !== tableTicket) return;
      tableStatus.replaceChildren(errorBox(e));
    } finally {
      if (mine === tableTicket) {
        tableSection.setAttribute('aria-busy', 'false');
        const ft = fileTable();
        wallNote.textContent = ft ? t('table.wall_file', { last: ft.rows - 1 }) : t('table.wall_default');
        if (ft || hadFile) refreshWall();
      }
    }
  }
  function openFile(file) {
    chosen.file = file;
    chosen.tensor = '';
    chosen.result = null;
    trackedTable('file');
  }
  fileInput.addEventListener('change', () => {
    if (fileInput.files && fileInput.files[0]) openFile(fileInput.files[0]);
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const files = e.dataTransfer?.files;
    if (!files || files.length !== 1) {
      tableStatus.replaceChildren(h('p', { class: 'core-error' }, t('table.drop_one')));
      return;
    }
    openFile(files[0]);
  });
  tensorSelect.addEventListener('change', () => {
    if (!tensorSelect.value || !chosen.file) return;
    chosen.tensor = tensorSelect.value;
    chosen.result = null;
    trackedTable('file');
  });
  // The table's views are part of the page: it is not ready (nor idle after a
  // click) until they are drawn. Training the table and summing it up run in
  // Workers of their own, outside the core calls the page counts, so they are
  // tracked here (an embedded lab reports its height once they are drawn).
  const trackedTable = (source) => (ctx.track ? ctx.track(showTable(source)) : showTable(source));
  trainedButton.addEventListener('click', () => trackedTable('trained'));
  randomButton.addEventListener('click', () => trackedTable('random'));
  trackedTable(chosen.source === 'file' && !chosen.file ? 'trained' : chosen.source);

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
