#!/usr/bin/env bash
# poslab grade on shuffled choices with attempt costs, predictions and
# free-text explanations. Expected points are worked out here by hand from
# the fixture's credit list, not read from the grader.
set -u
poslab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
exercises="$here/../fixtures/questions"
file="$exercises/attempt-costs.yaml"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi; }
json() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);$1})"; }

hash=$("$poslab" exercise-info "$file" | json 'console.log(j[0].contentHash)')

# The option order: a permutation of the file's, the same on every call, "none-of-these" (fixed) last.
order=$("$poslab" variant --exercise "$file" --learner alice | json 'console.log(JSON.stringify(j.optionOrders.property))')
[ "$order" = "$("$poslab" variant --exercise "$file" --learner alice | json 'console.log(JSON.stringify(j.optionOrders.property))')" ]; check "the same learner always gets the same order" $?
echo "$order" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const o=JSON.parse(s);
  process.exit([...o].sort().join()==='equivariance,invariance,linearity,none-of-these'&&o[3]==='none-of-these'?0:1)})"
check "the order is a permutation with the fixed option in place ($order)" $?

# attempts: [[question, answer JSON], …] → a submission of LEARNER.
submission() {
  node -e '
    const [learner, hash, attempts] = process.argv.slice(1);
    const list = JSON.parse(attempts).map(([question, answer]) => ({ question, answer }));
    console.log(JSON.stringify({ format: "position-lab-submission", version: 1, labVersion: "0.1.0", learner, exercises: [{ id: "attempt-costs", contentHash: hash, attempts: list }] }));
  ' "$@"
}
long=$(node -e 'console.log("あ".repeat(51))')
# alice: wrong, then right (attempt 2: credit 0.5 × 2 points = 1); predicts rope, then none after
# the run (only the first counts: 1 point); a too-long explanation (not kept), then two texts.
submission alice "$hash" "[[\"property\",[\"invariance\"]],[\"property\",[\"equivariance\"]],
  [\"predict\",[\"rope\"]],[\"predict\",[\"none\"]],
  [\"why\",\"$long\"],[\"why\",\"first try\"],[\"why\",\"outputs move with the inputs\"]]" > "$tmp/alice.json"
out=$("$poslab" grade --exercises "$exercises" "$tmp/alice.json" --format json 2>/dev/null); status=$?
check "alice's submission is graded (exit 0)" $status
echo "$out" | json '
  const r = j.rows[0], q = (id) => r.questions.find((x) => x.id === id);
  const ok = r.status === "graded" && r.points === 2 && r.max === 3
    && q("property").points === 1 && q("property").attempts === 2
    && q("predict").points === 1 && JSON.stringify(q("predict").response) === "[\"rope\"]" && q("predict").ignored === 1
    && q("why").points === 0 && q("why").max === 0 && q("why").attempts === 2 && q("why").response === "outputs move with the inputs";
  if (!ok) console.error(JSON.stringify(r));
  process.exit(ok ? 0 : 1);'
check "credit 0.5 on the 2nd attempt, the first prediction, the last explanation (2 of 3)" $?
echo "$out" | json "process.exit(JSON.stringify(j.rows[0].questions[0].order) === JSON.stringify($order) ? 0 : 1)"
check "grade reports the order the learner saw, as variant gives it" $?

# bob: three wrong, then right: past max_attempts 3, nothing earned.
submission bob "$hash" '[["property",["invariance"]],["property",["linearity"]],["property",["none-of-these"]],["property",["equivariance"]]]' > "$tmp/bob.json"
"$poslab" grade --exercises "$exercises" "$tmp/bob.json" --format json 2>/dev/null | json '
  const p = j.rows[0].questions[0]; process.exit(p.points === 0 && p.ignored === 1 && !p.solved ? 0 : 1)'
check "a right answer after max_attempts earns nothing" $?

# carol: trained before predicting (the page's mark), then predicted anyway: the
# prediction is not counted, the question says so and the row is flagged.
submission carol "$hash" '[["predict",{"ran_before_prediction":true}],["predict",["rope"]]]' > "$tmp/carol.json"
"$poslab" grade --exercises "$exercises" "$tmp/carol.json" --format json 2>/dev/null | json '
  const r = j.rows[0], p = r.questions.find((x) => x.id === "predict");
  const ok = p.points === 0 && p.ranBeforePrediction === true && p.ignored === 1 && p.response === undefined
    && JSON.stringify(r.flags) === "[\"ran_before_prediction:1\"]";
  if (!ok) console.error(JSON.stringify(r));
  process.exit(ok ? 0 : 1)'
check "training before predicting: 0 points, ranBeforePrediction, the row flagged" $?
"$poslab" grade --exercises "$exercises" "$tmp/carol.json" 2>/dev/null | grep -q 'ran_before_prediction:1'
check "the CSV's flags column says ran_before_prediction:1" $?

# 30 learners who each click the option shown first, once: the right option is first for
# only some of them (about 1 in 3 of the movable places), so the mean is well below 2 points.
total=0; firsts=0
for i in $(seq 1 30); do
  first=$("$poslab" variant --exercise "$file" --learner "learner-$i" | json 'console.log(j.optionOrders.property[0])')
  submission "learner-$i" "$hash" "[[\"property\",[\"$first\"]]]" > "$tmp/l$i.json"
  p=$("$poslab" grade --exercises "$exercises" "$tmp/l$i.json" --format json 2>/dev/null | json 'console.log(j.rows[0].questions[0].points)')
  [ "$first" = "equivariance" ] && firsts=$((firsts + 1))
  total=$(node -e "console.log($total + $p)")
done
[ "$firsts" -gt 2 ] && [ "$firsts" -lt 20 ]; check "the right option is shown first to $firsts of 30 learners (about 10 expected)" $?
node -e "process.exit($total === 2 * $firsts && $total < 60 ? 0 : 1)"; check "clicking the first option scores $total of 60 points, 2 per learner shown the right one first" $?

echo "# $failures failed"
[ "$failures" -eq 0 ]
