// Code points only from a re-run (issue #21): the core's list of the code
// attempts that can count (code_attempts_text), the grade with out-of-band
// re-run results (grade_submission_text's code_results), the five forgeries,
// and the one CSV writer. Expected values come from the reference functions
// (code_reference) and from counting by hand.
#include <gtest/gtest.h>

#include <string>

#include "poslab/code_questions.hpp"
#include "poslab/grading.hpp"

using namespace poslab::grading;

namespace {

// One code question (max_attempts 3, time limit 700 ms) and one numeric-free choice question.
const json kEx = json::parse(R"J({
  "id": "trust-demo", "order": 99, "title": {"ja": "t", "en": "t"},
  "blocks": [{"type": "code", "id": "pe", "function": "build_sinusoidal_encoding", "params": ["seq_len", "d_model"],
    "prompt": {"ja": "p", "en": "p"}, "starter": "def build_sinusoidal_encoding(seq_len, d_model):\n    pass\n",
    "max_attempts": 3, "time_limit_ms": 700,
    "cases": [{"args": [2, 4]}],
    "hidden": [{"count": 2, "sizes": {"S": [1, 4], "D": {"even": [2, 6]}}, "args": ["S", "D"]}],
    "tolerance": {"rtol": 1e-6, "atol": 1e-9}},
   {"type": "choice", "id": "c", "prompt": {"ja": "p", "en": "p"}, "points": 2,
    "options": [{"id": "a", "text": {"ja": "a", "en": "a"}}, {"id": "b", "text": {"ja": "b", "en": "b"}}], "answer": ["a"]}]
})J");

GradingExercises exercises() { return grading_exercises({kEx}); }

json attempt(const std::string& code, const json& extra = json::object()) {
    json a = {{"question", "pe"}, {"answer", {{"code", code}, {"status", "ok"}, {"results", json::array()}}}};
    for (const auto& [k, v] : extra.items()) a[k] = v;
    return a;
}

std::string submission(const std::string& learner, const json& attempts) {
    return json{{"format", "position-lab-submission"},
                {"version", 1},
                {"learner", learner},
                {"exercises", json::array({{{"id", "trust-demo"}, {"contentHash", content_hash(kEx)}, {"attempts", attempts}}})}}
        .dump();
}

// The right results for a learner's hidden cases, from the reference function.
json right_results(const std::string& learner) {
    const json v = make_variant(kEx, variant_seed(learner, "trust-demo", content_hash(kEx)));
    json out = json::array();
    for (const json& c : v["code:pe"]["hidden"])
        out.push_back({{"ok", true}, {"value", code_reference("build_sinusoidal_encoding", c["args"])}});
    return out;
}

// What the stored-results forgeries store: the right answer, computed for the learner.
json forged(const std::string& learner, const std::string& code) {
    json a = attempt(code);
    a["answer"]["results"] = right_results(learner);
    return a;
}

double points(const json& rows) { return rows[0]["points"].is_number() ? rows[0]["points"].get<double>() : -1; }

bool has_flag(const json& row, const std::string& prefix) {
    for (const json& f : row["flags"])
        if (f.get<std::string>().rfind(prefix, 0) == 0) return true;
    return false;
}

}  // namespace

TEST(TrustCodeAttempts, ListsTheCountedAttemptsWithKeysCasesAndLimits) {
    const auto ex = exercises();
    const json list = code_attempts_text(submission("ann", json::array({attempt("a"), attempt("b")})), "f.json", ex);
    ASSERT_TRUE(list["ok"].get<bool>());
    EXPECT_EQ(list["learner"], "ann");
    ASSERT_EQ(list["attempts"].size(), 2u);
    const json& first = list["attempts"][0];
    EXPECT_EQ(first["key"], "trust-demo/pe/0");
    EXPECT_EQ(list["attempts"][1]["key"], "trust-demo/pe/1");
    EXPECT_EQ(first["code"], "a");
    EXPECT_EQ(first["function"], "build_sinusoidal_encoding");
    EXPECT_EQ(first["timeLimitMs"], 700);
    EXPECT_EQ(first["attempt"], 1);
    // The learner's hidden cases: the arguments of the variant's, two of them (count: 2).
    const json v = make_variant(kEx, variant_seed("ann", "trust-demo", content_hash(kEx)));
    ASSERT_EQ(first["cases"].size(), 2u);
    EXPECT_EQ(first["cases"][0], v["code:pe"]["hidden"][0]["args"]);
    EXPECT_EQ(first["cases"][1], v["code:pe"]["hidden"][1]["args"]);
}

