#!/usr/bin/env bash
# Exercise files are input too: hostile and careless YAML must give exit 2 and
# one line naming the file and the field, never a crash (a signal), unbounded
# memory, or a library's bare message ("stod", "cannot use value() with null").
set -u
poslab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
fx="$here/../fixtures/hostile-exercises"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
check() { if [ "$2" -eq 0 ]; then echo "ok - $1"; else echo "not ok - $1"; failures=$((failures + 1)); fi; }

# expect_error NAME PATTERN COMMAND…: exit status 2 (not a signal: ≥ 128), within
# 30 s, and stderr matching PATTERN (an extended regex).
expect_error() {
  local name="$1" pattern="$2"
  shift 2
  timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
  local status=$?
  if [ "$status" -ne 2 ]; then
    echo "# $name: exit status $status (want 2); stderr: $(head -c 300 "$tmp/err")"
    check "$name" 1
    return
  fi
  grep -Eq -- "$pattern" "$tmp/err"
  local found=$?
  [ "$found" -eq 0 ] || echo "# $name: stderr was: $(head -c 400 "$tmp/err")"
  check "$name" $found
}

# A self-referencing alias: the value contains itself.
expect_error "self-referencing alias (exercise-info)" "self-alias\.yaml: a\[0\]\[0\].*nested more than 64 levels" \
  "$poslab" exercise-info "$fx/self-alias.yaml"
expect_error "self-referencing alias (variant)" "self-alias\.yaml: .*nested more than 64 levels" \
  "$poslab" variant --exercise "$fx/self-alias.yaml" --learner alice

# Billion laughs: 9 levels of 10 aliases, 10^9 values once expanded, from 700 bytes.
expect_error "billion-laughs anchors are bounded" "billion-laughs\.yaml: .*more than 100000 values" \
  "$poslab" exercise-info "$fx/billion-laughs.yaml"

# A 40 000-digit plain scalar: a number out of range, said so; no regex recursion.
{ echo "id: digits"; printf 'variants:\n  n: {kind: integer, min: 0, max: '; head -c 40000 /dev/zero | tr '\0' 9; echo '}'; } > "$tmp/digits.yaml"
expect_error "40 000-digit number (exercise-info)" "digits\.yaml: variants\.n\.max: the number 9{10}.*40000 characters.*out of range" \
  "$poslab" exercise-info "$tmp/digits.yaml"
expect_error "40 000-digit number (variant)" "digits\.yaml: variants\.n\.max: .*out of range" \
  "$poslab" variant --exercise "$tmp/digits.yaml" --learner alice
# …and a 40 000-character plain text scalar is just text.
{ echo "id: long-text"; printf 'title: '; head -c 40000 /dev/zero | tr '\0' a; echo; } > "$tmp/long-text.yaml"
"$poslab" exercise-info "$tmp/long-text.yaml" 2>/dev/null | grep -q '"id":"long-text"'
check "a 40 000-character text scalar loads" $?

# Deep nesting without aliases: the parser's and the loader's depth limits.
{ echo "id: deep"; printf 'x: '; head -c 100000 /dev/zero | tr '\0' '['; echo; } > "$tmp/deep.yaml"
expect_error "100 000 nested lists" "deep\.yaml: line [0-9]+: nested more than 64 levels deep \(the parser stopped at [0-9]+\)" \
  "$poslab" exercise-info "$tmp/deep.yaml"
{ echo "id: deep65"; printf 'x: '; head -c 70 /dev/zero | tr '\0' '['; head -c 70 /dev/zero | tr '\0' ']'; echo; } > "$tmp/deep65.yaml"
expect_error "70 nested lists pass the 64-level limit" "deep65\.yaml: x(\[0\]){19}\[0…: nested more than 64 levels" \
  "$poslab" exercise-info "$tmp/deep65.yaml"

# Integer variant with the extreme 64-bit range: no SIGFPE, a bad_exercise naming the field.
expect_error "extreme integer range (variant)" \
  "extreme-integer\.yaml: variants\.n\.min: must be a whole number from -9007199254740991 to 9007199254740991, got -9223372036854775808" \
  "$poslab" variant --exercise "$fx/extreme-integer.yaml" --learner alice
