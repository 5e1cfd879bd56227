// Token chips of the lab's sentence, reorderable by drag and drop, with the
// move buttons (touch), or with the keyboard (grab, move, drop; a live region
// says each step). The order is a permutation: row i of PX is row order[i] of X.
import { h, errorBox } from '../dom.js';
import { t, pick } from '../i18n.js';
import { joinTokens } from './common.js';
import { snapshot, play } from './motion.js';

export function mount(el, block, ctx) {
  const w = { state: { tokens: [], order: [], isTarget: false }, result: null, error: null };
  // The APG's reorderable listbox: one chip is in the Tab order (roving
  // tabindex); ← → (↑ ↓, Home, End) move focus between chips; Space or Enter
  // grabs the focused chip, the arrows then move it, Space or Enter drops it
  // and Escape puts it back. Every step is said in the live region.
  const list = h('ol', { class: 'chips', 'data-flip-root': 'chips', role: 'listbox', 'aria-orientation': 'horizontal', 'aria-label': t('tokens.aria') });
  const live = h('p', { class: 'sr-only', 'aria-live': 'polite' });
  const targetLine = h('p', { class: 'target-line' });
  const orderLine = h('p', { class: 'order-line' });
  const reset = h('button', { type: 'button', class: 'secondary' }, t('tokens.reset'));
  // For touch screens (no arrow keys, no HTML drag and drop): move the selected chip.
  const left = h('button', { type: 'button', class: 'secondary', 'data-move': 'left' }, t('tokens.move_left'));
  const right = h('button', { type: 'button', class: 'secondary', 'data-move': 'right' }, t('tokens.move_right'));
  let active = 0;  // the chip in the Tab order (the selected one)
  let grab = null;  // { order: the order before the grab } while a chip is held
  const errorSlot = h('div');
  el.append(h('p', { class: 'help', id: `${block.id}-help` }, h('span', { class: 'help-keys' }, t('tokens.help')), h('span', { class: 'help-touch' }, t('tokens.help_touch'))), list, h('div', { class: 'chip-bar' }, left, right, reset, orderLine), targetLine, live, errorSlot);
  let targetTokens = null;
  let dragFrom = null;

  const say = (key, pos) => {
    const n = w.state.order.length;
    live.textContent = t(key, { token: w.state.tokens[w.state.order[pos]], pos: pos + 1, n });
  };

  function setOrder(order, focus) {
    w.state.order = order;
    ctx.setUrl('order', order.every((v, i) => v === i) ? undefined : order);
    render(focus);
    ctx.changed(block.id, true);
  }

  function move(from, to, focus = true) {
    const order = w.state.order.slice();
    const [item] = order.splice(from, 1);
    order.splice(to, 0, item);
    active = to;
    setOrder(order, focus);
    say('tokens.moved', to);
  }

  function drop(announce = true) {
    if (!grab) return;
    grab = null;
    render(list.contains(document.activeElement));
    if (announce) say('tokens.dropped', active);
  }

  function onKey(e, pos) {
    const n = w.state.order.length;
    const steps = { ArrowLeft: pos - 1, ArrowUp: pos - 1, ArrowRight: pos + 1, ArrowDown: pos + 1, Home: 0, End: n - 1 };
    if (e.key in steps) {
      e.preventDefault();
      const to = Math.max(0, Math.min(n - 1, steps[e.key]));
      if (to === pos) return;
      if (grab) move(pos, to);
      else {
        active = to;
        render(true);
      }
    } else if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      if (grab) drop();
      else {
        grab = { order: w.state.order.slice() };
        active = pos;
        render(true);
        say('tokens.grabbed', pos);
      }
    } else if (e.key === 'Escape' && grab) {
      e.preventDefault();
      const item = w.state.order[pos];
      const before = grab.order;
      grab = null;
      active = before.indexOf(item);
      setOrder(before, true);
      say('tokens.cancelled', active);
    }
  }

  // focus: whether the active chip takes the keyboard focus (not when a
  // button outside the list moved it, nor on a plain re-render).
  function render(focus = false) {
    const { tokens, order } = w.state;
    focus ||= list.contains(document.activeElement);  // a re-render keeps the focus where it was
    active = Math.max(0, Math.min(order.length - 1, active));
    // The chips slide from their old places to their new ones (motion.js).
    const before = snapshot(list);
    list.replaceChildren(
      ...order.map((tokIndex, pos) => {
        const held = !!grab && pos === active;
        const chip = h(
          'li',
          {
            class: `chip${pos === active ? ' selected' : ''}${held ? ' grabbed' : ''}`,
            role: 'option',
            'aria-selected': pos === active ? 'true' : 'false',
            tabindex: pos === active ? '0' : '-1',
            draggable: 'true',
            'data-pos': pos,
            // Its place, for the position highlight (exercise 4's encoding table and clocks).
            'data-hl-pos': pos,
            'data-token': tokens[tokIndex],
            // Linked highlighting and the slide follow the token, not the place.
            'data-hl-token': String(tokIndex),
            'data-flip': `chip:${tokIndex}`,
            'aria-describedby': `${block.id}-help`,
            // Named by its token (and "grabbed" while held); its place is "pos of n".
            'aria-posinset': pos + 1,
            'aria-setsize': order.length,
            style: `--chip-hue: ${(tokIndex * 47) % 360}`,
          },
          h('span', { class: 'chip-pos', 'aria-hidden': 'true' }, String(pos + 1)),
          h('span', { class: 'chip-text' }, tokens[tokIndex]),
          held ? h('span', { class: 'sr-only' }, t('tokens.grabbed_state')) : null,
        );
        chip.addEventListener('click', () => {
          if (grab) drop(false);
          if (active !== pos) {
            active = pos;
            render(true);
          } else chip.focus();
        });
        chip.addEventListener('keydown', (e) => onKey(e, pos));
        chip.addEventListener('dragstart', (e) => {
          if (grab) drop(false);
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
    list.classList.toggle('holding', !!grab);
    play(list, before);
    if (focus) list.children[active]?.focus();
    ctx.highlight?.refresh();
    ctx.positionHighlight?.refresh();
    const current = order.map((i) => tokens[i]);
    w.state.current = current;  // the tokens in the learner's order (a task's answer)
    // The goal counts only when the learner reordered the sentence: typing
    // the goal sentence itself is not a reordering (the task's core check
    // refuses it too).
    const atTarget = !!targetTokens && current.join('\u0000') === targetTokens.join('\u0000');
    const reordered = !order.every((v, i) => v === i);
    w.state.isTarget = atTarget && reordered;
    orderLine.textContent = t('tokens.current', { sentence: joinTokens(current, ctx.lab().sentence.trim().includes(' ')) });
    targetLine.textContent = targetTokens ? t(w.state.isTarget ? 'tokens.target_reached' : atTarget ? 'tokens.target_typed' : 'tokens.target', { sentence: pick(block.target) }) : '';
    targetLine.classList.toggle('reached', w.state.isTarget);
  }

  // Leaving the list (Tab, a click elsewhere) drops a held chip where it is.
  list.addEventListener('focusout', () => {
    setTimeout(() => {
      if (grab && !list.contains(document.activeElement)) drop();
    });
  });

  const nudge = (step) => {
    const n = w.state.order.length;
    const to = Math.max(0, Math.min(n - 1, active + step));
    if (n && to !== active) move(active, to, false);
  };
  left.addEventListener('click', () => nudge(-1));
  right.addEventListener('click', () => nudge(1));
  reset.addEventListener('click', () => {
    grab = null;
    active = 0;
    setOrder(w.state.tokens.map((_, i) => i), false);
    live.textContent = t('tokens.was_reset');
  });

  w.update = async () => {
    const lab = ctx.lab();
    // The same sentence in the same order (another control changed): the chips stay as they are.
    const fromUrl = ctx.getUrl('order');
    const wanted = Array.isArray(fromUrl) ? fromUrl : w.state.order.map((_, i) => i);
    if (!w.error && w.state.sentence === lab.sentence && wanted.length === w.state.order.length && wanted.every((v, i) => v === w.state.order[i])) return;
    errorSlot.replaceChildren();
    try {
      const tokens = await ctx.core.call('tokenize', lab.sentence);
      w.state.tokens = tokens;
      w.state.sentence = lab.sentence;
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
      grab = null;
      render();
    } catch (e) {
      w.error = e;
      w.state.sentence = undefined;
      w.state.tokens = [];
      w.state.order = [];
      list.replaceChildren();
      // Nothing of the refused sentence's predecessor stays: not its order line.
      orderLine.textContent = '';
      targetLine.textContent = '';
      errorSlot.append(errorBox(e));
    }
  };
  return w;
}
