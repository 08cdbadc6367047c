// `druba verify`, `test` and `replay` on a `.drb` integer program: one thread count, or the outer
// loop over thread counts ("--threads N..", DESIGN.md section 5).
#pragma once

#include <atomic>

#include "run/options.h"

namespace druba::cli {

// Returns the process exit code; throws InputError on bad input. `given`: the options as the
// command line gave them (a `check deadlock;` line in the program adds to them).
int RunDrb(const run::RunOptions& given, const std::atomic<bool>* interrupted);

}  // namespace druba::cli
