// `druba check` for `.drb` invariant certificates (docs/certificates.md): a formula per location
// tuple, from a `safe` whose proof is an inductive invariant at one thread count. The checker
// parses the formulas with the model (the shared reader, src/drb) and decides with its own
// encoding (check/drb_fixed.h) that the initial state is covered, that every step from a covered
// state (a failing one included) leads to a covered state at a listed tuple (which holds no failed
// thread), and, for deadlock freedom, that no covered state is a deadlock.
#pragma once

#include <string>

#include "check/drb_check.h"
#include "check/result.h"
#include "common/json_reader.h"

namespace druba::check {

// Throws InputError for a malformed certificate. `source` is the model's text.
CheckResult CheckDrbInvariantCertificate(const JsonValue& doc, const std::string& digest,
                                         const std::string& source, const std::string& file,
                                         LimitWatch* limits = nullptr,
                                         unsigned timeout_ms = kQueryTimeoutMs);

}  // namespace druba::check
