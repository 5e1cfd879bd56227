#!/usr/bin/env bash
# poslab table: position tables read out of .safetensors / .npy files that this
# test writes itself (a planted helix whose figures are worked out here), and
# every kind of bad file: exit 2 with a one-line message.
set -u
poslab="$1"
failures=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
check() {  # check NAME CONDITION-EXIT-STATUS
  if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi
}

# Writes the files. Helix: every entry 0.25; col 3 += 2cos(2πp/N), col 7 +=
# 2sin(2πp/N), col 11 += cos(4πp/N) (N = 64 rows, 16 columns).
node - "$dir" <<'JS'
const fs = require('fs'), path = require('path');
const dir = process.argv[2];
const N = 64, D = 16;
const helix = () => { const t = new Float64Array(N * D).fill(0.25);
  for (let p = 0; p < N; p++) { t[p*D+3] += 2*Math.cos(2*Math.PI*p/N); t[p*D+7] += 2*Math.sin(2*Math.PI*p/N); t[p*D+11] += Math.cos(4*Math.PI*p/N); }
  return t; };
const f32 = (v) => Buffer.from(new Float32Array(v).buffer);
const bf16 = (v) => { const u = new Uint32Array(new Float32Array(v).buffer); const b = Buffer.alloc(v.length*2);
  for (let i = 0; i < v.length; i++) b.writeUInt16LE(((u[i] + 0x7fff + ((u[i] >>> 16) & 1)) >>> 16) & 0xffff, i*2); return b; };
const f16 = (v) => { const u = new Uint32Array(new Float32Array(v).buffer); const b = Buffer.alloc(v.length*2);
  for (let i = 0; i < v.length; i++) { const x = u[i], sign = (x >>> 16) & 0x8000, e = ((x >>> 23) & 0xff) - 127 + 15; let h = sign;
    if (((x >>> 23) & 0xff) !== 0 && e > 0) { const m = x & 0x7fffff; h = sign | (e << 10) | (m >>> 13); const r = m & 0x1fff; if (r > 0x1000 || (r === 0x1000 && (h & 1))) h++; }
    b.writeUInt16LE(h, i*2); } return b; };
