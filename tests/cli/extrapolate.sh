#!/usr/bin/env bash
# poslab extrapolate on good and bad input: JSON on stdout and exit 0, or a
# one-line message on stderr and exit 2. Short runs only (a few steps).
set -u
poslab="$1"
subcommand=extrapolate
. "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"

out=$("$poslab" extrapolate --schemes learned,none --seeds 1,2 --steps 3 --test-max 20)
check "a short run exits 0" $?
echo "$out" | json "j.task==='count-and-stop' && j.runs.length===4 && j.summary.length===2"
check "one run per scheme and seed, one summary per scheme" $?
echo "$out" | json "j.runs.map(r=>r.scheme+r.seed).join(',')==='learned1,learned2,none1,none2'"
check "runs in the order asked" $?
echo "$out" | json "j.runs.every(r=>r.loss.length===3 && r.loss.every(x=>x>0 && isFinite(x)) && r.exactMatch.length===20 && r.seconds>=0)"
check "3 losses and 20 exact-match values per run" $?
echo "$out" | json "j.runs.every(r=>r.exactMatch.every(x=>x===0||x===1))"
check "exact match per n is 0 or 1 (one teacher-forced pass per n)" $?
# Consistency of the summary figures with exactMatch, recomputed here.
echo "$out" | json "j.runs.every(r=>{let k=0;while(k<20&&r.exactMatch[k]===1)k++;
  const m=r.exactMatch.slice(16).reduce((a,b)=>a+b,0)/4;
  return r.solvedUpTo===k && Math.abs(r.meanExtrapolated-m)<1e-12})"
check "solvedUpTo and meanExtrapolated (n=17..20) follow from exactMatch" $?
echo "$out" | json "j.options.steps===3 && j.options.trainMax===16 && j.options.testMax===20 && j.options.learnedTableRows===42 && j.options.warmup===0"
check "options echoed; learned table covers 2*20+2 positions; warm-up steps/10" $?
# Untrained (3 steps): a random model guesses, so its first loss is near ln 5 = 1.609.
echo "$out" | json "j.runs.every(r=>Math.abs(r.loss[0]-Math.log(5))<0.3)"
check "the first loss is near ln 5 (5 tokens, untrained)" $?

again=$("$poslab" extrapolate --schemes learned,none --seeds 1,2 --steps 3 --test-max 20)
node -e "const a=JSON.parse(process.argv[1]),b=JSON.parse(process.argv[2]);
  process.exit(JSON.stringify(a.runs.map(r=>r.loss))===JSON.stringify(b.runs.map(r=>r.loss))?0:1)" "$out" "$again"
check "the same seeds give the same loss curves" $?
echo "$out" | json "JSON.stringify(j.runs[0].loss)!==JSON.stringify(j.runs[1].loss)"
check "different seeds give different loss curves" $?

"$poslab" extrapolate --help | grep -q "count and stop"
check "--help prints the usage, exit 0" $?

out=$("$poslab" extrapolate --schemes rope --seeds 1 --steps 3 --train-max 4 --test-max 6 --task lookback --k 2)
check "a short lookback run exits 0" $?
echo "$out" | json "j.task==='lookback' && j.options.k===2 && j.runs[0].exactMatch.length===6 && j.runs[0].exactMatch.every(x=>Number.isInteger(x*16))"
check "lookback: task and k echoed; exact match per n a fraction of 16 test sequences" $?
# 8 symbols, untrained: the first loss is near ln 8 = 2.079.
echo "$out" | json "Math.abs(j.runs[0].loss[0]-Math.log(8))<0.3"
check "lookback: the first loss is near ln 8 (8 symbols, untrained)" $?
bad "unknown task" "--task must be count or lookback, got 'copy'" --task copy --steps 1
bad "k without lookback" "--k applies only to --task lookback" --k 2 --steps 1
bad "k past train-max" "--k must be an integer from 1 to 16, got 17" --task lookback --k 17 --steps 1

bad "unknown scheme" "foo" --schemes rope,foo --steps 1
bad "scheme twice" "rope twice" --schemes rope,rope --steps 1
bad "seed twice" "1 twice" --seeds 1,1 --steps 1
bad "seed not a number" "--seeds" --seeds 1,x --steps 1
bad "seed too large" "4294967295" --seeds 4294967296 --steps 1
bad "steps 0" "--steps must be an integer from 1 to 20000, got 0" --steps 0
bad "steps negative" "--steps" --steps -3
bad "steps not a number" "--steps" --steps ten
bad "test-max not past train-max" "--test-max must be an integer from 17 to 96, got 16" --test-max 16 --steps 1
bad "d-model too large" "--d-model must be an integer from 2 to 64, got 100" --d-model 100 --steps 1
bad "lr zero" "--lr must be a number in (0, 1], got 0" --lr 0 --steps 1
bad "lr not a number" "--lr" --lr fast --steps 1
bad "warmup past steps" "--warmup must be an integer from 0 to 5, got 6" --steps 5 --warmup 6
bad "heads not dividing" "heads must divide dModel" --heads 3 --steps 1
bad "unknown flag" "unknown option --epochs" --epochs 3
bad "stray word" "only --flags" learned --steps 1
bad "flag without value" "--steps needs a value" --steps

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
