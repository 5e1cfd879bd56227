#!/usr/bin/env bash
# poslab extrapolate / extend --threads N (issue 25): the runs train side by
# side, and the JSON is the same for any N (each run's seconds aside); bad
# thread counts are one-line errors that say what is allowed.
set -u
poslab="$1"
. "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"

# Everything but the timings, as canonical JSON text.
same() {  # same A B : exit 0 if equal once every "seconds"/"meanSeconds" is dropped
  node -e "const strip=(k,v)=>(k==='seconds'||k==='meanSeconds')?undefined:v;
    const a=JSON.stringify(JSON.parse(process.argv[1]),strip),b=JSON.stringify(JSON.parse(process.argv[2]),strip);
    process.exit(a===b&&a.length>100?0:1)" "$1" "$2"
}

args=(--schemes learned,rope,none --seeds 1,2 --steps 4 --test-max 18)
one=$("$poslab" extrapolate "${args[@]}" --threads 1)
check "extrapolate --threads 1 exits 0" $?
two=$("$poslab" extrapolate "${args[@]}" --threads 2)
check "extrapolate --threads 2 exits 0" $?
five=$("$poslab" extrapolate "${args[@]}" --threads 5)
check "extrapolate --threads 5 exits 0" $?
dflt=$("$poslab" extrapolate "${args[@]}")
check "extrapolate without --threads exits 0" $?
same "$one" "$two"; check "extrapolate: 2 threads give the 1-thread JSON" $?
same "$one" "$five"; check "extrapolate: 5 threads (6 runs) give the 1-thread JSON" $?
same "$one" "$dflt"; check "extrapolate: the default thread count gives the 1-thread JSON" $?
echo "$two" | json "j.runs.map(r=>r.scheme+r.seed).join(',')==='learned1,learned2,rope1,rope2,none1,none2'"
check "extrapolate --threads 2: runs in the order asked" $?

eargs=(--methods none,pi --seeds 1,2,3 --steps 3 --finetune-steps 2)
e1=$("$poslab" extend "${eargs[@]}" --threads 1)
check "extend --threads 1 exits 0" $?
e3=$("$poslab" extend "${eargs[@]}" --threads 3)
check "extend --threads 3 exits 0" $?
same "$e1" "$e3"; check "extend: 3 threads give the 1-thread JSON" $?
echo "$e3" | json "j.runs.map(r=>r.seed).join(',')==='1,2,3'"
check "extend --threads 3: seeds in the order asked" $?

for subcommand in extrapolate extend; do
  bad "$subcommand: threads 0" "--threads must be a whole number from 1 to 256, got '0'" --threads 0 --steps 1
  bad "$subcommand: threads negative" "--threads must be a whole number from 1 to 256, got '-2'" --threads -2 --steps 1
  bad "$subcommand: threads huge" "--threads must be a whole number from 1 to 256, got '100000'" --threads 100000 --steps 1
  bad "$subcommand: threads past 2^64" "--threads must be a whole number from 1 to 256, got '99999999999999999999999'" --threads 99999999999999999999999 --steps 1
  bad "$subcommand: threads not a number" "--threads must be a whole number from 1 to 256, got 'two'" --threads two --steps 1
  bad "$subcommand: threads fractional" "--threads must be a whole number from 1 to 256, got '1.5'" --threads 1.5 --steps 1
  bad "$subcommand: threads empty" "--threads must be a whole number from 1 to 256, got ''" --threads= --steps 1
done
"$poslab" extrapolate --help | grep -q -- "--threads N"
check "extrapolate --help names --threads" $?
"$poslab" extend --help | grep -q -- "--threads N"
check "extend --help names --threads" $?

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
