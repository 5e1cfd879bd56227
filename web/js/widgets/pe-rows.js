// The guide's point: "The" at position 0 and "the" at position 3 are one
// token, so one vector, until position information is added.
import { h, errorBox, row } from '../dom.js';
import { t } from '../i18n.js';
import { vectorTable } from './common.js';
import { rowsDiffer } from '../check.js';

export function mount(el, block, ctx) {
  const w = { state: {}, result: null, error: null };
  const body = h('div');
  el.append(body);
  w.update = async () => {
    const lab = ctx.lab();
    const [a, b] = block.rows;
    try {
      const r = await ctx.core.call('forward', { text: block.sentence, pe: lab.pe, dModel: lab.d, seed: lab.seed });
      const same = (m) => !rowsDiffer(row(m, a), row(m, b), 0);
      const inputSame = same(r.input);
      const hiddenSame = same(r.hidden);
      w.result = { inputSame, hiddenSame };
      const name = (i) => `${i}: ${r.tokens[i]}`;
      body.replaceChildren(
        h('p', { class: 'sentence' }, block.sentence),
        vectorTable(
          [
            { label: t('perows.before', { pos: name(a) }), values: row(r.input, a) },
            { label: t('perows.before', { pos: name(b) }), values: row(r.input, b) },
          ],
          { caption: t('perows.before_caption'), labelTitle: '' },
        ),
        h('p', { class: `readout ${inputSame ? 'same' : 'differ'}` }, t(inputSame ? 'perows.same' : 'perows.differ')),
        vectorTable(
          [
            { label: t('perows.after', { pos: name(a) }), values: row(r.hidden, a) },
            { label: t('perows.after', { pos: name(b) }), values: row(r.hidden, b) },
          ],
          { caption: t('perows.after_caption', { scheme: t(`scheme.${lab.pe}`) }), labelTitle: '' },
        ),
        h('p', { class: `readout ${hiddenSame ? 'same' : 'differ'}` }, t(hiddenSame ? 'perows.same' : 'perows.differ')),
      );
    } catch (e) {
      w.error = e;
      body.replaceChildren(errorBox(e));
    }
  };
  return w;
}
