#!/usr/bin/env bash
# The poslab CLI on good and bad input: JSON on stdout, exit 0; or a one-line
# message on stderr and exit 2. Expected numbers are worked out here, not read
# from the code.
set -u
poslab="$1"
failures=0
err_file=$(mktemp)
trap 'rm -f "$err_file"' EXIT
check() {  # check NAME CONDITION-EXIT-STATUS
  if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi
}
json() {  # json 'JS expression over j' < JSON : exit 0 if truthy
  node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);process.exit(($1)?0:1)})"
}

# The seed's hand calculation: e^{1/√2}/(e^{1/√2}+1) = 0.6698 → 0.670 to 3 decimals.
out=$("$poslab" forward --vectors '[[1,0],[0,1]]' --weights identity --heads 1)
check "forward exits 0" $?
w=$(node -e 'const a=Math.exp(1/Math.SQRT2);console.log(a/(a+1))')
echo "$out" | json "Math.abs(j.attention[0][0][0]-$w)<1e-6 && Math.abs(j.attention[0][0][1]-(1-$w))<1e-6 && j.attention[0][1][1].toFixed(3)==='0.670'"
check "hand calculation attention [[0.670,0.330],[0.330,0.670]]" $?
echo "$out" | json "j.output[0][0].toFixed(3)==='0.670' && j.output[0][1].toFixed(3)==='0.330' && j.output[1][0].toFixed(3)==='0.330'"
check "hand calculation output [[0.670,0.330],[0.330,0.670]]" $?
echo "$out" | json "JSON.stringify(j.positional)==='[[0,0],[0,0]]' && JSON.stringify(j.input)==='[[1,0],[0,1]]'"
check "positional is zeros for none; input is the vectors" $?

# Swapping the rows swaps the outputs and nothing else.
sw=$("$poslab" forward --vectors '[[0,1],[1,0]]' --weights identity --heads 1)
node -e "const a=JSON.parse(process.argv[1]),b=JSON.parse(process.argv[2]);
  const ok=JSON.stringify(a.output[0])===JSON.stringify(b.output[1])&&JSON.stringify(a.output[1])===JSON.stringify(b.output[0]);
  process.exit(ok?0:1)" "$out" "$sw"
check "swapping rows swaps outputs" $?

out=$("$poslab" forward --text "犬が猫を追いかけた" --pe sinusoidal --d-model 8 --heads 2)
echo "$out" | json "j.tokens.join('|')==='犬|が|猫|を|追いかけ|た' && j.output.length===6 && j.output[0].length===8 && j.attention.length===2 && j.attention[0].length===6"
check "forward on text: tokens and shapes" $?
echo "$out" | json "Math.abs(j.positional[1][0]-Math.sin(1))<1e-6 && Math.abs(j.positional[1][1]-Math.cos(1))<1e-6"
check "sinusoidal PE(1,0)=sin 1, PE(1,1)=cos 1" $?

"$poslab" forward --text "犬が猫" --causal | json "j.attention[0][0][1]===0 && j.attention[0][0][2]===0 && j.attention[0][1][2]===0"
check "--causal zeros above the diagonal" $?
"$poslab" forward --text "犬が猫を追いかけた" --pe sinusoidal --combine concat | json "j.hidden[0].length===16 && j.output[0].length===16"
check "--combine concat doubles the width" $?
"$poslab" forward --text "犬が猫" --no-attention | json "j.attention===null"
check "--no-attention" $?

