# Shared by the CLI tests of one poslab subcommand (sourced, not run: CTest
# runs tests/cli/*.sh only, not this folder). Before sourcing, set
#   poslab=<path to the CLI>  subcommand=<e.g. extrapolate>
# Gives: failures (count), check, json, bad.
failures=0
check() {  # check NAME EXIT-STATUS-OF-THE-CONDITION
  if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi
}
json() {  # json 'JS expression over j' < JSON : exit 0 if truthy
  node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);process.exit(($1)?0:1)})"
}
bad() {  # bad NAME EXPECTED-FRAGMENT ARGS… : exit 2, nothing on stdout, one line on stderr naming the problem
  local name="$1" fragment="$2"
  shift 2
  local out err status
  err=$( { out=$("$poslab" "$subcommand" "$@"); } 2>&1 )
  status=$?
  local lines
  lines=$(printf '%s\n' "$err" | wc -l)
  [ "$status" -eq 2 ] && [ -z "${out:-}" ] && [ "$lines" -eq 1 ] && [[ "$err" == *"$fragment"* ]]
  check "$name (got status $status: $err)" $?
}
