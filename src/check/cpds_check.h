// `druba check`: an independent checker of CPDS certificates (docs/certificates.md). It shares
// with druba only the model readers (src/cpds/reader) and the common utilities; the abstract
// post, the relation's rules and the property are computed here, from the rules of the model, by
// code of its own. Not linked: the explorer, the driver, the closure oracle, below.cc, top_k.cc.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "cpds/cpds.h"

namespace druba::check {

struct CheckResult {
  bool valid = false;
  std::vector<std::string> passed;  // the conditions checked, in order
  std::string failed;               // the condition that failed (empty when valid)
  std::string example;              // an instance of the failure
};

// `r` with `condition` failed, and an instance of the failure.
inline CheckResult Invalid(CheckResult r, std::string condition, std::string example) {
  r.failed = std::move(condition);
  r.example = std::move(example);
  return r;
}

// Throws InputError unless `doc` is a version 1 certificate of `kind`.
inline void ExpectKind(const JsonValue& doc, const std::string& kind) {
  if (doc.At("druba_certificate").AsUInt() != 1 || doc.At("kind").AsString() != kind) {
    throw InputError(doc.where, "not a version 1 certificate of kind '" + kind + "'");
  }
}

// Checks `certificate` (parsed JSON) against the model. `digest` is ContentDigest of the model's
// texts as `druba verify` computed it. Throws InputError for a malformed certificate.
CheckResult CheckCpdsCertificate(const JsonValue& certificate, const std::string& digest,
                                 const cpds::Cpds& cpds, const cpds::InitialState& init,
                                 const std::optional<cpds::TargetPattern>& target);

}  // namespace druba::check
