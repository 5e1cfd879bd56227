// The stand-in for scripts/py-sandbox.mjs in tests/web/grade-code.test.mjs.
// FAKE_SANDBOX_STATUS (JSON, or "throw" or "absent"): what sandboxStatus
// returns. A run's "code" is JSON saying what the run returns ({"throw": msg}
// to throw); every call is appended to FAKE_SANDBOX_LOG as a JSON line.
import { appendFileSync } from 'node:fs';

const status = process.env.FAKE_SANDBOX_STATUS ?? '{"ok":true}';
export const sandboxStatus =
  status === 'absent'
    ? undefined
    : async () => {
        if (status === 'throw') throw new Error('status check blew up');
        return JSON.parse(status);
      };

export async function runPython(args) {
  appendFileSync(process.env.FAKE_SANDBOX_LOG, JSON.stringify(args) + '\n');
  const r = JSON.parse(args.code);
  if (r.throw) throw new Error(r.throw);
  if (r.sleepMs) await new Promise((ok) => setTimeout(ok, r.sleepMs));
  return r;
}
