#!/usr/bin/env bash
# poslab grade against a hostile class (issue 11): each check below failed on
# the grader before the fix (a crash that lost the batch, a lost row, or an
# unearned point). Every batch mixes in a good file whose row must survive.
set -u
poslab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$here/../fixtures/exercises"
real="$here/../../exercises"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi; }
js() { node -e "$@"; }
rows() {  # rows 'JS over r (rows array)' < JSON output : exit 0 if truthy
  node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s).rows;process.exit(($1)?0:1)})"
}
hash_of() { "$poslab" exercise-info "$1" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)[0].contentHash))"; }

demo_hash=$(hash_of "$fixtures/grading-demo.yaml")
wall_hash=$(hash_of "$real/06-wall-1024.yaml")
add_hash=$(hash_of "$real/04-add-position.yaml")
# The lab the page saves with each attempt (runner.js labOf) for an exercise without controls.
page_lab='{"sentence":"犬が猫を追いかけた","pe":"none","causal":false,"d":8,"seed":0,"heads":1,"weights":"random"}'

# sub FILE LEARNER ENTRIES_JSON : a version 1 submission.
sub() { js 'const [f, learner, entries] = process.argv.slice(1); require("fs").writeFileSync(f, JSON.stringify({format: "position-lab-submission", version: 1, learner, exercises: JSON.parse(entries)}))' "$@"; }
# A good file: the right choice on grading-demo.
sub "$tmp/good.json" goodie "[{\"id\":\"grading-demo\",\"contentHash\":\"$demo_hash\",\"attempts\":[{\"question\":\"property\",\"answer\":[\"equivariance\"]}]}]"
good_row='r.some(x=>x.learner==="goodie"&&x.status==="graded"&&x.points===1)'
grade() { "$poslab" grade --exercises "$1" "${@:2}" --format json 2>"$tmp/err"; }

# 1. A 30 000-character numeric answer (std::regex overflowed the stack) and a 200 000-deep answer.
long=$(printf '1%.0s' $(seq 1 30000))
sub "$tmp/long.json" longo "[{\"id\":\"grading-demo\",\"contentHash\":\"$demo_hash\",\"attempts\":[{\"question\":\"weight\",\"answer\":[\"$long\"]}]}]"
out=$(grade "$fixtures" "$tmp/long.json" "$tmp/good.json"); status=$?
[ "$status" -lt 2 ]; check "1a. a 30 000-digit answer does not crash the grader (exit $status)" $?
echo "$out" | rows "$good_row && r.some(x=>x.learner==='longo'&&x.status==='graded'&&x.points===0)"; check "1a. it is a malformed answer (0 points); the good file is graded" $?
js 'const n=200000; const f=process.argv[1]; require("fs").writeFileSync(f, `{"format":"position-lab-submission","version":1,"learner":"deep","exercises":[{"id":"grading-demo","contentHash":"'"$demo_hash"'","attempts":[{"question":"weight","answer":${"[".repeat(n)}${"]".repeat(n)}}]}]}`)' "$tmp/deep.json"
out=$(grade "$fixtures" "$tmp/deep.json" "$tmp/good.json"); status=$?
[ "$status" -lt 2 ]; check "1b. a 200 000-deep file does not crash the grader (exit $status)" $?
echo "$out" | rows "$good_row && r.some(x=>/deep.json/.test(x.file)&&x.status==='too_large'&&/nested more than 32/.test(x.message))"; check "1b. it is too_large (nested more than 32), the good file graded" $?

# 2. Fields of the wrong type: a status row each, never the batch.
js 'const fs=require("fs"),d=process.argv[1],h=process.argv[2];
  const base=()=>({format:"position-lab-submission",version:1,learner:"typo",exercises:[{id:"grading-demo",contentHash:h,attempts:[]}]});
  const cases={version:(s)=>{s.version="1"},format:(s)=>{s.format=7},id:(s)=>{s.exercises[0].id=5},hash:(s)=>{s.exercises[0].contentHash=12},attempts:(s)=>{s.exercises[0].attempts={a:1}},learner:(s)=>{s.learner=42},entry:(s)=>{s.exercises.push("x")}};
  for (const [k,f] of Object.entries(cases)) { const s=base(); f(s); fs.writeFileSync(`${d}/type-${k}.json`, JSON.stringify(s)); }' "$tmp" "$demo_hash"
out=$(grade "$fixtures" "$tmp"/type-*.json "$tmp/good.json"); status=$?
[ "$status" -eq 1 ]; check "2. wrong field types exit 1, not 2 (got $status)" $?
echo "$out" | rows "$good_row && ['version','format','id','hash','attempts','learner','entry'].every(k=>r.some(x=>x.file.endsWith('type-'+k+'.json')&&x.status!=='graded'&&x.message))"; check "2. each wrongly typed file has its own status row with a message" $?
echo "$out" | rows "r.some(x=>x.file.endsWith('type-version.json')&&x.status==='invalid_file'&&/version \"1\"/.test(x.message))"; check "2. \"version\": \"1\" is invalid_file and says so" $?

