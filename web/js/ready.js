// What `data-ready="true"` on a rendered page means: everything the render
// started has landed. A render counts its pending work here (every call to
// the core it or its widgets and questions make through the tracked core,
// and any other promise it hands to track(): the code editor, the questions'
// task checks), and says ready only once none is left. While work started
// later (a control changed, a question checked) is in flight, the page's
// element carries `data-busy` (tests wait for it to go).
//
// idle() resolves when nothing is pending and every continuation of the
// last reply has run: a reply's own `.then`/`await` chain is microtasks, so
// idle looks again one task later (setTimeout 0, a yield, not a wait for
// time) and only resolves if still nothing is pending.
export function createPending({ onBusy = () => {} } = {}) {
  let count = 0;
  let waiters = [];
  let looking = false;
  let busy = false;
  const setBusy = (on) => {
    if (on === busy) return;
    busy = on;
    onBusy(on);
  };
  const look = () => {
    if (looking) return;
    looking = true;
    setTimeout(() => {
      looking = false;
      if (count > 0 || !waiters.length) return;
      const w = waiters;
      waiters = [];
      setBusy(false);
      for (const f of w) f();
    }, 0);
  };
  const done = () => {
    count -= 1;
    if (count === 0) {
      if (waiters.length) look();
      else setBusy(false);
    }
  };
  const track = (value) => {
    const p = Promise.resolve(value);
    count += 1;
    setBusy(true);
    p.then(done, done);
    return p;
  };
  return {
    track,
    get count() {
      return count;
    },
    idle() {
      return new Promise((resolve) => {
        waiters.push(resolve);
        look();
      });
    },
    // The core as the render sees it: the same calls, each one counted.
    core(core) {
      return {
        ...core,
        call: (...args) => track(core.call(...args)),
        batch: (...args) => track(core.batch(...args)),
      };
    },
  };
}
