#!/usr/bin/env bash
# poslab extend (RoPE context extension) on good and bad input: JSON on
# stdout and exit 0, or a one-line message on stderr and exit 2. Tiny runs.
set -u
poslab="$1"
subcommand=extend
. "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"

tiny=(--steps 4 --train-max 4 --test-max 8 --finetune-steps 2 --batch 4 --d-model 16 --heads 2 --layers 1 --d-mlp 16)
out=$("$poslab" extend --seeds 1,2 --methods none,pi,yarn "${tiny[@]}")
check "a tiny run exits 0" $?
echo "$out" | json "j.runs.length===2 && j.runs.every(r=>r.curves.length===6 && r.loss.length===4)"
check "per seed: 3 methods × (zero-shot, fine-tuned), 4 base losses" $?
echo "$out" | json "j.runs[0].curves.map(c=>c.method+(c.finetuned?'+':'')).join(',')==='none,none+,pi,pi+,yarn,yarn+'"
check "curves in method order, zero-shot first" $?
echo "$out" | json "j.runs.every(r=>r.curves.every(c=>c.exactMatch.length===8 && c.loss.length===(c.finetuned?2:0)))"
check "8 exact-match values per curve; 2 fine-tune losses on fine-tuned curves" $?
# L = 2·4 = 8, s = 8/4 = 2; PI's θ'₁ = 10^(−1/2·… ) for d_head 8: θ₁ = 0.1 → 0.05; YaRN's logits × (0.1·ln 2 + 1)² = 1.1434.
echo "$out" | json "j.trainedLength===8 && j.scale===2 && Math.abs(j.rope[1].theta[1]-0.05)<1e-12 && Math.abs(j.rope[2].logitScale-1.143434)<1e-6"
check "trained length, scale, PI frequency and YaRN's temperature" $?
echo "$out" | json "j.summary.length===6 && j.summary.every(s=>s.meanExtrapolated.length===2)"
check "a summary row per method and fine-tune, with each seed's value" $?
"$poslab" extend --help | grep -q "RoPE context extension"
check "--help" $?

out=$("$poslab" extend --seeds 1 --methods none,pi --steps 4 --train-max 4 --test-max 8 --finetune-steps 0 --batch 4 --d-model 16 --heads 2 --layers 1 --d-mlp 16)
check "no fine-tune exits 0" $?
echo "$out" | json "j.runs[0].curves.map(c=>c.method+(c.finetuned?'+':'')).join(',')==='none,pi' && j.summary.length===2"
check "--finetune-steps 0: the zero-shot curves only, each summarised" $?

# Look back k: the same run on random symbols, k in the options.
out=$("$poslab" extend --seeds 1 --methods none,ntk --task lookback --k 3 "${tiny[@]}")
check "a tiny lookback run exits 0" $?
echo "$out" | json "j.task==='lookback' && j.options.task==='lookback' && j.options.k===3 && j.runs[0].curves.length===4 && j.trainedLength===8 && j.scale===2"
check "lookback: task and k in the JSON, 2 methods × 2 curves, same L and s" $?
# n = 1 has 3 symbols and k = 3: nothing to predict, counted as solved; every value a multiple of 1/16.
echo "$out" | json "j.runs[0].curves.every(c=>c.exactMatch.length===8 && c.exactMatch[0]===1 && c.exactMatch.every(v=>Number.isInteger(v*16)))"
check "lookback: exact match per n is a fraction of 16 test sequences" $?
echo "$("$poslab" extend --seeds 1 --methods none "${tiny[@]}")" | json "j.task==='count-and-stop' && j.options.task==='count' && !('k' in j.options)"
check "count and stop stays the default" $?
"$poslab" extend --help | grep -q "task lookback"
check "--help names --task lookback" $?

# YaRN's edges: the paper's by default (α = 1, β = 32), the lab's by name (β = L/2π = 8/2π), or set.
out=$("$poslab" extend --seeds 1 --methods yarn "${tiny[@]}")
echo "$out" | json "j.options.yarnEdges==='paper' && j.rope[0].alpha===1 && j.rope[0].beta===32"
check "YaRN: the paper's edges by default" $?
out=$("$poslab" extend --seeds 1 --methods yarn --yarn-edges lab "${tiny[@]}")
echo "$out" | json "j.options.yarnEdges==='lab' && Math.abs(j.rope[0].beta-8/(2*Math.PI))<1e-12 && Math.abs(j.rope[0].theta[0]-1)<1e-12"
check "YaRN: --yarn-edges lab, β = L/2π, pair 0 kept" $?
out=$("$poslab" extend --seeds 1 --methods yarn --yarn-alpha 0.5 --yarn-beta 2 "${tiny[@]}")
# d_head 8, base 10⁴, L 8: pair 0 turns 8/2π = 1.273 → γ₀ = (1.273 − 0.5)/1.5 = 0.5155.
echo "$out" | json "j.options.yarnAlpha===0.5 && j.options.yarnBeta===2 && Math.abs(j.rope[0].ramp[0]-(8/(2*Math.PI)-0.5)/1.5)<1e-12"
check "YaRN: --yarn-alpha / --yarn-beta replace the edges" $?
"$poslab" extend --help | grep -q "yarn-edges paper"
check "--help names --yarn-edges" $?
bad "unknown edges" "--yarn-edges must be paper (α = 1, β = 32) or lab" --yarn-edges llama "${tiny[@]}"
bad "alpha not below beta" "--yarn-alpha must be less than yarnBeta" --yarn-alpha 3 --yarn-beta 3 "${tiny[@]}"
bad "beta too large" "--yarn-beta must be a number from 0 to 10000, got 20000" --yarn-beta 20000 "${tiny[@]}"
bad "alpha too large" "--yarn-alpha must be a number from 0 to 10000, got 100000" --yarn-alpha 100000 --yarn-beta 200 "${tiny[@]}"

bad "unknown task" "--task must be count or lookback, got 'copy'" --task copy "${tiny[@]}"
bad "k without lookback" "--k applies only to --task lookback" --k 3 "${tiny[@]}"
bad "k too large" "--k must be an integer from 1 to 4, got 5" --task lookback --k 5 "${tiny[@]}"
bad "k zero" "--k must be an integer from 1 to 4, got 0" --task lookback --k 0 "${tiny[@]}"
bad "k not a number" "--k must be a whole number" --task lookback --k two "${tiny[@]}"
bad "unknown method" "method must be one of none, pi, ntk, yarn, base" --methods pi,rope "${tiny[@]}"
bad "method twice" "lists pi twice" --methods pi,pi "${tiny[@]}"
bad "fine-tune too long" "--finetune-steps must be an integer from 0 to 2000" --finetune-steps 5000
bad "test not longer" "--test-max must be an integer from 5 to 96" --train-max 4 --test-max 4
bad "head too narrow for NTK" "NTK-aware scaling needs d of at least 4" --d-model 16 --heads 8
bad "unknown flag" "unknown option --epochs" --epochs 3

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
