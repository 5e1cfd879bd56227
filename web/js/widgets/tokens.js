// Token chips of the lab's sentence, reorderable by drag and drop or with the
// arrow keys (a chip keeps focus while it moves; a live region says where it
// went). The order is a permutation: row i of PX is row order[i] of X.
import { h, errorBox } from '../dom.js';
import { t, pick } from '../i18n.js';
import { joinTokens } from './common.js';

export function mount(el, block, ctx) {
  const w = { state: { tokens: [], order: [], isTarget: false }, result: null, error: null };
  const list = h('ol', { class: 'chips', 'aria-label': t('tokens.aria') });
  const live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
  const targetLine = h('p', { class: 'target-line' });
  const orderLine = h('p', { class: 'order-line' });
  const reset = h('button', { type: 'button', class: 'secondary' }, t('tokens.reset'));
  // For touch screens (no arrow keys, no HTML drag and drop): move the selected chip.
  const left = h('button', { type: 'button', class: 'secondary', 'data-move': 'left' }, t('tokens.move_left'));
  const right = h('button', { type: 'button', class: 'secondary', 'data-move': 'right' }, t('tokens.move_right'));
  let selected = 0;
  const errorSlot = h('div');
  el.append(h('p', { class: 'help', id: `${block.id}-help` }, t('tokens.help')), list, h('div', { class: 'chip-bar' }, left, right, reset, orderLine), targetLine, live, errorSlot);
  let targetTokens = null;
  let dragFrom = null;

  function setOrder(order, focusIndex, announce) {
    w.state.order = order;
    ctx.setUrl('order', order.every((v, i) => v === i) ? undefined : order);
    render(focusIndex);
    if (announce) live.textContent = announce;
    ctx.changed(block.id, true);
  }

  function move(from, to) {
    const order = w.state.order.slice();
    const [item] = order.splice(from, 1);
    order.splice(to, 0, item);
    const name = w.state.tokens[item];
    setOrder(order, to, t('tokens.moved', { token: name, pos: to + 1, n: order.length }));
  }

  function render(focusIndex) {
    const { tokens, order } = w.state;
    list.replaceChildren(
      ...order.map((tokIndex, pos) => {
        const chip = h(
          'li',
          {
            class: 'chip',
            tabindex: pos === (focusIndex ?? 0) ? '0' : '-1',
            draggable: 'true',
            'data-pos': pos,
            'data-token': tokens[tokIndex],
            'aria-describedby': `${block.id}-help`,
            'aria-label': t('tokens.chip', { token: tokens[tokIndex], pos: pos + 1, n: order.length }),
            style: `--chip-hue: ${(tokIndex * 47) % 360}`,
          },
          h('span', { class: 'chip-pos', 'aria-hidden': 'true' }, String(pos + 1)),
          h('span', { class: 'chip-text', 'aria-hidden': 'true' }, tokens[tokIndex]),
        );
        chip.addEventListener('focus', () => {
          selected = pos;
          list.querySelectorAll('.chip').forEach((c) => c.classList.toggle('selected', c === chip));
        });
        chip.addEventListener('click', () => chip.focus());
        chip.addEventListener('keydown', (e) => {
          const n = order.length;
          const moves = { ArrowLeft: pos - 1, ArrowUp: pos - 1, ArrowRight: pos + 1, ArrowDown: pos + 1, Home: 0, End: n - 1 };
          if (e.key in moves) {
            e.preventDefault();
            const to = Math.max(0, Math.min(n - 1, moves[e.key]));
            if (to !== pos) move(pos, to);
          }
        });
        chip.addEventListener('dragstart', (e) => {
          dragFrom = pos;
          e.dataTransfer.effectAllowed = 'move';
          e.dataTransfer.setData('text/plain', String(pos));
          chip.classList.add('dragging');
        });
        chip.addEventListener('dragend', () => chip.classList.remove('dragging'));
        chip.addEventListener('dragover', (e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = 'move';
        });
        chip.addEventListener('drop', (e) => {
          e.preventDefault();
          const from = dragFrom ?? Number(e.dataTransfer.getData('text/plain'));
          dragFrom = null;
          if (Number.isInteger(from) && from !== pos) move(from, pos);
        });
        return chip;
      }),
    );
    if (focusIndex !== undefined) list.children[focusIndex]?.focus();
    const current = order.map((i) => tokens[i]);
    w.state.current = current;  // the tokens in the learner's order (a task's answer)
    w.state.isTarget = !!targetTokens && current.join('\u0000') === targetTokens.join('\u0000');
    orderLine.textContent = t('tokens.current', { sentence: joinTokens(current, ctx.lab().sentence.trim().includes(' ')) });
    targetLine.textContent = targetTokens ? t(w.state.isTarget ? 'tokens.target_reached' : 'tokens.target', { sentence: pick(block.target) }) : '';
    targetLine.classList.toggle('reached', w.state.isTarget);
  }

  const nudge = (step) => {
    const n = w.state.order.length;
    const to = Math.max(0, Math.min(n - 1, selected + step));
    if (n && to !== selected) move(selected, to);
    selected = to;
  };
  left.addEventListener('click', () => nudge(-1));
  right.addEventListener('click', () => nudge(1));
  reset.addEventListener('click', () => setOrder(w.state.tokens.map((_, i) => i), 0, t('tokens.was_reset')));

  w.update = async () => {
    errorSlot.replaceChildren();
    const lab = ctx.lab();
    try {
      const tokens = await ctx.core.call('tokenize', lab.sentence);
      w.state.tokens = tokens;
      const fromUrl = ctx.getUrl('order');
      const valid = Array.isArray(fromUrl) && fromUrl.length === tokens.length && [...fromUrl].sort((a, b) => a - b).every((v, i) => v === i);
      if (!valid || w.state.order.length !== tokens.length) w.state.order = valid ? fromUrl.slice() : tokens.map((_, i) => i);
      targetTokens = null;
      if (block.target) {
        const target = await ctx.core.call('tokenize', pick(block.target));
        // Only a reordering of this sentence can be a target.
        if ([...target].sort().join('\u0000') === [...tokens].sort().join('\u0000')) targetTokens = target;
      }
      w.error = null;
      render();
    } catch (e) {
      w.error = e;
      w.state.tokens = [];
      w.state.order = [];
      list.replaceChildren();
      errorSlot.append(errorBox(e));
    }
  };
  return w;
}
