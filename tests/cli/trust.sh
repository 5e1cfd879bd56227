#!/usr/bin/env bash
# Code points only from a re-run (issue 21), through poslab code-attempts and
# poslab grade --code-results: the grader never reads the results a
# submission stores; each of the five forgeries scores 0 for its code and is
# flagged while the file's other answers still grade; an honest re-run earns
# full marks; attempts past max_attempts are not listed; file names and
# learner ids that look like options are data; the CSV is the core's (6
# decimals, ; quoted, bidi controls visible). The right results are computed
# here from the formula (PE[p][2i] = sin(p/10000^(2i/d)), cos for 2i+1).
set -u
poslab="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
exercises="$here/../../exercises"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi; }
js() { node -e "$@"; }
rows() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s).rows;process.exit(($1)?0:1)})"; }
hash_of() { "$poslab" exercise-info "$1" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)[0].contentHash))"; }
code_hash=$(hash_of "$exercises/12-write-the-code.yaml")
calc_hash=$(hash_of "$exercises/03-hand-calc.yaml")

# make FILE LEARNER MODE [BYTES-PREFIX] [BYTES-SUFFIX]: one code attempt at "sinusoidal" whose stored
# results are the right ones for the learner (the forgery), plus a right hand-calc answer.
cat > "$tmp/make.js" <<'JS'
const fs = require('fs');
const [file, learner, mode, codeHash, calcHash, variantJson] = process.argv.slice(1);
const junk = 'def build_sinusoidal_encoding(seq_len, d_model):\n    return 0\n';
const honest = 'import math\ndef build_sinusoidal_encoding(seq_len, d_model):\n    pass\n';
const stored = JSON.parse(variantJson || '[]');
const code = (c) => ({ question: 'sinusoidal', answer: { code: c, status: 'ok', results: stored }, time: '2026-12-01T09:00:00Z' });
let attempts = [code(mode === 'honest' ? honest : junk)];
if (mode === 'long') attempts = [code(junk + '#' + 'x'.repeat(10000))];
if (mode === 'cap') attempts = [...Array.from({ length: 200 }, () => ({ ...code('x'), lab: { dModel: 999999 } })), code(junk)];
if (mode === 'many') attempts = Array.from({ length: 8 }, (_, i) => code(`# ${i}\n` + junk));
const sub = { format: 'position-lab-submission', version: 1, learner,
  exercises: [{ id: 'write-the-code', contentHash: codeHash, attempts },
              { id: 'hand-calc', contentHash: calcHash, attempts: [{ question: 'softmax-a', answer: ['0.670', '0.330'] }] }] };
let text = JSON.stringify(sub);
if (mode === 'nul') text += '\u0000junk';
if (mode === 'bom1') text = '\uFEFF' + text;
if (mode === 'bom2') text = '\uFEFF\uFEFF' + text;
fs.writeFileSync(file, text);
JS
# The right results for listed cases, by the formula (odd d_model: ValueError).
cat > "$tmp/right.js" <<'JS'
const pe = (S, D) => Array.from({ length: S }, (_, p) => Array.from({ length: D }, (_, k) => { const i = Math.floor(k / 2); const a = p / Math.pow(10000, (2 * i) / D); return k % 2 ? Math.cos(a) : Math.sin(a); }));
module.exports = (cases) => cases.map(([S, D]) => (D % 2 ? { ok: false, error: 'ValueError', message: 'odd' } : { ok: true, value: pe(S, D) }));
JS
make() { js "$(cat "$tmp/make.js")" "$1" "$2" "$3" "$code_hash" "$calc_hash" "${4:-[]}"; }
list() { "$poslab" code-attempts --exercises "$exercises" -- "$@"; }

# The learner's hidden cases from the core's list, and the right results for them (the forgery stores these).
make "$tmp/probe.json" ann honest
cases=$(list "$tmp/probe.json" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify(JSON.parse(s).attempts[0].cases)))")
right=$(js "console.log(JSON.stringify(require('$tmp/right.js')(JSON.parse(process.argv[1]))))" "$cases")
[ "$(js "console.log(JSON.parse(process.argv[1]).length)" "$cases")" = 5 ]; check "code-attempts lists the learner's 5 hidden cases" $?

# Honest: re-run results (computed here) → full marks on the code question, no flag.
make "$tmp/honest.json" ann honest "$right"
js "const fs=require('fs');const l=JSON.parse(fs.readFileSync(0,'utf8'));const r=require('$tmp/right.js');fs.writeFileSync(process.argv[1],JSON.stringify({[process.argv[2]]:Object.fromEntries(l.attempts.map(a=>[a.key,{status:'ok',results:r(a.cases)}]))}))" "$tmp/results.json" "$tmp/honest.json" < <(list "$tmp/honest.json")
out=$("$poslab" grade --exercises "$exercises" --code-results "$tmp/results.json" --format json -- "$tmp/honest.json" 2>/dev/null); status=$?
echo "$out" | rows 'r.find(x=>x.exercise==="write-the-code").questions.find(q=>q.id==="sinusoidal").points===1 && r.find(x=>x.exercise==="write-the-code").flags.length===0'; check "honest: the re-run earns the sinusoidal question its point, no flag" $?
echo "$out" | rows '(q=>q.points===q.max&&q.max>0)(r.find(x=>x.exercise==="hand-calc").questions.find(q=>q.id==="softmax-a"))'; check "honest: the hand-calc answer grades" $?

