#!/usr/bin/env bash
# poslab grade --bom (a UTF-8 byte order mark before the CSV, for Excel) and
# the named mistake each wrong answer matched, in the JSON rows. The planted
# answers are worked out by hand: for x1 = (1, 0), x2 = (0, 1) the weights of
# x1's row are softmax(1/√2, 0) = (0.670, 0.330); without the √d_k scaling
# softmax(1, 0) = (0.731, 0.269) (the file's first mistake); divided by d_k = 2,
# softmax(0.5, 0) = (0.622, 0.378) (its second).
set -u
poslab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
exercises="$here/../../exercises"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi; }

hash=$("$poslab" exercise-info "$exercises/03-hand-calc.yaml" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)[0].contentHash))")
node -e '
  const [hash, file] = process.argv.slice(1);
  const a = (answer) => ({ question: "softmax-a", answer, time: "2026-12-01T09:00:00Z" });
  const sub = { format: "position-lab-submission", version: 1, labVersion: "0.1.0", learner: "山田太郎",
    exercises: [{ id: "hand-calc", contentHash: hash, attempts: [a(["0.731", "0.269"]), a(["0.622", "0.378"]), a(["0.5", "0.5"]), a(["0.670", "0.330"])] }] };
  require("fs").writeFileSync(file, JSON.stringify(sub));
' "$hash" "$tmp/yamada.json"

"$poslab" grade --exercises "$exercises" "$tmp/yamada.json" --bom > "$tmp/bom.csv" 2>/dev/null
[ "$(head -c 3 "$tmp/bom.csv" | od -An -tx1 | tr -d ' \n')" = "efbbbf" ]; check "--bom: the CSV starts with EF BB BF" $?
[ "$(tail -c +4 "$tmp/bom.csv" | head -1)" = "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs" ]; check "--bom: the header follows the mark" $?
grep -q ",山田太郎,hand-calc," "$tmp/bom.csv"; check "--bom: a Japanese learner id is kept as UTF-8" $?
"$poslab" grade --exercises "$exercises" "$tmp/yamada.json" > "$tmp/plain.csv" 2>/dev/null
[ "$(head -c 4 "$tmp/plain.csv")" = "file" ]; check "without --bom: no mark" $?
[ "$(tail -c +4 "$tmp/bom.csv")" = "$(cat "$tmp/plain.csv")" ]; check "--bom changes nothing but the mark" $?
"$poslab" grade --exercises "$exercises" "$tmp/yamada.json" --format json --bom > "$tmp/out.json" 2>/dev/null
[ "$(head -c 1 "$tmp/out.json")" = "{" ]; check "--bom leaves JSON output alone" $?

node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).rows[0];
  const q = r.questions.find((x) => x.id === "softmax-a");
  const ids = q.wrong.map((w) => (w.mistake ? w.mistake.id : null));
  process.exit(JSON.stringify(ids) === JSON.stringify(["mistake-1", "mistake-2", null]) && q.attemptsToCorrect === 4 && q.solved ? 0 : 1);
' "$tmp/out.json"; check "JSON rows name the mistake each wrong answer matched (mistake-1, mistake-2, none)" $?

echo "# $failures failed"
[ "$failures" -eq 0 ]
