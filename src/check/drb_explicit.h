// `druba check` for explicit `.drb` certificates (docs/certificates.md): the reachable concrete
// states of a `safe` that exhaustive search proved at one thread count (where no abstract set is
// inductive, or for deadlock freedom). The checker computes every successor of every state with an
// interpreter of its own (over the parsed program, src/drb/ast.h) and demands that the set
// holds the initial state, is closed, and has no failed (or, asked, deadlocked) state.
#pragma once

#include <string>

#include "check/result.h"
#include "common/json_reader.h"

namespace druba::check {

// Throws InputError for a malformed certificate. `source` is the model's text.
CheckResult CheckDrbExplicitCertificate(const JsonValue& doc, const std::string& digest,
                                        const std::string& source, const std::string& file,
                                        LimitWatch* limits = nullptr);

}  // namespace druba::check
