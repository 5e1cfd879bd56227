// Linked highlighting: one highlighted token per exercise page. Any element
// that stands for a token carries data-hl-token (a chip, a line's end, a
// matrix's row or column header); a matrix cell or a line carries
// data-hl-row and data-hl-col (its query and key tokens). Hovering or
// focusing any of them highlights that token everywhere on the page: .hl on
// its own elements, .hl-row and .hl-col on the cells and lines of its row
// and column. Leaving (mouse out, blur) clears it. Tokens are named by their
// index in the typed sentence, so the same word is found in every order.
export function createHighlight(root) {
  let current = null;
  const listeners = new Set();
  const apply = () => {
    if (current === null) root.removeAttribute('data-hl-active');
    else root.setAttribute('data-hl-active', current);
    for (const el of root.querySelectorAll('[data-hl-token], [data-hl-row], [data-hl-col]')) {
      if ('hlToken' in el.dataset) el.classList.toggle('hl', el.dataset.hlToken === current);
      if ('hlRow' in el.dataset) el.classList.toggle('hl-row', el.dataset.hlRow === current);
      if ('hlCol' in el.dataset) el.classList.toggle('hl-col', el.dataset.hlCol === current);
    }
    for (const f of listeners) f(current);
  };
  const set = (token) => {
    const next = token === null || token === undefined ? null : String(token);
    if (next === current) return;
    current = next;
    apply();
  };
  const tokenOf = (target) => {
    const el = target?.closest?.('[data-hl-token], [data-hl-row]');
    if (!el || !root.contains(el)) return null;
    return el.dataset.hlToken ?? el.dataset.hlRow;
  };
  root.addEventListener('mouseover', (e) => {
    const tok = tokenOf(e.target);
    if (tok !== null) set(tok);
  });
  root.addEventListener('mouseout', (e) => {
    // Back to the focused token, if any (the keyboard's highlight outlasts the mouse's).
    if (tokenOf(e.target) !== null && tokenOf(e.relatedTarget) === null) set(tokenOf(document.activeElement));
  });
  root.addEventListener('focusin', (e) => set(tokenOf(e.target)));
  root.addEventListener('focusout', (e) => {
    if (tokenOf(e.relatedTarget) === null) set(null);
  });
  return {
    get: () => current,
    set,
    // After a widget redraws: give its new elements the current classes.
    refresh: apply,
    onChange: (f) => listeners.add(f),
  };
}

// The position highlight (exercise 4): one highlighted position (0-based)
// per exercise page, beside the token highlight. Anything that stands for a
// position carries data-hl-pos (a chip and a line's label: the place it
// stands at; a column of the encoding table); hovering or focusing it lights
// every element of that position (.hl-pos), and the views that draw a
// position themselves (the clocks) follow through onChange.
export function createPositionHighlight(root) {
  let current = null;
  const listeners = new Set();
  const apply = () => {
    for (const el of root.querySelectorAll('[data-hl-pos]')) el.classList.toggle('hl-pos', el.dataset.hlPos === current);
    for (const f of listeners) f(current);
  };
  const set = (pos) => {
    const next = pos === null || pos === undefined ? null : String(pos);
    if (next === current) return;
    current = next;
    apply();
  };
  const posOf = (target) => {
    const el = target?.closest?.('[data-hl-pos]');
    return el && root.contains(el) ? el.dataset.hlPos : null;
  };
  root.addEventListener('mouseover', (e) => {
    const p = posOf(e.target);
    if (p !== null) set(p);
  });
  root.addEventListener('mouseout', (e) => {
    if (posOf(e.target) !== null && posOf(e.relatedTarget) === null) set(posOf(document.activeElement));
  });
  root.addEventListener('focusin', (e) => set(posOf(e.target)));
  root.addEventListener('focusout', (e) => {
    if (posOf(e.relatedTarget) === null) set(null);
  });
  return { get: () => current, set, refresh: () => root.querySelectorAll('[data-hl-pos]').forEach((el) => el.classList.toggle('hl-pos', el.dataset.hlPos === current)), onChange: (f) => listeners.add(f) };
}
