// `druba verify` and `test` on a `.drb` program, from the request to the report: the thread
// counts and the abstraction chosen (thread_counts.h), the strategy's rounds (strategy.h), the
// certificate for every thread count once the closure across counts holds, and the report's
// .drb sections (the closure test across counts, refinement) in the kind's words.
#pragma once

#include "common/resources.h"
#include "interp/program.h"
#include "run/report.h"
#include "strategy/strategy.h"

namespace druba::predabs {

// Throws InputError for counts or an abstraction the program does not allow.
run::Report VerifyReport(const DrbRequest& request, const Program& program, LimitWatch& limits,
                         const StrategyHooks& hooks);

}  // namespace druba::predabs