"$poslab" encoding --scheme sinusoidal --length 3 --d-model 4 | json "j.encoding.length===3 && j.encoding[0].join()==='0,1,0,1' && Math.abs(j.encoding[2][2]-Math.sin(0.02))<1e-7"
check "encoding sinusoidal" $?
"$poslab" encoding --scheme learned --length 1 --d-model 4 --position-offset 1023 | json "j.encoding.length===1"
check "learned row 1023 exists" $?
"$poslab" tokenize --text "The keys on the table are lost." | json "j.tokens.join('|')==='the|keys|on|the|table|are|lost|.'"
check "tokenize English" $?
"$poslab" tokenize --text "トランスフォーマーは東京で寿司を食べた" | json "j.tokens.join('|')==='トランスフォーマー|は|東京|で|寿司|を|食べ|た'"
check "tokenize Japanese words with ICU (not characters)" $?
"$poslab" permutation-check --text "犬が猫を追いかけた" --permutation 2,1,0,3,4,5 | json "j.maxAbsDiff<1e-5 && j.permuted.tokens[0]==='猫'"
check "permutation-check without position info is ~0" $?
"$poslab" permutation-check --text "犬が猫を追いかけた" --permutation 2,1,0,3,4,5 --pe rope | json "j.maxAbsDiff>1e-3"
check "permutation-check with rope is > 0" $?
"$poslab" rope-check --m 7 --n 3 --shift 100 | json "j.diff<1e-4"
check "rope-check" $?
"$poslab" shift-matrix --shift 1 --d-model 2 | json "Math.abs(j.matrix[0][0]-Math.cos(1))<1e-7 && Math.abs(j.matrix[0][1]-Math.sin(1))<1e-7"
check "shift-matrix" $?
"$poslab" similarity --scheme sinusoidal --length 4 --d-model 8 | json "Math.abs(j.similarity[2][2]-4)<1e-5"
check "similarity" $?

# Bad input: exit 2, one line on stderr that says what is wrong, nothing on stdout.
bad() {  # bad NAME EXPECTED-TEXT ARGS...
  local name="$1" want="$2"; shift 2
  local err outp status
  outp=$("$poslab" "$@" 2>"$err_file"); status=$?
  err=$(cat "$err_file")
  if [ "$status" -eq 2 ] && [ -z "$outp" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"$want"* ]]; then
    echo "ok - error: $name"
  else
    echo "not ok - error: $name (status $status, stderr: $err)"; failures=$((failures + 1))
  fi
}
bad "learned past 1023" "position 1024 has no row in the learned position table" forward --text "犬が猫を追いかけた" --pe learned --position-offset 1020
bad "empty text" "text is empty" forward --text ""
bad "odd d-model for sinusoidal" "must be even" forward --text "犬" --pe sinusoidal --d-model 7
bad "heads not dividing" "heads (3) must divide the model width 8" forward --text "犬" --heads 3
bad "unknown scheme" "allowed: none, sinusoidal, learned, rope, alibi" forward --text "犬" --pe absolute
bad "unknown weights" "allowed: identity, random" forward --text "犬" --weights xavier
bad "unknown flag" "unknown option --dmodel" forward --text "犬" --dmodel 8
bad "malformed number" "--d-model must be a whole number" forward --text "犬" --d-model 8x
bad "negative seed" "--seed must be a whole number" forward --text "犬" --seed -1
bad "seed too large" "--seed must be a whole number from 0 to 4294967295" forward --text "犬" --seed 4294967296
bad "vectors not JSON" "--vectors is not valid JSON" forward --vectors '[[1,0'
bad "ragged vectors" "row 0 has 2 numbers, row 1 has 1" forward --vectors '[[1,0],[1]]'
bad "empty vectors" "vectors is empty" forward --vectors '[]'
bad "string in vectors" "is not a number" forward --vectors '[[1,"a"]]'
bad "no input" "give the input with --text" forward
bad "d-model 0" "dModel must be from 1 to 4096, got 0" forward --text "犬" --d-model 0
bad "invalid UTF-8" "not valid UTF-8" forward --text $'\xff'
bad "bad permutation" "give each of 0 to 2 once" permutation-check --text "犬が猫" --permutation 0,0,1
bad "unknown command" "unknown command 'fly'" fly
bad "rope scheme has no table" "acts inside attention" encoding --scheme rope --length 2 --d-model 2
too_long=$(printf 'a %.0s' $(seq 1 4097))
bad "too many tokens" "at most 4096" forward --text "$too_long"

echo "# $failures failed"
[ "$failures" -eq 0 ]