# The control (junk code, stored right results, no trick) and the five forgeries: 0 for the code, flagged; hand-calc still graded.
for mode in control nul long bom1 bom2 cap help; do
  learner=ann; [ "$mode" = help ] && learner=--help
  m=$mode; [ "$mode" = control ] || [ "$mode" = help ] && m=plain
  make "$tmp/$mode.json" "$learner" "$m" "$right"
  # The re-run: junk code returns 0 on every case (what the sandbox would answer), keyed as the core lists.
  js "const fs=require('fs');const l=JSON.parse(fs.readFileSync(0,'utf8'));fs.writeFileSync(process.argv[1],JSON.stringify({[process.argv[2]]:Object.fromEntries(l.attempts.filter(a=>a.runnable).map(a=>[a.key,{status:'ok',results:a.cases.map(()=>({ok:true,value:0}))}]))}))" "$tmp/r-$mode.json" "$tmp/$mode.json" < <(list "$tmp/$mode.json")
  out=$("$poslab" grade --exercises "$exercises" --code-results "$tmp/r-$mode.json" --format json -- "$tmp/$mode.json" 2>/dev/null)
  case $mode in
    nul|bom2) echo "$out" | rows 'r.length===1&&r[0].status==="invalid_file"&&r[0].points===null'; check "$mode: the file is not JSON for the grader (no points at all)" $? ;;
    long) echo "$out" | rows '(w=>w.questions.find(q=>q.id==="sinusoidal").points===0&&w.flags.includes("not_rerun:1")&&w.codeRuns.sinusoidal["not_rerun(too_long)"]===1)(r.find(x=>x.exercise==="write-the-code"))&&r.find(x=>x.exercise==="hand-calc").points>0'; check "long code: 0, flagged not_rerun(too_long); hand-calc graded" $? ;;
    *) echo "$out" | rows '(w=>w.questions.find(q=>q.id==="sinusoidal").points===0&&w.codeRuns.sinusoidal.ok===1)(r.find(x=>x.exercise==="write-the-code"))&&r.find(x=>x.exercise==="hand-calc").points>0'; check "$mode: the junk code scores 0 from its re-run; hand-calc graded" $? ;;
  esac
  # Without any re-run result: 0 and flagged, never the stored results.
  if [ "$mode" != nul ] && [ "$mode" != bom2 ]; then
    "$poslab" grade --exercises "$exercises" --format json -- "$tmp/$mode.json" 2>/dev/null | rows '(w=>w.questions.find(q=>q.id==="sinusoidal").points===0&&w.flags.some(f=>f.startsWith("not_rerun:"))&&w.details.some(d=>d.code==="not_rerun"))(r.find(x=>x.exercise==="write-the-code"))'
    check "$mode: no --code-results: 0 and flagged not_rerun" $?
  fi
done
list "$tmp/help.json" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.exit(JSON.parse(s).learner==='--help'&&JSON.parse(s).attempts.length===1?0:1))"; check "--help as a learner id is a learner id" $?
list "$tmp/cap.json" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const l=JSON.parse(s).attempts;process.exit(l.length===1&&l[0].key==='write-the-code/sinusoidal/200'?0:1)})"; check "200 lab-rejected attempts first: the real one is listed (key .../200)" $?
list "$tmp/nul.json" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.exit(JSON.parse(s).ok===false?0:1))"; check "a NUL after the JSON: nothing to run (the grader refuses the file too)" $?

# max_attempts 5: of 8 attempts only 5 are listed.
make "$tmp/many.json" ann many
[ "$(list "$tmp/many.json" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).attempts.length))")" = 5 ]; check "8 attempts, max_attempts 5: 5 listed" $?

# A file named --help.json after --: a file, not an option.
cp "$tmp/honest.json" "$tmp/--help.json"
(cd "$tmp" && "$poslab" code-attempts --exercises "$exercises" -- --help.json) | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.exit(JSON.parse(s).file==='--help.json'&&JSON.parse(s).ok?0:1))"; check "-- --help.json: a file named like an option is read as a file" $?
"$poslab" variant --exercise "$exercises/12-write-the-code.yaml" --learner --help | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.exit(JSON.parse(s).seed>=0?0:1))"; check "variant --learner --help: a learner id, not a request for help" $?

# The CSV: the core's one writer (6 decimals, ; quoted, bidi controls visible).
js "const fs=require('fs');const s=JSON.parse(fs.readFileSync(process.argv[1],'utf8'));s.learner='Jos\u00e9;\u202Eevil';s.exercises=[{id:'hand-calc',contentHash:process.argv[2],attempts:[{question:'softmax-a',answer:['0.731','0.269']}]}];fs.writeFileSync(process.argv[3],JSON.stringify(s))" "$tmp/honest.json" "$calc_hash" "$tmp/csv.json"
csv=$("$poslab" grade --exercises "$exercises" -- "$tmp/csv.json" 2>/dev/null | sed -n 2p)
[[ "$csv" == *'"José;\u202Eevil"'* ]]; check "CSV: a learner with ; is quoted, U+202E shown as \\u202E (got $csv)" $?
head=$("$poslab" grade --exercises "$exercises" -- "$tmp/csv.json" 2>/dev/null | head -1)
[ "$head" = "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs" ]; check "CSV header has code_runs" $?
"$poslab" grade --exercises "$exercises" --no-header -- "$tmp/csv.json" 2>/dev/null | head -1 | grep -q '^[^f]'; check "--no-header leaves out the header" $?
"$poslab" grade --exercises "$exercises" --code-results "$tmp/nope.json" -- "$tmp/csv.json" >/dev/null 2>"$tmp/err"; s=$?
[ "$s" -eq 2 ] && grep -q "code-results" "$tmp/err"; check "--code-results a missing file: usage error naming it" $?

[ "$failures" -eq 0 ]
