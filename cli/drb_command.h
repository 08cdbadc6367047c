// `druba verify`, `test` and `replay` on a `.drb` integer program: one thread count, or the outer
// loop over thread counts ("--threads N..", DESIGN.md section 5).
#pragma once

#include <atomic>

#include "run/options.h"

namespace druba::cli {

// Returns the process exit code; throws InputError on bad input.
int RunDrb(const run::RunOptions& options, const std::atomic<bool>* interrupted);

}  // namespace druba::cli
