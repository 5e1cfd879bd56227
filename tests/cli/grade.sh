#!/usr/bin/env bash
# poslab grade on good, tampered, malformed and mixed batches. Expected
# answers are worked out here from the formula, not read from the grader.
set -u
poslab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
exercises="$here/../fixtures/exercises"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi; }

hash=$("$poslab" exercise-info "$exercises/grading-demo.yaml" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)[0].contentHash))")
variant() { "$poslab" variant --exercise "$exercises/grading-demo.yaml" --learner "$1"; }

# submission LEARNER WEIGHT_ANSWERS(JSON list of lists) CHOICE OFFSET CLAIMED [SEED] [HASH] [ID]
submission() {
  node -e '
    const [learner, weights, choice, offset, claimed, seed, hash, id] = process.argv.slice(1);
    const attempts = JSON.parse(weights).map((a) => ({ question: "weight", answer: a, time: "2026-12-01T09:00:00Z" }));
    attempts.push({ question: "property", answer: [choice] });
    attempts.push({ question: "wall", answer: { positionOffset: Number(offset) } });
    const e = { id, contentHash: hash, attempts, claimed: { points: Number(claimed), max: 4 } };
    if (seed !== "-") e.seed = Number(seed);
    console.log(JSON.stringify({ format: "position-lab-submission", version: 1, labVersion: "0.1.0", learner, exercises: [e] }));
  ' "$@"
}
# The right weight for x1 = (s, 0), x2 = (0, 1), identity weights: e^{s²/√2} / (e^{s²/√2} + 1).
right_weight() { node -e 'const s=Number(process.argv[1]);const a=Math.exp(s*s/Math.SQRT2);console.log((a/(a+1)).toFixed(3))' "$1"; }

alice_scale=$(variant alice | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).variant.scale))")
bob_scale=$(variant bob | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).variant.scale))")
alice_w=$(right_weight "$alice_scale")
bob_w=$(right_weight "$bob_scale")
[ "$alice_scale" != "$bob_scale" ]; check "alice and bob get different variants ($alice_scale, $bob_scale)" $?
[ "$(variant alice)" = "$(variant alice)" ]; check "the same learner always gets the same variant" $?

# alice: wrong, then right (2 of 3 attempts), right choice, a wall past 1023: 2 + 1 + 1 = 4.
submission alice "[[\"0.5\"],[\"$alice_w\"]]" equivariance 1022 4 - "$hash" grading-demo > "$tmp/alice.json"
out=$("$poslab" grade --exercises "$exercises" "$tmp/alice.json" --format json); status=$?
check "a good submission exits 0" $status
echo "$out" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s).rows[0];
  process.exit(r.status==='graded'&&r.points===4&&r.max===4&&r.claimedDiffers===false?0:1)})"
check "alice: 4 of 4, claimed score agrees" $?

# bob claims 4, but typed alice's number (right for her variant, wrong for his), chose wrong,
# and put the sentence before the wall; his file also carries alice's seed.
alice_seed=$(variant alice | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).seed))")
submission bob "[[\"$alice_w\"]]" invariance 100 4 "$alice_seed" "$hash" grading-demo > "$tmp/bob.json"
out=$("$poslab" grade --exercises "$exercises" "$tmp/bob.json" --format json)
echo "$out" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s).rows[0];
  process.exit(r.status==='graded'&&r.points===0&&r.claimedDiffers===true&&/seed was not this learner/.test(r.message)?0:1)})"
check "bob: tampered claim and seed are ignored, 0 points, claim flagged" $?

# Malformed answers cost no attempt: three malformed then the right one within max_attempts 3.
submission carol "[[\"abc\"],[\"\"],[\"０．５x\"],[\"0.1\"],[\"0.2\"],[\"$(right_weight "$(variant carol | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).variant.scale))")" | sed 's/0/０/g')\"]]" equivariance 1022 4 - "$hash" grading-demo > "$tmp/carol.json"
"$poslab" grade --exercises "$exercises" "$tmp/carol.json" --format json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const r=JSON.parse(s).rows[0];
  const w=r.questions.find(q=>q.id==='weight');process.exit(r.points===4&&w.attempts===3&&w.solved?0:1)})"
check "malformed answers are not attempts; full-width digits accepted" $?

# Broken and mismatched files are reported per file; the good one is still graded.
echo '{"format": "position-lab-submission", "version": 1, "learner": "dan", "exercises": [' > "$tmp/broken.json"
echo '{"hello": "world"}' > "$tmp/other.json"
submission erin "[[\"0.5\"]]" equivariance 0 1 - "0000000000000000" grading-demo > "$tmp/old.json"
submission fay "[[\"0.5\"]]" equivariance 0 1 - "$hash" no-such-exercise > "$tmp/unknown.json"
csv=$("$poslab" grade --exercises "$exercises" "$tmp/alice.json" "$tmp/broken.json" "$tmp/other.json" "$tmp/old.json" "$tmp/unknown.json" 2>"$tmp/err"); status=$?
[ "$status" -eq 1 ]; check "a mixed batch exits 1 (some rows not graded)" $?
[ "$(echo "$csv" | head -1)" = "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs" ]; check "CSV header" $?
echo "$csv" | grep -q "alice.json,alice,grading-demo,4,4,4,no,graded,"; check "alice graded in the mixed batch" $?
echo "$csv" | grep "broken.json" | grep -q "invalid_file,\"\?not JSON"; check "a truncated file is invalid_file" $?
echo "$csv" | grep "other.json" | grep -q "invalid_file,\"\\?not a Position Lab submission"; check "a foreign JSON file is invalid_file" $?
echo "$csv" | grep "old.json" | grep -q "hash_mismatch"; check "another version of the exercise is hash_mismatch" $?
echo "$csv" | grep "unknown.json" | grep -q "unknown_exercise"; check "an unknown exercise is reported" $?
grep -q "5 file(s)" "$tmp/err"; check "a summary line on stderr" $?

"$poslab" grade --exercises "$tmp/nowhere" "$tmp/alice.json" 2>/dev/null; [ $? -eq 2 ]; check "a missing exercises folder is a usage error (2)" $?
"$poslab" grade --exercises "$exercises" 2>/dev/null; [ $? -eq 2 ]; check "no submission files is a usage error (2)" $?
"$poslab" grade --exercises "$exercises" --format xml "$tmp/alice.json" 2>/dev/null; [ $? -eq 2 ]; check "an unknown format is a usage error (2)" $?

echo "# $failures failed"
[ "$failures" -eq 0 ]