expect_error "extreme integer range (exercise-info)" "extreme-integer\.yaml: variants\.n\.min: " \
  "$poslab" exercise-info "$fx/extreme-integer.yaml"

# 1e999 and a 80-bit hex number: named file, field and range, not "stod" / "stoll".
expect_error "1e999" "huge-float\.yaml: variants\.x\.max: the number 1e999 .*out of range: a number must be finite" \
  "$poslab" exercise-info "$fx/huge-float.yaml"
expect_error "0xFFFF…" "huge-hex\.yaml: variants\.n\.max: the integer 0xFFFFFFFFFFFFFFFFFFFF is out of range: 0x integers may be at most 0x7FFFFFFFFFFFFFFF" \
  "$poslab" variant --exercise "$fx/huge-hex.yaml" --learner alice

# Empty, comment-only and non-mapping files.
expect_error "empty file" "empty\.yaml: the file is empty; an exercise is a YAML mapping with id, title, blocks" \
  "$poslab" exercise-info "$fx/empty.yaml"
expect_error "comment-only file" "comment-only\.yaml: the file is empty; an exercise is a YAML mapping" \
  "$poslab" variant --exercise "$fx/comment-only.yaml" --learner alice
expect_error "a list, not a mapping" "list\.yaml: the file holds a list; an exercise is a YAML mapping" \
  "$poslab" exercise-info "$fx/list.yaml"

# A file over 1 MiB.
{ echo "id: big"; echo "notes: |"; for i in $(seq 1 20000); do echo "  line $i of a very long note, padded out to sixty characters."; done; } > "$tmp/big.yaml"
expect_error "a file over 1 MiB" "big\.yaml: the file is larger than 1048576 bytes \(1 MiB\)" \
  "$poslab" exercise-info "$tmp/big.yaml"

# Variant fields of the wrong kind name the field.
printf 'id: v\nvariants:\n  p: {kind: permutation, length: 1000000000}\n' > "$tmp/perm.yaml"
expect_error "permutation length capped" "perm\.yaml: variants\.p\.length: must be a whole number from 0 to 4096" \
  "$poslab" variant --exercise "$tmp/perm.yaml" --learner alice
printf 'id: v\nvariants:\n  v: {kind: vector, length: 3, min: -1e308, max: 1e308, step: 1e-300}\n' > "$tmp/vec.yaml"
expect_error "vector step count capped" "vec\.yaml: variants\.v: \(max − min\) / step must be below 2\^53" \
  "$poslab" variant --exercise "$tmp/vec.yaml" --learner alice
printf 'id: v\nvariants:\n  n: {kind: integer, min: "1", max: 5}\n' > "$tmp/str.yaml"
expect_error "a quoted number is not a number" "str\.yaml: variants\.n\.min: must be a whole number .*got \"1\"" \
  "$poslab" variant --exercise "$tmp/str.yaml" --learner alice
printf 'id: v\nid: w\n' > "$tmp/dup.yaml"
expect_error "a key given twice" "dup\.yaml: id: the key is given twice" "$poslab" exercise-info "$tmp/dup.yaml"

# The widest range allowed still works, and stays within it.
printf 'id: wide\nvariants:\n  n: {kind: integer, min: -9007199254740991, max: 9007199254740991}\n' > "$tmp/wide.yaml"
"$poslab" variant --exercise "$tmp/wide.yaml" --learner alice > "$tmp/out" 2>"$tmp/err"
node -e "const v=JSON.parse(require('fs').readFileSync(process.argv[1],'utf8')).variant.n;
  process.exit(Number.isInteger(v)&&Math.abs(v)<=Number.MAX_SAFE_INTEGER?0:1)" "$tmp/out"
check "min/max of ±(2^53 − 1) draw a safe integer" $?

# grade --exercises: a hostile file in the folder stops the run with its name, no crash.
mkdir -p "$tmp/folder"
cp "$here/../fixtures/exercises/grading-demo.yaml" "$fx/self-alias.yaml" "$tmp/folder/"
echo '{}' > "$tmp/sub.json"
expect_error "grade --exercises with a hostile file" "self-alias\.yaml: .*nested more than 64 levels" \
  "$poslab" grade --exercises "$tmp/folder" "$tmp/sub.json"

echo "# $failures failed"
[ "$failures" -eq 0 ]