# 3. The wall task: only the table's own error, reached by a valid offset, earns the point.
values=('"x"' 0.5 -1 null 1024)
for i in 0 1 2 3 4; do
  sub "$tmp/wall-$i.json" "wall$i" "[{\"id\":\"wall-1024\",\"contentHash\":\"$wall_hash\",\"attempts\":[{\"question\":\"past-wall\",\"answer\":{\"positionOffset\":${values[$i]}},\"lab\":$page_lab}]}]"
done
sub "$tmp/wall-seed.json" wallseed "[{\"id\":\"wall-1024\",\"contentHash\":\"$wall_hash\",\"attempts\":[{\"question\":\"past-wall\",\"answer\":{\"positionOffset\":1024},\"lab\":$(echo "$page_lab" | sed 's/"seed":0/"seed":-1/')}]}]"
out=$(grade "$real" "$tmp"/wall-*.json)
for i in 0 1 2 3; do
  echo "$out" | rows "r.find(x=>x.learner==='wall$i').points===0"; check "3. positionOffset ${values[$i]} earns no point" $?
done
echo "$out" | rows "r.find(x=>x.learner==='wallseed').points===0"; check "3. lab.seed -1 earns no point" $?
echo "$out" | rows "r.find(x=>x.learner==='wall4').points===1"; check "3. a valid offset past the table (1024) earns it" $?

# 4. The lab is checked: pe none + a mask the exercise has no control for, or a scheme outside schemes.
for c in 'none true' 'rope false' 'sinusoidal false'; do
  set -- $c
  sub "$tmp/lab-$1.json" "lab$1" "[{\"id\":\"add-position\",\"contentHash\":\"$add_hash\",\"attempts\":[{\"question\":\"outputs-differ\",\"answer\":{\"pe\":\"$1\",\"permutation\":[1,0,2,3,4,5]},\"lab\":{\"sentence\":\"犬が猫を追いかけた\",\"pe\":\"$1\",\"causal\":$2,\"d\":8,\"seed\":0,\"heads\":1,\"weights\":\"random\"}}]}]"
done
out=$(grade "$real" "$tmp"/lab-*.json)
echo "$out" | rows "(x=>x.points===0&&x.flags.includes('lab_not_allowed:1'))(r.find(x=>x.learner==='labnone'))"; check "4. pe none + causal true (no mask control) earns nothing, flagged" $?
echo "$out" | rows "(x=>x.points===0&&x.flags.includes('lab_not_allowed:1'))(r.find(x=>x.learner==='labrope'))"; check "4. a scheme outside schemes earns nothing, flagged" $?
echo "$out" | rows "(x=>x.points===1&&x.flags.length===0)(r.find(x=>x.learner==='labsinusoidal'))"; check "4. the allowed way still earns the point" $?

# 5. Duplicate entries: one history, max_attempts over the merge, flagged.
w() { echo "{\"question\":\"weight\",\"answer\":[\"$1\"],\"time\":\"2026-12-01T09:0$2:00Z\"}"; }
scale=$("$poslab" variant --exercise "$fixtures/grading-demo.yaml" --learner dup | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).variant.scale))")
right=$(js 'const s=Number(process.argv[1]);const a=Math.exp(s*s/Math.SQRT2);console.log((a/(a+1)).toFixed(3))' "$scale")
entry() { echo "{\"id\":\"grading-demo\",\"contentHash\":\"$demo_hash\",\"attempts\":[$1]}"; }
sub "$tmp/dup.json" dup "[$(entry "$(w 0.1 1),$(w 0.2 2),$(w 0.3 3)"),$(entry "$(w "$right" 4)"),$(entry "$(w "$right" 5)")]"
out=$(grade "$fixtures" "$tmp/dup.json"); status=$?
echo "$out" | rows "r.length===1&&r[0].flags.includes('duplicate_entries:3')"; check "5. three copies give one row, flagged duplicate_entries:3" $?
echo "$out" | rows "r[0].points===0&&r[0].questions.find(q=>q.id==='weight').ignored===2"; check "5. a second entry does not escape max_attempts (right answers 4th and 5th: 0 points)" $?
[ "$status" -eq 1 ]; check "5. a flagged row exits 1" $?

