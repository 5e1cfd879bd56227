#pragma once
// What the grading files (cpp/src/grading_*.cpp) share with each other and
// with nothing else: not part of the core's API (that is grading.hpp).
#include <string>
#include <utility>

#include "poslab/errors.hpp"
#include "poslab/grading.hpp"

namespace poslab::grading::internal {

// Decodes one UTF-8 code point at s[i] (the text is known to be UTF-8 when it
// comes from JSON); returns it and advances i. (grading_numeric.cpp)
char32_t next_code_point(const std::string& s, std::size_t& i);

// Every number as a double, recursively (canonical_json; a task's `equals`). (grading_variants.cpp)
json to_doubles(const json& v);
// {ja, en}: a value per language (text, or e.g. a target token list). (grading_variants.cpp)
bool is_text(const json& v);

// An error in the exercise file (not the learner's answer). (grading_verdict.cpp)
InvalidArgument exercise_error(const std::string& what);
// An answer that cannot be checked: it costs the learner no attempt. (grading_verdict.cpp)
AttemptResult malformed(const std::string& message);

inline Problem problem(const std::string& code, json params, std::string text) { return Problem{code, std::move(params), std::move(text)}; }

// A question answered from the learner's Part 2 run needs that run's seeds
// (lab.runSeeds); kNoRun says so. (grading_choice.cpp)
bool reads_run(const json& q);
extern const char* const kNoRun;

// Each question type's check of one answer (check_attempt picks one).
AttemptResult check_numeric(const json& q, const json& answer, const json& variant, const json& lab,
                            const std::string& lang);                                    // grading_numeric.cpp
AttemptResult check_choice(const json& q, const json& answer, const json& variant, const json& lab,
                           const std::string& lang);                                     // grading_choice.cpp
AttemptResult check_prediction(const json& q, const json& answer);                      // grading_choice.cpp
AttemptResult check_task(const json& q, const json& answer, const json& variant, const json& lab,
                         const std::string& lang);                                       // grading_task.cpp

}  // namespace poslab::grading::internal
