// `druba verify`, `test` and `replay` on a CPDS (.pds) model: load, run, report.
#pragma once

#include <atomic>

#include "run/options.h"

namespace druba::cli {

// Returns the process exit code; throws InputError on bad input.
int RunCpds(const run::RunOptions& options, const std::atomic<bool>* interrupted);

}  // namespace druba::cli
