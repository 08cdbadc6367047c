// `druba check`'s answer as an outcome for the command line: valid with the conditions checked,
// or invalid with the condition that failed and an instance of it.
#pragma once

#include <string>

#include "check/cpds_check.h"
#include "run/front_end.h"

namespace druba::front {

inline run::Outcome CheckAnswer(const check::CheckResult& r) {
  std::string passed;
  for (const std::string& p : r.passed) passed += (passed.empty() ? "" : ", ") + p;
  if (r.valid) {
    return {run::Outcome::Kind::kCertificateValid,
            std::nullopt,
            "certificate valid: " + passed + "\n",
            {}};
  }
  std::string text = "certificate invalid: " + r.failed + ": " + r.example + "\n";
  if (!passed.empty()) text += "checked before it: " + passed + "\n";
  return {run::Outcome::Kind::kCertificateInvalid, std::nullopt, text, {}};
}

// The line of `druba replay` that confirms a violation.
inline run::Outcome ReplayConfirmed(std::string text) {
  return {run::Outcome::Kind::kReplayConfirmed, std::nullopt, std::move(text), {}};
}

}  // namespace druba::front