TEST(TrustCodeAttempts, OnlyUpToMaxAttemptsAndNeverLabRejectedOnes) {
    const auto ex = exercises();
    json attempts = json::array();
    // 200 attempts with a lab setting the exercise does not allow, first: the grader rejects them.
    for (int i = 0; i < 200; ++i) attempts.push_back(attempt("junk", {{"lab", {{"dModel", 999999}}}}));
    // A malformed code answer (code is not text) is not counted by the grader, so not listed.
    attempts.push_back({{"question", "pe"}, {"answer", {{"code", 5}}}});
    for (int i = 0; i < 5; ++i) attempts.push_back(attempt("real" + std::to_string(i)));
    const json list = code_attempts_text(submission("ann", attempts), "f.json", ex);
    ASSERT_EQ(list["attempts"].size(), 3u);  // max_attempts: 3 of the 5 real ones
    EXPECT_EQ(list["attempts"][0]["code"], "real0");
    EXPECT_EQ(list["attempts"][2]["code"], "real2");
    EXPECT_EQ(list["attempts"][0]["key"], "trust-demo/pe/201");
}

TEST(TrustCodeAttempts, DuplicateEntriesAreOneHistoryInTimeOrder) {
    const auto ex = exercises();
    const std::string hash = content_hash(kEx);
    json late = attempt("late", {{"time", "2026-01-02T00:00:00Z"}});
    json early = attempt("early", {{"time", "2026-01-01T00:00:00Z"}});
    const std::string text = json{{"format", "position-lab-submission"}, {"version", 1}, {"learner", "ann"},
                                  {"exercises", json::array({{{"id", "trust-demo"}, {"contentHash", hash}, {"attempts", {late, late, late}}},
                                                             {{"id", "trust-demo"}, {"contentHash", hash}, {"attempts", {early}}}})}}
                                 .dump();
    const json list = code_attempts_text(text, "f.json", ex);
    ASSERT_EQ(list["attempts"].size(), 3u);  // one history: max_attempts 3 over both copies
    EXPECT_EQ(list["attempts"][0]["code"], "early");
    EXPECT_EQ(list["attempts"][1]["code"], "late");
}

TEST(TrustCodeAttempts, TooLongCodeIsListedAsNotRunnable) {
    const auto ex = exercises();
    const std::string at_limit(kMaxCodeChars, 'x');
    // Code points, not bytes: 10,000 'é' (20,000 bytes) is at the limit.
    std::string accents;
    for (std::size_t i = 0; i < kMaxCodeChars; ++i) accents += "\xC3\xA9";
    const json list = code_attempts_text(submission("ann", json::array({attempt(at_limit), attempt(at_limit + "x"), attempt(accents)})), "f.json", ex);
    ASSERT_EQ(list["attempts"].size(), 3u);
    EXPECT_TRUE(list["attempts"][0]["runnable"].get<bool>());
    EXPECT_FALSE(list["attempts"][1]["runnable"].get<bool>());
    EXPECT_EQ(list["attempts"][1]["reason"], "too_long");
    EXPECT_EQ(list["attempts"][1]["code"], "");
    EXPECT_TRUE(list["attempts"][2]["runnable"].get<bool>());
    EXPECT_EQ(kMaxCodeChars, 10000u);
}

