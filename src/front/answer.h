// `druba check`'s answer as an outcome for the command line: valid with the conditions checked,
// or invalid with the condition that failed and an instance of it.
#pragma once

#include <string>

#include "check/request.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "explore/replay.h"
#include "run/front_end.h"

namespace druba::front {

inline run::Outcome CheckAnswer(const check::CheckAnswer& answer) {
  const check::CheckResult& r = answer.result;
  const run::Outcome::Kind kind = answer.kind == check::CheckAnswer::Kind::kDisagrees
                                      ? run::Outcome::Kind::kCertificateInvalid
                                  : !r.stopped.empty() ? run::Outcome::Kind::kCheckStopped
                                  : r.valid            ? run::Outcome::Kind::kCertificateValid
                                                       : run::Outcome::Kind::kCertificateInvalid;
  return {kind, std::nullopt, check::AnswerText(answer), {}};
}

// The request of `druba check` as the checker takes it (the kind adds its own options).
inline check::CheckRequest CheckRequestOf(const run::RunOptions& request, const run::Sinks& sinks) {
  check::CheckRequest asked;
  asked.model = request.model;
  asked.certificate = request.certificate;
  asked.deadlock = request.deadlock;
  asked.limits = {request.time_limit_s, request.memory_limit_mb};
  asked.interrupted = sinks.interrupted;
  return asked;
}

// The line of `druba replay` that confirms a violation of `property` (the trace's): "replay:
// deadlock confirmed" for a deadlock, "replay: violation confirmed" for another; then the slots,
// the delays, the state reached and `about` (what the kind adds).
inline run::Outcome ReplayConfirmed(const ReplayOutcome& done, const std::string& property,
                                    const std::string& about = "") {
  const bool deadlock = property == "deadlock";
  std::string text = std::string("replay: ") + (deadlock ? "deadlock" : "violation") +
                     " confirmed: " + std::to_string(done.slots) +
                     (done.slots == 1 ? " slot, " : " slots, ") + std::to_string(done.delays) +
                     (done.delays == 1 ? " delay, reached " : " delays, reached ") + done.reached +
                     (deadlock ? ", where no thread can move" : "") + about + "\n";
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
