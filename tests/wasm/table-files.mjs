// Builds .safetensors and .npy files byte by byte for the table tests (wasm,
// page, bench), and the planted helix whose figures are known in closed form:
// every entry 0.25; col a += A cos(2πp/N), col b += A sin(2πp/N), col c +=
// C cos(4πp/N). Over whole periods these are uncorrelated with mean 0, so the
// covariance's eigenvalues are A²/2, A²/2, C²/2 and the rows projected on the
// first two components lie on a circle of radius A, one turn over the table.
export const A = 2;
export const C = 1;

export function helix(N, D, cols = [3, 7, 11]) {
  if (D <= Math.max(...cols)) throw new Error(`the helix needs more than ${Math.max(...cols)} columns`);
  const t = new Float64Array(N * D).fill(0.25);
  for (let p = 0; p < N; p++) {
    t[p * D + cols[0]] += A * Math.cos((2 * Math.PI * p) / N);
    t[p * D + cols[1]] += A * Math.sin((2 * Math.PI * p) / N);
    t[p * D + cols[2]] += C * Math.cos((4 * Math.PI * p) / N);
  }
  return t;
}

export function f32(values) {
  return new Uint8Array(new Float32Array(values).buffer);
}
// float → bfloat16 / half, round to nearest even (normal range; enough here).
export function bf16(values) {
  const u = new Uint32Array(new Float32Array(values).buffer);
  const out = new Uint8Array(values.length * 2);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < u.length; i++) dv.setUint16(i * 2, ((u[i] + 0x7fff + ((u[i] >>> 16) & 1)) >>> 16) & 0xffff, true);
  return out;
}
export function f16(values) {
  const u = new Uint32Array(new Float32Array(values).buffer);
  const out = new Uint8Array(values.length * 2);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < u.length; i++) {
    const x = u[i];
    const sign = (x >>> 16) & 0x8000;
    const e = ((x >>> 23) & 0xff) - 127 + 15;
    let hv = sign;
    if (((x >>> 23) & 0xff) !== 0 && e > 0) {
      const man = x & 0x7fffff;
      hv = sign | (e << 10) | (man >>> 13);
      const rest = man & 0x1fff;
      if (rest > 0x1000 || (rest === 0x1000 && hv & 1)) hv++;
    }
    dv.setUint16(i * 2, hv, true);
  }
  return out;
}

export function concat(...parts) {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function safetensors(header, data = new Uint8Array(0)) {
  const h = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const len = new Uint8Array(8);
  new DataView(len.buffer).setBigUint64(0, BigInt(h.length), true);
  return concat(len, h, data);
}

export function npy(descr, shape, data, { version = 1, fortran = false } = {}) {
  let h = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shape}, }`;
  const pre = version === 1 ? 10 : 12;
  while ((pre + h.length + 1) % 64) h += ' ';
  h += '\n';
  const head = new Uint8Array(pre);
  head.set([0x93, 78, 85, 77, 80, 89, version, 0]);
  const dv = new DataView(head.buffer);
  if (version === 1) dv.setUint16(8, h.length, true);
  else dv.setUint32(8, h.length, true);
  return concat(head, new TextEncoder().encode(h), data);
}

// A model-like file: a small other tensor first, then the table under `name`.
export function tableFile(values, N, D, { dtype = 'F32', name = 'wpe.weight' } = {}) {
  const bytes = dtype === 'F32' ? f32(values) : dtype === 'F16' ? f16(values) : bf16(values);
  const other = f32([1, 2]);
  return safetensors(
    { __metadata__: { format: 'pt' }, 'h.0.attn.bias': { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, [name]: { dtype, shape: [N, D], data_offsets: [8, 8 + bytes.length] } },
    concat(other, bytes),
  );
}

// Independent figures of a table (double precision, plain loops).
export function reference(t, N, D) {
  const norms = [];
  for (let p = 0; p < N; p++) {
    let s = 0;
    for (let c = 0; c < D; c++) s += t[p * D + c] ** 2;
    norms.push(Math.sqrt(s));
  }
  const cos = (a, b) => {
    let ab = 0;
    for (let c = 0; c < D; c++) ab += t[a * D + c] * t[b * D + c];
    return ab / (norms[a] * norms[b]);
  };
  const neighbour = (d) => {
    let s = 0;
    for (let p = 0; p + d < N; p++) s += cos(p, p + d);
    return s / (N - d);
  };
  return { norms, cos, neighbour };
}