TEST(TrustGrade, StoredResultsAreNeverRead) {
    const auto ex = exercises();
    const std::string text = submission("ann", json::array({forged("ann", "def build_sinusoidal_encoding(s, d): return 0")}));
    // No code results at all: the code attempt is not re-run and scores 0, flagged.
    const json none = grade_submission_text(text, "f.json", ex);
    EXPECT_EQ(points(none), 0.0);
    EXPECT_TRUE(has_flag(none[0], "not_rerun:1"));
    EXPECT_EQ(none[0]["codeRuns"]["pe"]["not_rerun(no_code_results)"], 1);
    EXPECT_EQ(none[0]["questions"][0]["attempts"], 1);  // counted (it cost the learner an attempt), scored 0
    EXPECT_EQ(none[0]["details"].back()["code"], "not_rerun");
    // Code results that do not name it: no_result.
    const json other = grade_submission_text(text, "f.json", ex, json{{"trust-demo/pe/7", {{"status", "ok"}}}});
    EXPECT_EQ(points(other), 0.0);
    EXPECT_EQ(other[0]["codeRuns"]["pe"]["not_rerun(no_result)"], 1);
    // The re-run's own result decides: wrong code ran and failed.
    const json failed = grade_submission_text(text, "f.json", ex, json{{"trust-demo/pe/0", {{"status", "timeout"}, {"message", "stopped"}}}});
    EXPECT_EQ(points(failed), 0.0);
    EXPECT_TRUE(failed[0]["flags"].empty());
    EXPECT_EQ(failed[0]["codeRuns"]["pe"]["timeout"], 1);
}

TEST(TrustGrade, AnHonestReRunEarnsFullMarksAndOtherAnswersStillGrade) {
    const auto ex = exercises();
    json choice = {{"question", "c"}, {"answer", json::array({"a"})}};
    const std::string text = submission("ann", json::array({attempt("def f(): pass"), choice}));
    const json rows = grade_submission_text(text, "f.json", ex, json{{"trust-demo/pe/0", {{"status", "ok"}, {"results", right_results("ann")}}}});
    EXPECT_EQ(points(rows), 3.0);  // 1 (code) + 2 (choice)
    EXPECT_TRUE(rows[0]["flags"].empty());
    // Without code results the choice still earns its 2 points.
    EXPECT_EQ(points(grade_submission_text(text, "f.json", ex)), 2.0);
    // A result with the wrong number of cases is not a result.
    json short_results = right_results("ann");
    short_results.erase(0);
    const json bad = grade_submission_text(text, "f.json", ex, json{{"trust-demo/pe/0", {{"status", "ok"}, {"results", short_results}}}});
    EXPECT_EQ(points(bad), 2.0);
    EXPECT_EQ(bad[0]["codeRuns"]["pe"]["not_rerun(bad_result)"], 1);
    // A runner's own reason (budget) is kept; an unknown status is a bad result.
    const json budget = grade_submission_text(text, "f.json", ex, json{{"trust-demo/pe/0", {{"status", "not_rerun"}, {"reason", "budget"}}}});
    EXPECT_EQ(budget[0]["codeRuns"]["pe"]["not_rerun(budget)"], 1);
    const json odd = grade_submission_text(text, "f.json", ex, json{{"trust-demo/pe/0", {{"status", "great"}}}});
    EXPECT_EQ(odd[0]["codeRuns"]["pe"]["not_rerun(bad_result)"], 1);
}

