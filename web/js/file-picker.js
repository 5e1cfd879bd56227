// A file picker that speaks the page's language: the browser's own control
// ("Choose File", "No file chosen") speaks the browser's, so the <input
// type=file> is hidden (not rendered, not in the tab order), and a <button>
// with the page's label opens it. The button is what Tab reaches and what
// assistive technology names; Enter or Space on it opens the chooser.
// Returns { button, input }; put both in the page (the input must stay in
// the document for the chooser to open and tests to set files on it).
export function filePicker({ id, label, accept, multiple = false, directory = false, className = 'secondary file-button' }) {
  const input = document.createElement('input');
  input.type = 'file';
  input.id = id;
  if (accept) input.accept = accept;
  input.multiple = multiple;
  if (directory) input.setAttribute('webkitdirectory', '');
  // Not rendered at all (no 1 px target, nothing for assistive technology);
  // input.click() still opens the chooser, and tests still set files on it.
  input.className = 'file-picker-input';
  input.hidden = true;
  const button = document.createElement('button');
  button.type = 'button';
  button.id = `${id}-button`;
  button.className = className;
  button.textContent = label;
  button.addEventListener('click', () => input.click());
  return { button, input };
}