# 6. CSV formula injection: learner and exercise ids are neutralised.
sub "$tmp/csv.json" '=HYPERLINK("http://evil","x")' "[{\"id\":\"\r@SUM(A1)\",\"contentHash\":\"$demo_hash\",\"attempts\":[]},{\"id\":\"-2+3\",\"contentHash\":\"$demo_hash\",\"attempts\":[]}]"
csv=$("$poslab" grade --exercises "$fixtures" "$tmp/csv.json" "$tmp/good.json" 2>/dev/null)
printf '%s' "$csv" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{
  const lines=s.split('\n').filter(Boolean);
  // 3 rows + header; no record starts a cell with = + - @ (a record may contain a quoted CR, never a bare one).
  const bare=s.replace(/\"(?:[^\"]|\"\")*\"/g,'Q');
  process.exit(lines.length===4&&!/\r/.test(bare)&&!/(^|,)[=+\-@\t]/m.test(bare)&&s.includes(\"'=HYPERLINK\")&&s.includes(\"\\\\u000D@SUM\")&&s.includes(\",'-2+3,\")?0:1)})"
check "6. cells starting with = + - @ are prefixed with '; a CR is shown as \\u000D; no bare CR" $?

# 7. Limits: a file over 8 MB, and the issue's 63 KB "4096 tokens, d = 4096" re-run, refused fast.
js 'require("fs").writeFileSync(process.argv[1], JSON.stringify({format:"position-lab-submission",version:1,learner:"big",exercises:[],pad:"x".repeat(9<<20)}))' "$tmp/big.json"
js 'const [f,h]=process.argv.slice(1); const sentence=Array.from({length:4096},(_,i)=>"w"+(i%100)).join(" ");
  require("fs").writeFileSync(f, JSON.stringify({format:"position-lab-submission",version:1,learner:"heavy",exercises:[{id:"add-position",contentHash:h,
  attempts:[{question:"outputs-differ",answer:{pe:"sinusoidal",permutation:Array.from({length:4096},(_,i)=>(i+1)%4096)},lab:{sentence,pe:"sinusoidal",causal:false,d:4096,seed:0,heads:1,weights:"random"}}]}]}))' "$tmp/heavy.json" "$add_hash"
start=$(date +%s.%N)
out=$(timeout 60 "$poslab" grade --exercises "$real" "$tmp/big.json" "$tmp/heavy.json" --format json 2>/dev/null)
secs=$(js "console.log(($(date +%s.%N)-$start).toFixed(2))")
echo "# heavy (63 KB, 4096 tokens, d = 4096) + 9 MB file: $secs s"
echo "$out" | rows "r.some(x=>x.learner===''&&x.status==='too_large'&&/8 MB/.test(x.message))"; check "7. a file over 8 MB is too_large" $?
echo "$out" | rows "(x=>x.points===0&&x.flags.includes('lab_not_allowed:1'))(r.find(x=>x.learner==='heavy'))"; check "7. the 4096-token d = 4096 re-run is refused (lab_not_allowed)" $?
js "process.exit($secs < 10 ? 0 : 1)"; check "7. both within 10 s ($secs s)" $?
js 'const a=[];for(let i=0;i<205;i++)a.push({question:"property",answer:["invariance"]});require("fs").writeFileSync(process.argv[1],JSON.stringify({format:"position-lab-submission",version:1,learner:"many",exercises:[{id:"grading-demo",contentHash:process.argv[2],attempts:a}]}))' "$tmp/many.json" "$demo_hash"
grade "$fixtures" "$tmp/many.json" | rows "r[0].flags.includes('too_many_attempts:5')"; check "7. attempts past 200 per question are not graded, flagged" $?

# 12. Learner ids, non-finite results, --seeds.
"$poslab" variant --exercise "$fixtures/grading-demo.yaml" --learner '' >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "learner id is empty" "$tmp/err"; check "12. variant --learner '' is refused" $?
"$poslab" variant --exercise "$fixtures/grading-demo.yaml" --learner $'\xff\xfe' >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "not valid UTF-8" "$tmp/err"; check "12. an invalid UTF-8 learner id is refused" $?
out=$("$poslab" forward --vectors '[[3e38,3e38],[3e38,3e38]]' --weights identity 2>"$tmp/err"); status=$?
[ "$status" -eq 2 ] && [ -z "$out" ] && grep -q "not a finite number" "$tmp/err"; check "12. an overflow to Inf is an error, not null in the JSON" $?
out=$("$poslab" attention-steps --vectors '[[1,0],[0,1]]' --weights identity --causal 2>/dev/null)
echo "$out" | js "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);process.exit(j.scores[0][0][1]===null&&j.scores[0][1][0]!==null?0:1)})"; check "12. a masked score is still null" $?
timeout 20 "$poslab" extrapolate --seeds "$(seq -s, 1 17)" --steps 1 >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "at most 16" "$tmp/err"; check "12. extrapolate --seeds is capped" $?

echo "# $failures failed"
[ "$failures" -eq 0 ]
