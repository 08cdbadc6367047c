// `druba check`'s answer as an outcome for the command line: valid with the conditions checked,
// or invalid with the condition that failed and an instance of it.
#pragma once

#include <string>

#include "check/cpds_check.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "run/front_end.h"

namespace druba::front {

inline run::Outcome CheckAnswer(const check::CheckResult& r) {
  std::string passed;
  for (const std::string& p : r.passed) passed += (passed.empty() ? "" : ", ") + p;
  if (!r.stopped.empty()) {
    std::string text = "certificate unknown: the check was stopped (" + r.stopped +
                       ") before it decided every condition; nothing is claimed\n";
    if (!passed.empty()) text += "checked before it: " + passed + "\n";
    return {run::Outcome::Kind::kCheckStopped, std::nullopt, text, {}};
  }
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

// Runs `replay` (a model kind's replay of the trace `doc`); when it fails on a trace written for
// another model (its digest differs from `digest`, the model's), the error says so first.
template <class Replay>
auto ReplayNaming(const JsonValue& doc, const run::RunOptions& request, const std::string& digest,
                  Replay&& replay) {
  try {
    return replay();
  } catch (const InputError& e) {
    if (!doc.Has("digest") || doc.At("digest").kind != JsonValue::Kind::kString ||
        doc.At("digest").text == digest) {
      throw;
    }
    const std::string written_for =
        doc.Has("model") && doc.At("model").kind == JsonValue::Kind::kString
            ? doc.At("model").text
            : std::string("another model");
    throw InputError({request.replay_trace, 0, 0},
                     "the trace was written for " + written_for + " (" + doc.At("digest").text +
                         "), not for " + request.model + " as it is now (" + digest +
                         "): a trace replays only on the model it was found on. Replaying it "
                         "failed at: " +
                         e.what());
  }
}

}  // namespace druba::front
