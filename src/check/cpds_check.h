// `druba check`: an independent checker of CPDS certificates (docs/certificates.md). It shares
// with druba only the model readers (src/cpds/reader) and the common utilities; the abstract
// post, the relation's rules and the property are computed here, from the rules of the model, by
// code of its own. Not linked: the explorer, the driver, the closure oracle, below.cc, top_k.cc.
#pragma once

#include <optional>
#include <string>

#include "check/result.h"
#include "common/json_reader.h"
#include "common/resources.h"
#include "cpds/cpds.h"

namespace druba::check {

// Checks `certificate` (parsed JSON) against the model. `digest` is ContentDigest of the model's
// texts as `druba verify` computed it. Throws InputError for a malformed certificate.
CheckResult CheckCpdsCertificate(const JsonValue& certificate, const std::string& digest,
                                 const cpds::Cpds& cpds, const cpds::InitialState& init,
                                 const std::optional<cpds::TargetPattern>& target,
                                 LimitWatch* limits = nullptr);

}  // namespace druba::check