TEST(TrustGrade, TheFiveForgeriesScoreZero) {
    const auto ex = exercises();
    const std::string junk = "def build_sinusoidal_encoding(s, d): return 0";
    const std::string plain = submission("ann", json::array({forged("ann", junk)}));
    // The control: the junk code, no trick, no re-run result.
    EXPECT_EQ(points(grade_submission_text(plain, "f.json", ex)), 0.0);
    // 1. a NUL byte after the JSON: not JSON at all.
    const json nul = grade_submission_text(plain + std::string(1, '\0') + "junk", "f.json", ex);
    EXPECT_EQ(nul[0]["status"], "invalid_file");
    EXPECT_EQ(nul[0]["details"][0]["code"], "nul_byte");
    EXPECT_FALSE(code_attempts_text(plain + std::string(1, '\0'), "f.json", ex)["ok"].get<bool>());
    // 2. code longer than the limit: listed as not runnable, and 0 even if a result is handed in for it.
    const std::string long_code = junk + "\n#" + std::string(kMaxCodeChars, 'x');
    const std::string long_text = submission("ann", json::array({forged("ann", long_code)}));
    const json long_rows = grade_submission_text(long_text, "f.json", ex, json{{"trust-demo/pe/0", {{"status", "ok"}, {"results", right_results("ann")}}}});
    EXPECT_EQ(points(long_rows), 0.0);
    EXPECT_EQ(long_rows[0]["codeRuns"]["pe"]["not_rerun(too_long)"], 1);
    // 3. a BOM: one is read as the grader reads it (the attempt is listed, so re-run); two are not JSON.
    const json bom1 = code_attempts_text("\xEF\xBB\xBF" + plain, "f.json", ex);
    EXPECT_TRUE(bom1["ok"].get<bool>());
    EXPECT_EQ(bom1["attempts"].size(), 1u);
    EXPECT_EQ(points(grade_submission_text("\xEF\xBB\xBF" + plain, "f.json", ex)), 0.0);
    const json bom2 = grade_submission_text("\xEF\xBB\xBF\xEF\xBB\xBF" + plain, "f.json", ex);
    EXPECT_EQ(bom2[0]["status"], "invalid_file");
    EXPECT_EQ(bom2[0]["details"][0]["code"], "two_boms");
    EXPECT_FALSE(code_attempts_text("\xEF\xBB\xBF\xEF\xBB\xBF" + plain, "f.json", ex)["ok"].get<bool>());
    // 4. 200 lab-rejected attempts first: the real one is listed (counted 1st) and, not re-run, scores 0.
    json many = json::array();
    for (int i = 0; i < 200; ++i) many.push_back(attempt("x", {{"lab", {{"dModel", 999999}}}}));
    many.push_back(forged("ann", junk));
    const std::string many_text = submission("ann", many);
    EXPECT_EQ(code_attempts_text(many_text, "f.json", ex)["attempts"].size(), 1u);
    EXPECT_EQ(points(grade_submission_text(many_text, "f.json", ex)), 0.0);
    // 5. the learner id --help is a learner id.
    const std::string help = submission("--help", json::array({forged("--help", junk)}));
    const json help_list = code_attempts_text(help, "f.json", ex);
    EXPECT_EQ(help_list["learner"], "--help");
    EXPECT_EQ(help_list["attempts"].size(), 1u);
    const json help_rows = grade_submission_text(help, "f.json", ex);
    EXPECT_EQ(help_rows[0]["learner"], "--help");
    EXPECT_EQ(points(help_rows), 0.0);
}

TEST(TrustGrade, BytesThatAreNotUtf8AreRefusedByTheOneParser) {
    const auto ex = exercises();
    std::string text = submission("ann", json::array({attempt("x")}));
    text.insert(text.find("ann"), "\xFF");
    const json rows = grade_submission_text(text, "f.json", ex);
    EXPECT_EQ(rows[0]["status"], "invalid_file");
    EXPECT_EQ(rows[0]["details"][0]["code"], "not_utf8");
    EXPECT_FALSE(code_attempts_text(text, "f.json", ex)["ok"].get<bool>());
    // An overlong form of '/' (C0 AF) is not UTF-8 either.
    std::string overlong = submission("ann", json::array({attempt("x")}));
    overlong.insert(overlong.find("ann"), "\xC0\xAF");
    EXPECT_EQ(grade_submission_text(overlong, "f.json", ex)[0]["details"][0]["code"], "not_utf8");
}

TEST(TrustGrade, PastMaxAttemptsAreIgnoredNotGraded) {
    const auto ex = exercises();
    json attempts = json::array();
    for (int i = 0; i < 5; ++i) attempts.push_back(attempt("c" + std::to_string(i)));
    json results = json::object();
    // Right results handed in for attempts 4 and 5 (past max_attempts 3) count for nothing.
    results["trust-demo/pe/3"] = {{"status", "ok"}, {"results", right_results("ann")}};
    results["trust-demo/pe/4"] = {{"status", "ok"}, {"results", right_results("ann")}};
    for (int i = 0; i < 3; ++i) results["trust-demo/pe/" + std::to_string(i)] = {{"status", "crashed"}};
    const json rows = grade_submission_text(submission("ann", attempts), "f.json", ex, results);
    EXPECT_EQ(points(rows), 0.0);
    EXPECT_EQ(rows[0]["questions"][0]["attempts"], 3);
    EXPECT_EQ(rows[0]["questions"][0]["ignored"], 2);
    EXPECT_EQ(rows[0]["codeRuns"]["pe"]["crashed"], 3);
    EXPECT_EQ(rows[0]["codeRuns"]["pe"].size(), 1u);  // the right results past the limit were never taken
}

