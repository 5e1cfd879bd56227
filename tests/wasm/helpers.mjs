// Shared by the wasm tests: where the built module and CLI are, and a loader.
import { createRequire } from 'node:module';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmPath = path.resolve(process.env.POSLAB_WASM || path.join(root, 'build/wasm/poslab.js'));
export const cliPath = path.resolve(process.env.POSLAB_CLI || path.join(root, 'build/native/poslab'));

export async function loadLab() {
  const require = createRequire(import.meta.url);
  const createPositionLab = require(wasmPath);
  return createPositionLab();
}

// Runs the native CLI; returns {status, json, stderr}.
export function cli(args) {
  const r = spawnSync(cliPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: r.status, json: r.status === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr.trim() };
}

export function flatten(nested) {
  return Array.isArray(nested) ? nested.flat(Infinity) : [nested];
}

export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

export { execFileSync };
