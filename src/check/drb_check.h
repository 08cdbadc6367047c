// `druba check` for `.drb` certificates (docs/certificates.md): the abstraction block, the thread
// count and the abstract states S of a `safe` at one thread count. The checker parses the model
// with the abstraction (the shared reader, src/drb) and decides every condition with
// an SMT encoding of its own (threads unrolled, quantifiers expanded), so that a defect in the
// main encoder (src/smt/encoder.cc) cannot hide behind itself.
#pragma once

#include <string>

#include "check/result.h"
#include "common/json_reader.h"

namespace druba::check {

// Throws InputError for a malformed certificate. `source` is the model's text. Each solver query
// may take `timeout_ms`; one that takes longer is undecided, and the certificate invalid.
inline constexpr unsigned kQueryTimeoutMs = 30000;
CheckResult CheckDrbCertificate(const JsonValue& certificate, const std::string& digest,
                                const std::string& source, const std::string& file,
                                LimitWatch* limits = nullptr,
                                unsigned timeout_ms = kQueryTimeoutMs);

}  // namespace druba::check