const st = (header, data) => { const h = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header)); const len = Buffer.alloc(8); len.writeBigUInt64LE(BigInt(h.length)); return Buffer.concat([len, h, data]); };
const npy = (descr, shape, data, fortran = false) => { let h = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shape}, }`;
  while ((10 + h.length + 1) % 64) h += ' '; h += '\n'; const pre = Buffer.from([0x93, 78, 85, 77, 80, 89, 1, 0, 0, 0]); pre.writeUInt16LE(h.length, 8); return Buffer.concat([pre, Buffer.from(h), data]); };
const t = helix();
const w = (name, b) => fs.writeFileSync(path.join(dir, name), b);
const bias = f32([1, 2]);
w('helix.safetensors', st({ __metadata__: { format: 'pt' }, 'h.0.attn.bias': { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, 'transformer.wpe.weight': { dtype: 'F32', shape: [N, D], data_offsets: [8, 8 + N*D*4] } }, Buffer.concat([bias, f32(t)])));
w('helix-bf16.safetensors', st({ 'wpe.weight': { dtype: 'BF16', shape: [N, D], data_offsets: [0, N*D*2] } }, bf16(t)));
w('helix.npy', npy('<f4', `(${N}, ${D})`, f32(t)));
w('helix-f16.safetensors', st({ 'embeddings.position_embeddings.weight': { dtype: 'F16', shape: [N, D], data_offsets: [0, N*D*2] } }, f16(t)));
w('short.safetensors', Buffer.from([1, 2, 3]));
w('past.safetensors', (() => { const b = st({ a: 1 }, Buffer.alloc(0)); b.writeBigUInt64LE(1000000n); return b; })());
w('notjson.safetensors', st('{nope', Buffer.alloc(0)));
w('offsets.safetensors', st({ 'wpe.weight': { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] } }, Buffer.alloc(8)));
w('oned.safetensors', st({ 'wpe.weight': { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, Buffer.alloc(16)));
w('int.safetensors', st({ 'wpe.weight': { dtype: 'I64', shape: [2, 1], data_offsets: [0, 16] } }, Buffer.alloc(16)));
const nan = Array.from(t); nan[5*D+9] = NaN;
w('nan.safetensors', st({ 'wpe.weight': { dtype: 'F32', shape: [N, D], data_offsets: [0, N*D*4] } }, f32(nan)));
const inf = Array.from(t); inf[0] = -Infinity;
w('inf.npy', npy('<f4', `(${N}, ${D})`, f32(inf)));
// Fortran order: the same table stored column by column (element (p, c) at c·N + p).
const tt = new Float64Array(N * D); for (let p = 0; p < N; p++) for (let c = 0; c < D; c++) tt[c*N+p] = t[p*D+c];
w('fortran.npy', npy('<f4', `(${N}, ${D})`, f32(tt), true));
// Big-endian: every float32's bytes reversed.
{ const b = f32(t); for (let i = 0; i < b.length; i += 4) b.subarray(i, i + 4).reverse(); w('bigendian.npy', npy('>f4', `(${N}, ${D})`, b)); }
w('mismatch.safetensors', st({ 'wpe.weight': { dtype: 'F32', shape: [2, 2], data_offsets: [0, 12] } }, Buffer.alloc(12)));
// A huge header length inside a file that has the bytes: the cap refuses it.
{ const fd = fs.openSync(path.join(dir, 'hugeheader.safetensors'), 'w'); const len = Buffer.alloc(8); len.writeBigUInt64LE(BigInt(17 << 20)); fs.writeSync(fd, len, 0, 8, 0); fs.ftruncateSync(fd, 8 + (17 << 20)); fs.closeSync(fd); }
// A 4.3 GB file (sparse: no disk used): header, a 4 GB gap, the table at the end.
{ const gap = 2 ** 32; const h = Buffer.from(JSON.stringify({ 'wpe.weight': { dtype: 'F32', shape: [N, D], data_offsets: [gap, gap + N*D*4] } }));
  const len = Buffer.alloc(8); len.writeBigUInt64LE(BigInt(h.length)); const fd = fs.openSync(path.join(dir, 'big.safetensors'), 'w');
  fs.writeSync(fd, Buffer.concat([len, h]), 0, 8 + h.length, 0); fs.writeSync(fd, f32(t), 0, N*D*4, 8 + h.length + gap); fs.closeSync(fd); }
// What the figures must be, worked out here (double precision).
const norms = [], cos = (a, b) => { let ab = 0, aa = 0, bb = 0; for (let c = 0; c < D; c++) { ab += t[a*D+c]*t[b*D+c]; aa += t[a*D+c]**2; bb += t[b*D+c]**2; } return ab / Math.sqrt(aa*bb); };
for (let p = 0; p < N; p++) { let s = 0; for (let c = 0; c < D; c++) s += t[p*D+c]**2; norms.push(Math.sqrt(s)); }
const nb = []; for (let d = 1; d <= 5; d++) { let s = 0; for (let p = 0; p + d < N; p++) s += cos(p, p + d); nb.push(s / (N - d)); }
fs.writeFileSync(path.join(dir, 'expected.json'), JSON.stringify({ norms, nb, explained: [4/9, 4/9, 1/9], variance: [2, 2, 0.5] }));
JS

figures() {  # figures FILE TOL : the output matches expected.json within TOL
  node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8')),e=require('$dir/expected.json'),tol=$2;
    const near=(a,b)=>Math.abs(a-b)<=tol;
    const ok=j.shape[0]===64&&j.shape[1]===16&&j.lastRow===63&&j.norms.every((v,i)=>near(v,e.norms[i]))&&
      e.nb.every((v,i)=>j.neighbour[i].distance===i+1&&near(j.neighbour[i].similarity,v))&&
      e.explained.every((v,i)=>near(j.pca.explained[i],v))&&e.variance.every((v,i)=>Math.abs(j.pca.variance[i]-v)<=tol*10)&&j.pca.converged===true;
    if(!ok)console.error(JSON.stringify({shape:j.shape,nb:j.neighbour.slice(0,5),pca:j.pca}));process.exit(ok?0:1)" < "$1"
}
"$poslab" table --file "$dir/helix.safetensors" > "$dir/out.json"
check "safetensors F32: exit 0" $?
node -e "const j=require('$dir/out.json');process.exit(j.tensor==='transformer.wpe.weight'&&j.dtype==='F32'&&j.format==='safetensors'&&j.tensors.length===2?0:1)"
check "safetensors F32: picks transformer.wpe.weight, lists both tensors" $?
figures "$dir/out.json" 1e-5
check "safetensors F32: norms, neighbour similarity, variance explained of the planted helix" $?
"$poslab" table --file "$dir/helix-bf16.safetensors" > "$dir/bf16.json" && figures "$dir/bf16.json" 2e-2
check "safetensors BF16: the helix's figures within bfloat16's precision" $?
"$poslab" table --file "$dir/helix-f16.safetensors" > "$dir/f16.json" && figures "$dir/f16.json" 3e-3
check "safetensors F16: the helix's figures within half precision" $?
"$poslab" table --file "$dir/helix.npy" > "$dir/npy.json" && figures "$dir/npy.json" 1e-5
check "npy <f4: the helix's figures" $?
start=$(date +%s%N)
"$poslab" table --file "$dir/big.safetensors" > "$dir/big.json" && figures "$dir/big.json" 1e-5
check "a 4.3 GB file: the table at its end, read by seeking" $?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# 4.3 GB file read in ${ms} ms"
[ "$ms" -lt 5000 ]
check "a 4.3 GB file is not read whole (under 5 s)" $?

bad() {  # bad NAME FILE 'message pattern' [extra flags]
  local name="$1" file="$2" pattern="$3"; shift 3
  "$poslab" table --file "$dir/$file" "$@" > /dev/null 2> "$dir/err"
  local status=$?
  grep -qE -e "$pattern" "$dir/err" && [ "$status" -eq 2 ] && [ "$(wc -l < "$dir/err")" -eq 1 ]
  local ok=$?  # taken before the message: a $(…) in check's arguments would reset $?
  check "$name: exit 2 ($status), one line: $(head -c 140 "$dir/err")" $ok
}
bad "truncated file" short.safetensors "too short for a safetensors file"
bad "header length larger than the file" past.safetensors "header length is 1000000 bytes but the file has only"
bad "header not JSON" notjson.safetensors "header is not JSON"
bad "huge header" hugeheader.safetensors "header is 17825792 bytes; the lab reads headers up to 16777216"
bad "offsets outside the data" offsets.safetensors "bytes are \[0, 16\) of the data, but the data has 8 bytes"
bad "tensor not 2-D" oned.safetensors "has shape \[4\] \(1 dimensions\); a position table has 2"
bad "unsupported dtype" int.safetensors "is I64; the lab reads F32, F16 and BF16"
bad "NaN" nan.safetensors "NaN at row 5, column 9"
bad "Inf" inf.npy "infinite value at row 0, column 0"
bad "shape and offsets disagree: a size mismatch, not a cut-off file" mismatch.safetensors "shape \[2, 2\] of F32, which is 16 bytes, but its data_offsets \[0, 12\) hold 12 bytes"
bad "--components 0 refused in the argument check, with the range" helix.safetensors "--components must be a whole number from 1 to 8" --components 0
bad "--components 9 refused with the range" helix.safetensors "--components must be a whole number from 1 to 8" --components 9
bad "--max-distance 0 refused with the range" helix.safetensors "--max-distance must be a whole number from 1 to 4096" --max-distance 0
bad "--components 0 is refused before the file is opened" nothere.safetensors "--components must be" --components 0
bad "a directory is not a table file" . "is a directory; poslab table reads a regular"
bad "no such tensor" helix.safetensors "no tensor named 'wte.weight'; its 2-D tensors: transformer.wpe.weight \[64, 16\]" --tensor wte.weight
bad "missing file" nothere.safetensors "cannot open"

"$poslab" table --file "$dir/fortran.npy" > "$dir/fortran.json" && figures "$dir/fortran.json" 1e-5
check "npy fortran_order True: read column by column, the helix's figures" $?
"$poslab" table --file "$dir/bigendian.npy" > "$dir/be.json" && figures "$dir/be.json" 1e-5
check "npy '>f4' (big-endian): the helix's figures" $?
# A named pipe nobody writes to: refused at once instead of blocking forever
# (timeout 20 only guards this test from hanging; a refusal takes milliseconds).
mkfifo "$dir/pipe.npy"
timeout 20 "$poslab" table --file "$dir/pipe.npy" > /dev/null 2> "$dir/err"
status=$?
grep -q "is a named pipe; poslab table reads a regular .safetensors or .npy file" "$dir/err" && [ "$status" -eq 2 ]
ok=$?
check "a named pipe: exit 2 ($status), not blocked: $(head -c 140 "$dir/err")" $ok

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