TEST(TrustRows, AHostileRowIsCapped) {
    const auto ex = exercises();
    // 300 entries of unknown exercises: one row each, every message within the cap.
    json entries = json::array();
    for (int i = 0; i < 300; ++i) entries.push_back({{"id", std::string(5000, 'a') + std::to_string(i)}});
    const std::string text = json{{"format", "position-lab-submission"}, {"version", 1}, {"learner", "ann"}, {"exercises", entries}}.dump();
    for (const json& r : grade_submission_text(text, "f.json", ex)) {
        std::size_t n = 0;
        for (unsigned char c : r["message"].get<std::string>()) n += (c & 0xC0) != 0x80;
        EXPECT_LE(n, kMaxRowMessageChars + 1);
        EXPECT_LE(r["details"].size(), kMaxRowItems);
    }
}

TEST(TrustCsv, NumbersAtSixDecimals) {
    EXPECT_EQ(csv_number(5.0 / 3.0), "1.666667");
    EXPECT_EQ(csv_number(2.0), "2");
    EXPECT_EQ(csv_number(0.5), "0.5");
    EXPECT_EQ(csv_number(7.0), "7");
    EXPECT_EQ(csv_number(1e-7), "0");
    EXPECT_EQ(csv_number(-0.25), "-0.25");
    EXPECT_EQ(csv_number(123456.1234567), "123456.123457");
}

TEST(TrustCsv, CellsQuotedNeutralisedAndVisible) {
    EXPECT_EQ(csv_cell("plain"), "plain");
    EXPECT_EQ(csv_cell("a;b"), "\"a;b\"");
    EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_cell("=SUM(A1)"), "'=SUM(A1)");
    EXPECT_EQ(csv_cell("-x"), "'-x");
    EXPECT_EQ(csv_cell("@x;y"), "\"'@x;y\"");
    // Bidirectional controls and invisible characters as visible escapes.
    EXPECT_EQ(csv_cell("abc\xE2\x80\xAE" "def"), "abc\\u202Edef");   // U+202E RIGHT-TO-LEFT OVERRIDE
    EXPECT_EQ(display_text("a\xE2\x80\x8B" "b"), "a\\u200Bb");        // U+200B ZERO WIDTH SPACE
    EXPECT_EQ(display_text("\xE2\x81\xA6x"), "\\u2066x");             // U+2066 LEFT-TO-RIGHT ISOLATE
    EXPECT_EQ(display_text(std::string("a\tb")), "a\\u0009b");
    EXPECT_EQ(display_text("Jos\xC3\xA9 山田"), "Jos\xC3\xA9 山田");  // letters stay as they are
    EXPECT_EQ(display_text("a\xFF"), "a\xEF\xBF\xBD");                // not UTF-8: U+FFFD
    // NFC: "Jose" + U+0301 COMBINING ACUTE ACCENT is the same name as "Jos" + U+00E9, in every cell.
    EXPECT_EQ(display_text("Jose\xCC\x81"), "Jos\xC3\xA9");
    EXPECT_EQ(csv_cell("Jose\xCC\x81;x"), "\"Jos\xC3\xA9;x\"");
    EXPECT_EQ(display_text("\xEF\xAC\x81"), "\xEF\xAC\x81");  // U+FB01 (ﬁ) is NFC already (only NFKC would change it)
    EXPECT_EQ(display_text("\xE1\x84\x80\xE1\x85\xA1"), "\xEA\xB0\x80");  // Hangul jamo ᄀ + ᅡ compose to 가 (U+AC00)
}

TEST(TrustCsv, RowsAndTables) {
    const json row = {{"file", "a;b.json"}, {"learner", "=cmd"}, {"exercise", "e"}, {"points", 5.0 / 3.0}, {"max", 2},
                      {"claimedPoints", nullptr}, {"claimedDiffers", nullptr}, {"status", "graded"}, {"message", ""},
                      {"flags", {"not_rerun:1", "x"}}, {"codeRuns", {{"pe", {{"ok", 1}, {"not_rerun(too_long)", 2}}}}}};
    EXPECT_EQ(csv_header(), "file,learner,exercise,points,max,claimed_points,claimed_differs,status,message,flags,code_runs");
    EXPECT_EQ(csv_row(row), "\"a;b.json\",'=cmd,e,1.666667,2,,,graded,,\"not_rerun:1;x\",pe:not_rerun(too_long)=2+ok=1");
    EXPECT_EQ(csv_table(json::array({json::array({"a;b", 0.5, nullptr, true})}), true), "\"a;b\",0.5,,yes\r\n");
}
