// A small validator for the subset of JSON Schema that exercises/exercise.schema.json
// uses: type, properties, required, additionalProperties (false), enum, const,
// items, minItems, maxItems, minimum, maximum, pattern, minLength, $ref
// (#/definitions/…), and oneOf dispatched on the "type" field (so an error
// names the branch that was meant, not every branch that failed).
// Returns a list of { path, message }; empty when the value is valid.

// Keys that stand twice in one object of a JSON text, as [{ key, line }]:
// JSON.parse keeps the last silently, so an edit to the first would do nothing.
export function duplicateKeys(text) {
  const found = [];
  const objects = []; // per open bracket: the keys seen so far ({) or null ([)
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '{') objects.push(new Set());
    else if (c === '[') objects.push(null);
    else if (c === '}' || c === ']') objects.pop();
    else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      let k = j + 1;
      while (/\s/.test(text[k] ?? '')) k++;
      const keys = objects[objects.length - 1];
      if (keys && text[k] === ':') {
        const key = JSON.parse(text.slice(i, j + 1));
        if (keys.has(key)) found.push({ key, line });
        keys.add(key);
      }
      i = j;
    }
  }
  return found;
}

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Number.isInteger(v)) return 'integer';
  return typeof v;
}

function typeMatches(v, t) {
  const actual = typeOf(v);
  if (t === 'number') return actual === 'number' || actual === 'integer';
  return actual === t;
}

function resolveRef(ref, root) {
  if (!ref.startsWith('#/')) throw new Error(`schema: unsupported $ref ${ref}`);
  let node = root;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part];
    if (node === undefined) throw new Error(`schema: $ref ${ref} not found`);
  }
  return node;
}

function show(v) {
  const s = JSON.stringify(v);
  return s && s.length > 60 ? s.slice(0, 57) + '…' : s;
}

export function validate(value, schema, root = schema, path = '') {
  const errors = [];
  const at = path || '(top level)';
  if (schema.$ref) return validate(value, resolveRef(schema.$ref, root), root, path);

  if (schema.oneOf) {
    // Dispatch on "type" when every branch pins it with const.
    const branches = schema.oneOf.map((b) => (b.$ref ? resolveRef(b.$ref, root) : b));
    const tags = branches.map((b) => b.properties?.type?.const);
    if (tags.every((t) => t !== undefined)) {
      if (typeOf(value) !== 'object') return [{ path: at, message: `must be an object with a "type" field, got ${show(value)}` }];
      const i = tags.indexOf(value.type);
      if (i < 0) {
        return [{ path: path ? `${path}.type` : 'type', message: `unknown type ${show(value.type)}; allowed: ${tags.join(', ')}` }];
      }
      return validate(value, branches[i], root, path);
    }
    const results = branches.map((b) => validate(value, b, root, path));
    if (results.some((r) => r.length === 0)) return [];
    return results.reduce((a, b) => (b.length < a.length ? b : a));
  }

  if (schema.type) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(value, t))) {
      return [{ path: at, message: `must be ${types.join(' or ')}, got ${typeOf(value)} ${show(value)}` }];
    }
  }
  if (schema.const !== undefined && value !== schema.const) {
    errors.push({ path: at, message: `must be ${show(schema.const)}, got ${show(value)}` });
  }
  if (schema.enum && !schema.enum.includes(value)) {
    errors.push({ path: at, message: `${show(value)} is not allowed; allowed: ${schema.enum.map(show).join(', ')}` });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push({ path: at, message: `must be >= ${schema.minimum}, got ${value}` });
    if (schema.maximum !== undefined && value > schema.maximum) errors.push({ path: at, message: `must be <= ${schema.maximum}, got ${value}` });
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.trim().length < schema.minLength) errors.push({ path: at, message: `must not be empty` });
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) errors.push({ path: at, message: `${show(value)} does not match ${schema.pattern}` });
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push({ path: at, message: `needs at least ${schema.minItems} item(s), has ${value.length}` });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push({ path: at, message: `allows at most ${schema.maxItems} item(s), has ${value.length}` });
    if (schema.items) value.forEach((item, i) => errors.push(...validate(item, schema.items, root, `${path}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    for (const key of schema.required ?? []) {
      if (!(key in value)) errors.push({ path: path ? `${path}.${key}` : key, message: 'is required' });
    }
    const props = schema.properties ?? {};
    for (const [key, v] of Object.entries(value)) {
      const sub = props[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      const where = path ? `${path}.${key}` : key;
      if (sub) errors.push(...validate(v, sub, root, where));
      else if (schema.additionalProperties === false) {
        errors.push({ path: where, message: `unknown field; allowed: ${Object.keys(props).join(', ')}` });
      }
    }
  }
  return errors;
}
