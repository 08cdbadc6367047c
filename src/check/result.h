// What every checker of src/check answers, and what they share to get there: the result (valid,
// invalid with the condition and an instance, or stopped by a limit), the limits' polling, and the
// schema every certificate meets (docs/certificates.md).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "common/resources.h"

namespace druba::check {

struct CheckResult {
  bool valid = false;
  std::vector<std::string> passed;  // the conditions checked, in order
  std::string failed;               // the condition that failed (empty when valid)
  std::string example;              // an instance of the failure
  std::string stopped;  // a limit or a signal ended the check first: neither valid nor invalid
};

// Thrown where a check polls its limits (--time-limit, --memory-limit, SIGINT/SIGTERM/SIGHUP) and
// they say stop; each checker's entry point turns it into a result with `stopped` set.
struct CheckStopped {
  std::string reason;
};

// Throws CheckStopped when `limits` (may be null) say the check must end. `every` polls only
// every few thousand calls (for loops of cheap steps).
inline void PollLimits(LimitWatch* limits, bool every = true) {
  if (limits == nullptr) return;
  const std::optional<std::string> why = every ? limits->Check() : limits->Poll();
  if (why) throw CheckStopped{*why};
}

// A solver query's time: its own bound, or less when the time limit comes first (in ms, >= 1).
inline unsigned QueryTimeoutMs(unsigned timeout_ms, const LimitWatch* limits) {
  if (limits == nullptr) return timeout_ms;
  const double left_ms = limits->RemainingSeconds() * 1000 + 1;
  return left_ms < timeout_ms ? static_cast<unsigned>(std::max(1.0, left_ms)) : timeout_ms;
}

// `r` with `condition` failed, and an instance of the failure.
inline CheckResult Invalid(CheckResult r, std::string condition, std::string example) {
  r.failed = std::move(condition);
  r.example = std::move(example);
  return r;
}

// Throws InputError, naming the place, unless `doc` is a version 1 certificate of `kind` with
// exactly the fields of its schema (docs/certificates.md): `required`, the fields every
// certificate has (druba_certificate, kind, digest, threads, proof) and at most `optional`. A
// claim the checker would not read is an error, never a weaker claim read as valid.
inline void ExpectSchema(const JsonValue& doc, const std::string& kind,
                         std::initializer_list<std::string_view> required,
                         std::initializer_list<std::string_view> optional = {}) {
  const std::string what = "a version 1 certificate of kind '" + kind + "'";
  if (doc.kind != JsonValue::Kind::kObject || doc.At("druba_certificate").AsUInt() != 1 ||
      doc.At("kind").AsString() != kind) {
    throw InputError(doc.where, "not " + what);
  }
  std::vector<std::string_view> all = {"druba_certificate", "kind", "digest", "threads", "proof"};
  all.insert(all.end(), required.begin(), required.end());
  for (const std::string_view key : all) {
    if (!doc.Has(std::string(key))) {
      throw InputError(doc.where, "missing field '" + std::string(key) + "' of " + what);
    }
  }
  std::vector<std::string_view> known = all;
  known.insert(known.end(), optional.begin(), optional.end());
  for (const auto& [key, value] : doc.fields) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string message = "unknown field '" + key + "': ";
      message.append(what).append(" has no such field");
      throw InputError(value.where, message);
    }
  }
  static constexpr std::string_view kProofs[] = {
      "plateau", "sandwich", "upper-bound", "closed", "exhausted", "every-count", "invariant"};
  const std::string& proof = doc.At("proof").AsString();
  if (std::find(std::begin(kProofs), std::end(kProofs), proof) == std::end(kProofs)) {
    throw InputError(
        doc.At("proof").where,
        "proof is one of plateau, sandwich, upper-bound, closed, exhausted, every-count, "
        "invariant");
  }
  doc.At("digest").AsString();
  doc.At("threads").AsUInt();
}

}  // namespace druba::check
