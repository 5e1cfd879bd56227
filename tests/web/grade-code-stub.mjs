// For tests/web/grade-code.test.mjs: loaded with `node --import` before
// scripts/grade-code.mjs, it puts a stand-in in place of scripts/py-sandbox.mjs
// (tests/web/grade-code-fake-sandbox.mjs), so the command's own logic is
// tested without running Python (each real run takes seconds).
import { register } from 'node:module';

register('data:text/javascript,' + encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === './py-sandbox.mjs' && context.parentURL?.endsWith('/scripts/grade-code.mjs'))
    return { url: ${JSON.stringify(new URL('./grade-code-fake-sandbox.mjs', import.meta.url).href)}, shortCircuit: true };
  return next(specifier, context);
}`));
